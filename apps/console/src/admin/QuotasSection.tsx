import type { Schemas } from '@routinely/api-client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { api, data, fieldErrors, problemText } from '../api/client.js';
import { Outcome, Section } from '../settings/Section.js';
import { QueryView } from '../ui/states.js';
import { TableScroll } from '../ui/TableScroll.js';

type Quota = Schemas['UserQuota'];
type Editable = 'soft_cap_usd' | 'hard_cap_usd' | 'bulk_import_per_hour' | 'bulk_import_per_day';
const quotasKey = ['admin', 'quotas'] as const;
const COLUMNS: { key: Editable; label: string }[] = [
  { key: 'soft_cap_usd', label: 'Soft cap (USD a day)' },
  { key: 'hard_cap_usd', label: 'Hard cap (USD a day)' },
  { key: 'bulk_import_per_hour', label: 'Imports an hour' },
  { key: 'bulk_import_per_day', label: 'Imports a day' },
];

/** Every user's caps and import limits, edited in the table row; a refused value shows its reason on its field. */
export function QuotasSection() {
  const quotas = useQuery({
    queryKey: quotasKey,
    queryFn: async () => data(await api.GET('/api/v1/service/admin/quotas', { params: { query: { limit: 500 } } })),
  });
  return (
    <Section id="quotas" title="Quotas">
      <QueryView query={quotas} label="Loading quotas" rows={4}>
        {(page) => (
          <TableScroll label="Quotas of the tenant's users">
            <table className="attempts quotas">
              <caption className="sr-only">Quotas of the tenant's users</caption>
              <thead>
                <tr>
                  <th scope="col">User</th>
                  {COLUMNS.map((c) => (
                    <th key={c.key} scope="col">
                      {c.label}
                    </th>
                  ))}
                  <th scope="col">Spent today</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((q) => (
                  <QuotaRow key={q.user_id} quota={q} />
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </QueryView>
    </Section>
  );
}

function QuotaRow({ quota }: { quota: Quota }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [values, setValues] = useState<Record<Editable, string>>(() => valuesOf(quota));
  const save = useMutation({
    mutationFn: async () =>
      data(
        await api.PATCH('/api/v1/service/admin/quotas/{user_id}', {
          params: { path: { user_id: quota.user_id } },
          body: {
            soft_cap_usd: Number(values.soft_cap_usd),
            hard_cap_usd: Number(values.hard_cap_usd),
            bulk_import_per_hour: Number(values.bulk_import_per_hour),
            bulk_import_per_day: Number(values.bulk_import_per_day),
          },
        }),
      ),
    onSuccess: () => {
      setEditing(false);
      void queryClient.invalidateQueries({ queryKey: quotasKey });
    },
  });
  const errors = fieldErrors(save.error);
  const generalError = save.isError && Object.keys(errors).length === 0 ? problemText(save.error) : undefined;
  return (
    <tr>
      <th scope="row">{quota.email}</th>
      {COLUMNS.map((c) =>
        editing ? (
          <td key={c.key}>
            <input
              className="time-input number-input"
              inputMode="decimal"
              aria-label={`${c.label} of ${quota.email}`}
              aria-invalid={errors[c.key] ? true : undefined}
              aria-describedby={errors[c.key] ? `${quota.user_id}-${c.key}-error` : undefined}
              value={values[c.key]}
              onChange={(e) => setValues((v) => ({ ...v, [c.key]: e.target.value }))}
            />
            {errors[c.key] && (
              <span id={`${quota.user_id}-${c.key}-error`} className="field-error" role="alert">
                {errors[c.key]}
              </span>
            )}
          </td>
        ) : (
          <td key={c.key}>{quota[c.key]}</td>
        ),
      )}
      <td>
        ${quota.daily_usd.toFixed(4)}
        {quota.hard_breached ? ' (hard cap reached)' : quota.soft_breached ? ' (soft cap passed)' : ''}
      </td>
      <td>
        {editing ? (
          <span className="btn-pair">
            <Button
              className="btn btn-small btn-primary"
              aria-label={`Save quota of ${quota.email}`}
              onPress={() => save.mutate()}
            >
              Save
            </Button>
            <Button
              className="btn btn-small"
              aria-label={`Cancel editing ${quota.email}`}
              onPress={() => {
                setValues(valuesOf(quota));
                setEditing(false);
                save.reset();
              }}
            >
              Cancel
            </Button>
          </span>
        ) : (
          <Button
            className="btn btn-small"
            aria-label={`Edit quota of ${quota.email}`}
            onPress={() => setEditing(true)}
          >
            Edit
          </Button>
        )}
        <Outcome error={generalError} />
      </td>
    </tr>
  );
}

function valuesOf(quota: Quota): Record<Editable, string> {
  return {
    soft_cap_usd: String(quota.soft_cap_usd),
    hard_cap_usd: String(quota.hard_cap_usd),
    bulk_import_per_hour: String(quota.bulk_import_per_hour),
    bulk_import_per_day: String(quota.bulk_import_per_day),
  };
}
