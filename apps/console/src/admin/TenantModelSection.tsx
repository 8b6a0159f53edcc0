import type { Schemas } from '@routinely/api-client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { Checkbox } from 'react-aria-components';
import { api, data, problemText } from '../api/client.js';
import { keys } from '../api/queries.js';
import { Outcome, Section } from '../settings/Section.js';
import { QueryView } from '../ui/states.js';

type Provider = Schemas['TenantSchedulingSettings']['llm_provider_tenant_default'];
const tenantModelKey = ['admin', 'tenant-model'] as const;

/** The tenant's default planning provider, and whether users may choose another. */
export function TenantModelSection() {
  const queryClient = useQueryClient();
  const selectId = useId();
  const settings = useQuery({
    queryKey: tenantModelKey,
    queryFn: async () => data(await api.GET('/api/v1/service/admin/tenant/settings')),
  });
  const save = useMutation({
    mutationFn: async (body: { llm_provider_tenant_default?: Provider; llm_provider_locked?: boolean }) =>
      data(await api.PATCH('/api/v1/service/admin/tenant/settings', { body })),
    onSuccess: (saved) => {
      queryClient.setQueryData(tenantModelKey, saved);
      void queryClient.invalidateQueries({ queryKey: keys.settings });
    },
  });
  return (
    <Section id="tenant" title="Tenant model">
      <QueryView query={settings} label="Loading the tenant's model settings" rows={2}>
        {(s) => (
          <div className="stack">
            <div className="field">
              <label htmlFor={selectId}>Default provider for the tenant</label>
              <select
                id={selectId}
                className="select"
                value={s.llm_provider_tenant_default}
                onChange={(e) => save.mutate({ llm_provider_tenant_default: e.target.value as Provider })}
              >
                <option value="builtin">builtin</option>
                <option value="openai">openai</option>
                <option value="anthropic">anthropic</option>
              </select>
            </div>
            <Checkbox
              className="react-aria-Checkbox plan-check"
              isSelected={s.llm_provider_locked}
              onChange={(locked) => save.mutate({ llm_provider_locked: locked })}
            >
              <span className="check" aria-hidden="true" />
              Lock it: every user plans with the tenant's provider
            </Checkbox>
            <Outcome
              error={save.isError ? problemText(save.error) : undefined}
              saved={save.isSuccess ? 'Saved.' : undefined}
            />
          </div>
        )}
      </QueryView>
    </Section>
  );
}
