import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { api, data, problemText } from '../api/client.js';
import { keys, useProviders, useSettings } from '../api/queries.js';
import { QueryView } from '../ui/states.js';
import { Outcome, Section } from './Section.js';

const usd = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;

/** The planning model (the tenant's lock shown) and spend: today, this month by day, against the caps. */
export function ModelSection() {
  const settings = useSettings();
  const providers = useProviders(true);
  const queryClient = useQueryClient();
  const selectId = useId();
  const spend = useQuery({
    queryKey: keys.usage,
    queryFn: async () => {
      const [today, month, quota] = await Promise.all([
        api.GET('/api/v1/service/llm/usage/today'),
        api.GET('/api/v1/service/llm/usage/monthly'),
        api.GET('/api/v1/service/quota/me'),
      ]);
      return { today: data(today), month: data(month), quota: data(quota) };
    },
  });
  const choose = useMutation({
    mutationFn: async (provider: 'builtin' | 'openai' | 'anthropic') =>
      data(await api.PATCH('/api/v1/service/settings/me', { body: { llm_provider_default: provider } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.settings }),
  });
  const s = settings.data;
  const locked = s && s.llm_provider_effective !== s.llm_provider_default;
  return (
    <Section id="model" title="Model and spend">
      <QueryView query={settings} label="Loading the model settings" rows={1}>
        {(current) => (
          <div className="field">
            <label htmlFor={selectId}>Planning model provider</label>
            <select
              id={selectId}
              className="select"
              value={current.llm_provider_default}
              onChange={(e) => choose.mutate(e.target.value as 'builtin' | 'openai' | 'anthropic')}
            >
              {(providers.data ?? [{ name: current.llm_provider_default, model: '', available: true }]).map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name}
                  {p.model ? ` (${p.model})` : ''}
                  {p.available ? '' : ', not available'}
                </option>
              ))}
            </select>
          </div>
        )}
      </QueryView>
      {locked && (
        <p className="notice" role="status">
          Your tenant's administrator has locked the provider: plans use {s?.llm_provider_effective}.
        </p>
      )}
      <Outcome error={choose.isError ? problemText(choose.error) : undefined} />
      <QueryView query={spend} label="Loading spend" rows={3}>
        {({ today, month, quota }) => {
          const max = Math.max(quota.hard_cap_usd, ...month.days.map((d) => d.cost_usd), 0.0001);
          // A row per day with spend: a month of $0 rows said nothing and took a phone's screen several times.
          const spent = month.days.filter((d) => d.cost_usd > 0);
          return (
            <div className="stack">
              <p>
                Today {usd(today.total_usd)} of a {usd(quota.soft_cap_usd)} soft cap and {usd(quota.hard_cap_usd)} hard
                cap ({today.calls} model {today.calls === 1 ? 'call' : 'calls'}). This month {usd(month.total_usd)}.
              </p>
              {spent.length === 0 ? (
                <p className="muted">No model spend in {month.month} yet.</p>
              ) : (
                <table className="spend-chart">
                  <caption>
                    Spend per day in {month.month}, each bar against the {usd(quota.hard_cap_usd)} daily hard cap (days
                    without spend left out)
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      <th scope="col">Spend</th>
                    </tr>
                  </thead>
                  <tbody>
                    {spent.map((d) => (
                      <tr key={d.date}>
                        <th scope="row">{d.date.slice(8)}</th>
                        <td>
                          <span className="bar" style={{ width: `${(d.cost_usd / max) * 100}%` }} aria-hidden="true" />
                          <span className="bar-value">{usd(d.cost_usd)}</span>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
          );
        }}
      </QueryView>
    </Section>
  );
}
