import type { Schemas } from '@routinely/api-client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, Checkbox, CheckboxGroup, Form, Label } from 'react-aria-components';
import { api, data, fieldErrors, problemText } from '../api/client.js';
import { keys, useWebhooks } from '../api/queries.js';
import { CopyButton } from '../ui/CopyButton.js';
import { Field } from '../ui/Field.js';
import { EmptyState, QueryView } from '../ui/states.js';
import { TableScroll } from '../ui/TableScroll.js';
import { Outcome, Section } from './Section.js';

type Endpoint = Schemas['WebhookEndpoint'];
type EventName = Endpoint['events'][number];
const EVENTS: { name: EventName; label: string }[] = [
  { name: 'reminder.fired', label: 'Reminders (reminder.fired)' },
  { name: 'webhook.test', label: 'Test sends (webhook.test)' },
];

/** Endpoints: create (secret shown once), filters, enable/disable, a test send, each try; dead letters. */
export function WebhooksSection() {
  const webhooks = useWebhooks();
  return (
    <Section id="webhooks" title="Webhooks">
      <QueryView query={webhooks} label="Loading webhook endpoints" rows={2}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState>No webhook endpoints: reminders go by email and in the app only.</EmptyState>
          ) : (
            <ul className="endpoint-list">
              {list.map((e) => (
                <EndpointItem key={e.id} endpoint={e} />
              ))}
            </ul>
          )
        }
      </QueryView>
      <NewEndpoint />
      <DeadLetters />
    </Section>
  );
}

function NewEndpoint() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(EVENTS.map((e) => e.name));
  const create = useMutation({
    mutationFn: async () =>
      data(await api.POST('/api/v1/service/webhooks', { body: { name, url, events: events as EventName[] } })),
    onSuccess: () => {
      setName('');
      setUrl('');
      void queryClient.invalidateQueries({ queryKey: keys.webhooks });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Form className="stack" onSubmit={submit} validationErrors={fieldErrors(create.error)}>
      <h3>Add an endpoint</h3>
      <div className="grid-2">
        <Field label="Endpoint name" name="name" isRequired value={name} onChange={setName} />
        <Field label="Endpoint URL" name="url" isRequired placeholder="https://" value={url} onChange={setUrl} />
      </div>
      <CheckboxGroup className="field checks" value={events} onChange={setEvents}>
        <Label>Send</Label>
        {EVENTS.map((e) => (
          <Checkbox key={e.name} value={e.name}>
            {e.label}
          </Checkbox>
        ))}
      </CheckboxGroup>
      {create.data && (
        <div className="secret" role="status">
          <p>
            Signing secret of {create.data.name}, shown only now: <code>{create.data.secret}</code>
          </p>
          <CopyButton text={create.data.secret} label="Copy secret" />
          <p className="muted small">
            Verify each request: <code>X-Service-Signature: t=…,v1=…</code> where v1 is the hex HMAC-SHA256 of “t.”
            followed by the raw body, keyed with this secret; refuse a t older than 5 minutes (the webhook guide,
            docs/webhooks.md, has receivers in several languages).
          </p>
        </div>
      )}
      <Outcome error={create.isError ? problemText(create.error) : undefined} />
      <Button type="submit" className="btn" isDisabled={create.isPending}>
        Add endpoint
      </Button>
    </Form>
  );
}

function EndpointItem({ endpoint }: { endpoint: Endpoint }) {
  const queryClient = useQueryClient();
  const [events, setEvents] = useState<string[]>(endpoint.events);
  const [showAttempts, setShowAttempts] = useState(false);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.webhooks });
  const patch = useMutation({
    mutationFn: async (body: Schemas['WebhookEndpointPatch']) =>
      data(
        await api.PATCH('/api/v1/service/webhooks/{endpoint_id}', {
          params: { path: { endpoint_id: endpoint.id } },
          body,
        }),
      ),
    onSuccess: refresh,
  });
  const test = useMutation({
    mutationFn: async () =>
      data(
        await api.POST('/api/v1/service/webhooks/{endpoint_id}/test', {
          params: { path: { endpoint_id: endpoint.id } },
        }),
      ),
    onSuccess: () => {
      setShowAttempts(true);
      void queryClient.invalidateQueries({ queryKey: keys.webhookAttempts(endpoint.id) });
    },
  });
  const result = test.data;
  const failure = patch.error ?? test.error;
  return (
    <li className="card endpoint" aria-label={`Endpoint ${endpoint.name}`}>
      <div className="task-row static">
        <span className="task-row-title">
          {endpoint.name} <span className="muted small">{endpoint.url}</span>
        </span>
        <span className="status">{endpoint.enabled ? 'enabled' : 'disabled'}</span>
      </div>
      <p className="muted small">
        Secret {endpoint.secret_preview}
        {endpoint.consecutive_failures > 0 ? ` · ${endpoint.consecutive_failures} failures in a row` : ''}
      </p>
      <CheckboxGroup className="field checks" value={events} onChange={setEvents}>
        <Label>Event filters of {endpoint.name}</Label>
        {EVENTS.map((e) => (
          <Checkbox key={e.name} value={e.name}>
            {e.label}
          </Checkbox>
        ))}
      </CheckboxGroup>
      <div className="row wrap">
        <Button className="btn btn-small" onPress={() => patch.mutate({ events: events as EventName[] })}>
          Save filters
        </Button>
        <Button className="btn btn-small" onPress={() => patch.mutate({ enabled: !endpoint.enabled })}>
          {endpoint.enabled ? 'Disable' : 'Enable'}
        </Button>
        <Button className="btn btn-small" onPress={() => test.mutate()} isDisabled={test.isPending}>
          Send test
        </Button>
        <Button
          className="btn btn-small btn-quiet"
          aria-expanded={showAttempts}
          onPress={() => setShowAttempts((v) => !v)}
        >
          Attempts
        </Button>
      </div>
      <Outcome
        error={failure ? problemText(failure) : undefined}
        saved={
          result
            ? `Test ${result.ok ? 'delivered' : 'failed'}: HTTP ${result.status_code} in ${result.latency_ms} ms${
                result.response_preview ? `, answered “${result.response_preview.slice(0, 120)}”` : ''
              }${result.error ? ` (${result.error})` : ''}`
            : undefined
        }
      />
      {showAttempts && <Attempts endpoint={endpoint} />}
    </li>
  );
}

