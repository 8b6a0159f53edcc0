import { useQuery } from '@tanstack/react-query';
import { api, data } from '../api/client.js';
import { Section } from '../settings/Section.js';
import { QueryView } from '../ui/states.js';
import { TableScroll } from '../ui/TableScroll.js';

const NAMES: Record<string, string> = {
  database: 'Database',
  cache: 'Cache',
  model_registry: 'Model registry',
  integrations: 'Calendar integrations',
  reminder_worker: 'Reminder worker',
  calendar_worker: 'Calendar worker',
  event_consumers: 'Event consumers',
};

/** Each component's status and probe latency, refreshed every 10 seconds while the page is open. */
export function HealthSection() {
  const health = useQuery({
    queryKey: ['admin', 'health'],
    queryFn: async () => data(await api.GET('/api/v1/service/admin/health')),
    refetchInterval: 10_000,
  });
  return (
    <Section id="health" title="Health">
      <QueryView query={health} label="Loading health" rows={6}>
        {(h) => (
          <>
            <p role="status">
              Overall: <strong>{h.status}</strong>{' '}
              <span className="muted small">(checked {new Date(health.dataUpdatedAt).toLocaleTimeString()})</span>
            </p>
            <TableScroll label="Components">
              <table className="attempts">
                <caption className="sr-only">Components</caption>
                <thead>
                  <tr>
                    <th scope="col">Component</th>
                    <th scope="col">Status</th>
                    <th scope="col">Latency</th>
                    <th scope="col">Detail</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(h.components).map(([name, c]) => (
                    <tr key={name} data-status={c.status}>
                      <th scope="row">{NAMES[name] ?? name}</th>
                      <td>{c.status}</td>
                      <td>{c.latency_ms === undefined ? '' : `${Math.round(c.latency_ms)} ms`}</td>
                      <td>{c.detail ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          </>
        )}
      </QueryView>
    </Section>
  );
}
