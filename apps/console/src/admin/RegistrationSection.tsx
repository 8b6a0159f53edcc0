import type { Schemas } from '@routinely/api-client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api, data, fieldErrors, problemText } from '../api/client.js';
import { Outcome, Section } from '../settings/Section.js';
import { CopyButton } from '../ui/CopyButton.js';
import { Field } from '../ui/Field.js';
import { EmptyState, QueryView } from '../ui/states.js';

type Tenant = Schemas['Tenant'];
const tenantKey = ['admin', 'tenant'] as const;
const invitesKey = ['admin', 'invites'] as const;

/**
 * The link an invitee registers with. The token rides in the fragment, which the browser never sends to a
 * server (no access log or Referer carries it); the register page reads it from there.
 */
function inviteLink(tenantId: string, token: string): string {
  return `${window.location.origin}/register#tenant=${encodeURIComponent(tenantId)}&invite=${encodeURIComponent(token)}`;
}

/** Who may join the tenant (open, by email domain, by invitation) and the invitations, each a copyable link. */
export function RegistrationSection() {
  const tenant = useQuery({ queryKey: tenantKey, queryFn: async () => data(await api.GET('/api/v1/auth/tenant')) });
  return (
    <Section id="registration" title="Registration and invites">
      <QueryView query={tenant} label="Loading the registration policy" rows={2}>
        {(t) => (
          <>
            <PolicyForm tenant={t} />
            <Invites tenantId={t.tenant_id} />
          </>
        )}
      </QueryView>
    </Section>
  );
}

function PolicyForm({ tenant }: { tenant: Tenant }) {
  const queryClient = useQueryClient();
  const selectId = useId();
  const [registration, setRegistration] = useState(tenant.registration);
  const [domains, setDomains] = useState(tenant.allowed_email_domains.join(', '));
  const save = useMutation({
    mutationFn: async () =>
      data(
        await api.PATCH('/api/v1/auth/tenant', {
          body: {
            registration,
            allowed_email_domains: domains
              .split(',')
              .map((d) => d.trim())
              .filter(Boolean),
          },
        }),
      ),
    onSuccess: (saved) => queryClient.setQueryData(tenantKey, saved),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Form className="stack" onSubmit={submit} validationErrors={fieldErrors(save.error)}>
      <div className="grid-2">
        <div className="field">
          <label htmlFor={selectId}>Who may register</label>
          <select
            id={selectId}
            className="select"
            value={registration}
            onChange={(e) => setRegistration(e.target.value as Tenant['registration'])}
          >
            <option value="invite">Only people with an invitation</option>
            <option value="domain">People with an email address of the allowed domains</option>
            <option value="open">Anyone</option>
          </select>
        </div>
        <Field
          label="Allowed email domains"
          name="allowed_email_domains"
          placeholder="example.com, example.org"
          value={domains}
          onChange={setDomains}
        />
      </div>
      <Outcome
        error={save.isError ? problemText(save.error) : undefined}
        saved={save.isSuccess ? 'Registration policy saved.' : undefined}
      />
      <Button type="submit" className="btn" isDisabled={save.isPending}>
        Save registration policy
      </Button>
    </Form>
  );
}

function Invites({ tenantId }: { tenantId: string }) {
  const queryClient = useQueryClient();
  const roleId = useId();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'user' | 'admin'>('user');
  const invites = useQuery({
    queryKey: invitesKey,
    queryFn: async () => data(await api.GET('/api/v1/auth/tenant/invites')),
  });
  const create = useMutation({
    mutationFn: async () =>
      data(await api.POST('/api/v1/auth/tenant/invites', { body: { role, ...(email ? { email } : {}) } })),
    onSuccess: () => {
      setEmail('');
      void queryClient.invalidateQueries({ queryKey: invitesKey });
    },
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => {
      const result = await api.DELETE('/api/v1/auth/tenant/invites/{invite_id}', {
        params: { path: { invite_id: id } },
      });
      if (!result.response.ok) data(result);
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: invitesKey }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const link = create.data ? inviteLink(tenantId, create.data.token) : undefined;
  return (
    <div className="stack">
      <h3>Invitations</h3>
      <QueryView query={invites} label="Loading invitations" rows={2}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState>No open invitations.</EmptyState>
          ) : (
            <ul className="task-list">
              {list.map((i) => (
                <li key={i.id} className="task-row static">
                  <span className="task-row-title">
                    {i.email ?? 'Anyone with the link'}{' '}
                    <span className="muted small">
                      {i.role}, until {new Date(i.expires_at).toLocaleDateString()}
                    </span>
                  </span>
                  <Button
                    className="btn btn-small"
                    aria-label={`Revoke the invitation of ${i.email ?? 'anyone with the link'}`}
                    onPress={() => revoke.mutate(i.id)}
                  >
                    Revoke
                  </Button>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
      <Form className="stack" onSubmit={submit} validationErrors={fieldErrors(create.error)}>
        <div className="grid-2">
          <Field label="Invitee's email (optional)" name="email" type="email" value={email} onChange={setEmail} />
          <div className="field">
            <label htmlFor={roleId}>Role</label>
            <select
              id={roleId}
              className="select"
              value={role}
              onChange={(e) => setRole(e.target.value as 'user' | 'admin')}
            >
              <option value="user">User</option>
              <option value="admin">Administrator</option>
            </select>
          </div>
        </div>
        {link && (
          <div className="secret" role="status">
            <p>
              Invitation link, shown only now (single use): <code>{link}</code>
            </p>
            <CopyButton text={link} label="Copy invitation link" />
          </div>
        )}
        <Outcome
          error={create.isError ? problemText(create.error) : revoke.isError ? problemText(revoke.error) : undefined}
        />
        <Button type="submit" className="btn" isDisabled={create.isPending}>
          Create invitation
        </Button>
      </Form>
    </div>
  );
}