function Attempts({ endpoint }: { endpoint: Endpoint }) {
  const attempts = useQuery({
    queryKey: keys.webhookAttempts(endpoint.id),
    queryFn: async () =>
      data(
        await api.GET('/api/v1/service/webhooks/{endpoint_id}/attempts', {
          params: { path: { endpoint_id: endpoint.id }, query: { limit: 20 } },
        }),
      ).items,
  });
  return (
    <QueryView query={attempts} label="Loading attempts" rows={2}>
      {(items) =>
        items.length === 0 ? (
          <EmptyState>No tries yet.</EmptyState>
        ) : (
          <TableScroll label={`Attempts to ${endpoint.name}`}>
            <table className="attempts">
              <caption className="sr-only">Attempts to {endpoint.name}</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">Try</th>
                  <th scope="col">Status</th>
                  <th scope="col">Latency</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {items.map((a) => (
                  <tr key={a.id}>
                    <td>{new Date(a.at).toLocaleString()}</td>
                    <td>{a.event}</td>
                    <td>{a.attempt}</td>
                    <td>{a.status_code ?? 'no answer'}</td>
                    <td>{a.latency_ms} ms</td>
                    <td>{a.error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )
      }
    </QueryView>
  );
}

function DeadLetters() {
  const queryClient = useQueryClient();
  const endpoints = useWebhooks();
  /** "the webhook to My receiver" (an email or in-app delivery has no endpoint). */
  const what = (letter: { channel: string; endpoint_id: string | null }) => {
    const endpoint = endpoints.data?.find((e) => e.id === letter.endpoint_id);
    return endpoint ? `the ${letter.channel} to ${endpoint.name}` : `the ${letter.channel} delivery`;
  };
  const letters = useQuery({
    queryKey: keys.deadLetters,
    queryFn: async () =>
      data(await api.GET('/api/v1/service/reminders/dlq', { params: { query: { limit: 50 } } })).items,
  });
  const requeue = useMutation({
    mutationFn: async (id: string) =>
      data(await api.POST('/api/v1/service/reminders/dlq/{dlq_id}/requeue', { params: { path: { dlq_id: id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.deadLetters }),
  });
  return (
    <section className="stack" aria-labelledby="dead-letters">
      <h3 id="dead-letters">Dead letters</h3>
      <QueryView query={letters} label="Loading dead letters" rows={1}>
        {(items) =>
          items.length === 0 ? (
            <EmptyState>No dead letters: every delivery got through or is still being tried.</EmptyState>
          ) : (
            <ul className="task-list">
              {items.map((d) => {
                const at = new Date(d.created_at).toLocaleString();
                return (
                  <li key={d.id} className="task-row static">
                    <span className="task-row-title">
                      {what(d)} · {d.reason}{' '}
                      <span className="muted small">
                        {d.attempts} tries, last status {d.last_status_code ?? 'none'}, {at}
                      </span>
                    </span>
                    <Button
                      className="btn btn-small"
                      aria-label={`Requeue ${what(d)} of ${at}`}
                      onPress={() => requeue.mutate(d.id)}
                      isDisabled={requeue.isPending}
                    >
                      Requeue
                    </Button>
                  </li>
                );
              })}
            </ul>
          )
        }
      </QueryView>
      <Outcome
        error={requeue.isError ? problemText(requeue.error) : undefined}
        saved={requeue.isSuccess ? 'Sent again as a new delivery.' : undefined}
      />
    </section>
  );
}
