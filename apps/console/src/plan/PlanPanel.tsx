import { useEffect, useState } from 'react';
import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from 'react-aria-components';
import type { Temporal } from 'temporal-polyfill';
import { type Settings, type Task, useCost, useProviders } from '../api/queries.js';
import { reasonText, slotNameOf } from '../calendar/names.js';
import { dayStart } from '../time/zone.js';
import type { Provider, usePlan } from './use-plan.js';

const PROVIDER_LABEL: Record<string, string> = { builtin: 'Built-in solver', openai: 'OpenAI', anthropic: 'Anthropic' };
const usd = (n: number) => `$${n.toFixed(2)}`;

/**
 * The Plan my week panel: provider, today's spend against the caps, the proposal (ghost blocks on the grid with
 * the rationale in the list), Apply and Discard.
 */
export default function PlanPanel({
  plan,
  days,
  timeZone,
  settings,
  unscheduled,
  titles,
  onClose,
}: {
  plan: ReturnType<typeof usePlan>;
  days: Temporal.PlainDate[];
  timeZone: string;
  settings: Settings;
  unscheduled: Task[];
  titles: Map<string, Task>;
  onClose(): void;
}) {
  const providers = useProviders(true);
  const cost = useCost(true);
  const [provider, setProvider] = useState<Provider>(settings.llm_provider_effective);
  const first = days[0];
  const last = days[days.length - 1];
  const weekStart = first ? dayStart(first, timeZone).epochMilliseconds : 0;
  const weekEnd = last ? dayStart(last.add({ days: 1 }), timeZone).epochMilliseconds : 0;
  const windowStart = Math.max(weekStart, Date.now() + 60_000);
  const over = windowStart >= weekEnd;

  const start = (chosen: Provider) => {
    if (over || unscheduled.length === 0) return;
    plan.run.mutate({
      taskIds: unscheduled.map((t) => t.id),
      provider: chosen,
      windowStart: new Date(windowStart).toISOString(),
      windowEnd: new Date(weekEnd).toISOString(),
    });
  };
  // Opening the panel plans the week with the provider the settings choose.
  useEffect(() => start(provider), [weekStart]);

  const proposal = plan.proposal;
  const available = (providers.data ?? []).filter((p) => p.available);
  const c = cost.data;
  return (
    <aside className="plan-panel" aria-labelledby="plan-title">
      <div className="plan-head">
        <h2 id="plan-title">Plan my week</h2>
        <Button className="btn btn-icon" aria-label="Close plan" onPress={onClose}>
          ×
        </Button>
      </div>
      <Select
        className="field"
        selectedKey={provider}
        onSelectionChange={(key) => {
          const next = String(key) as Provider;
          setProvider(next);
          start(next);
        }}
      >
        <Label>Provider</Label>
        <Button className="select-button">
          <SelectValue />
          <span aria-hidden="true">▾</span>
        </Button>
        <Popover className="popover">
          <ListBox className="listbox">
            {(available.length ? available : [{ name: provider, model: '', available: true }]).map((p) => (
              <ListBoxItem key={p.name} id={p.name} className="listbox-item">
                {PROVIDER_LABEL[p.name] ?? p.name}
              </ListBoxItem>
            ))}
          </ListBox>
        </Popover>
      </Select>
      {c && (
        <p className="muted small">
          Model spend today {usd(c.daily_usd)} · soft cap {usd(c.soft)} · hard cap {usd(c.hard)}
          {c.breached === 'hard' && ' · the hard cap is reached: model runs are refused until tomorrow'}
          {c.breached === 'soft' && ' · over the soft cap'}
        </p>
      )}
      {over && <p className="notice">This week is over: there is nothing left to plan in it.</p>}
      {!over && unscheduled.length === 0 && (
        <p className="notice">Nothing to plan: every task with a duration has a slot.</p>
      )}
      {plan.run.isPending && (
        <p className="muted" role="status">
          Planning…
        </p>
      )}
      {plan.error && (
        <p className="notice notice-error" role="alert">
          {plan.error}
        </p>
      )}
      {proposal && (
        <>
          <p role="status">
            {proposal.decisions.length === 1 ? '1 block proposed' : `${proposal.decisions.length} blocks proposed`}
            {proposal.costUsd > 0 && ` (cost ${usd(proposal.costUsd)})`}
          </p>
          <ul className="proposal">
            {proposal.decisions.map((d) => (
              <li key={d.id}>
                <p className="proposal-name">
                  {slotNameOf(titles.get(d.task_id)?.title ?? 'Task', d.chosen_slot_start, d.chosen_slot_end, timeZone)}
                </p>
                <p className="muted small">{d.rationale}</p>
              </li>
            ))}
            {proposal.unscheduled.map((u) => (
              <li key={u.task_id} className="not-placed">
                <p className="proposal-name">{titles.get(u.task_id)?.title ?? 'Task'}: not placed</p>
                <p className="muted small">Because {reasonText(u.reason)}.</p>
              </li>
            ))}
          </ul>
        </>
      )}
      <div className="row">
        <Button
          className="btn btn-primary"
          isDisabled={!proposal || proposal.decisions.length === 0 || plan.apply.isPending}
          onPress={() => proposal && plan.apply.mutate(proposal.decisions, { onSuccess: onClose })}
        >
          Apply
        </Button>
        <Button className="btn" onPress={onClose}>
          Discard
        </Button>
      </div>
    </aside>
  );
}
