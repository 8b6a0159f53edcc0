import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, Checkbox, CheckboxGroup, Form, Label } from 'react-aria-components';
import { api, data, fieldErrors, problemText } from '../api/client.js';
import { keys, useSettings } from '../api/queries.js';
import { WEEKDAY_KEYS, WEEKDAYS } from '../time/zone.js';
import { Field } from '../ui/Field.js';
import { EmptyState, QueryView } from '../ui/states.js';
import { Outcome, Section } from './Section.js';

const dayName = (key: string) => WEEKDAYS[WEEKDAY_KEYS.indexOf(key as (typeof WEEKDAY_KEYS)[number])] ?? key;

/** Times plans never use (lunch, the school run): weekly windows here; removing one frees its time again. */
export function NoGoSection() {
  const settings = useSettings();
  const queryClient = useQueryClient();
  const [label, setLabel] = useState('');
  const [days, setDays] = useState<string[]>(['mon', 'tue', 'wed', 'thu', 'fri']);
  const [start, setStart] = useState('12:00');
  const [end, setEnd] = useState('13:00');
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: keys.settings });
    void queryClient.invalidateQueries({ queryKey: keys.events });
  };
  const add = useMutation({
    mutationFn: async () =>
      data(
        await api.POST('/api/v1/service/settings/no-go-windows', {
          body: {
            kind: 'weekly',
            days: days as (typeof WEEKDAY_KEYS)[number][],
            start,
            end,
            ...(label ? { label } : {}),
          },
        }),
      ),
    onSuccess: () => {
      setLabel('');
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: async (id: string) =>
      data(
        await api.DELETE('/api/v1/service/settings/no-go-windows/{window_id}', { params: { path: { window_id: id } } }),
      ),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <Section id="no-go" title="No-go windows">
      <QueryView query={settings} label="Loading no-go windows" rows={2}>
        {(s) =>
          s.no_go_windows.length === 0 ? (
            <EmptyState>No no-go windows: plans may use all of your working hours.</EmptyState>
          ) : (
            <ul className="task-list">
              {s.no_go_windows.map((w) => {
                const what =
                  w.kind === 'weekly'
                    ? `${w.days.map(dayName).join(', ')} ${w.start}–${w.end}`
                    : `${new Date(w.start_at).toLocaleString()} – ${new Date(w.end_at).toLocaleString()}`;
                const name = w.label ?? 'No-go window';
                return (
                  <li key={w.id} className="task-row static">
                    <span className="task-row-title">
                      {name} <span className="muted small">{what}</span>
                    </span>
                    <Button className="btn btn-small" aria-label={`Remove ${name}`} onPress={() => remove.mutate(w.id)}>
                      Remove
                    </Button>
                  </li>
                );
              })}
            </ul>
          )
        }
      </QueryView>
      <Form className="stack" onSubmit={submit} validationErrors={fieldErrors(add.error)}>
        <h3>Add a weekly no-go window</h3>
        <div className="row wrap">
          <Field label="Label" name="label" placeholder="Lunch" value={label} onChange={setLabel} />
          <Field label="Starts" name="start" placeholder="12:00" value={start} onChange={setStart} />
          <Field label="Ends" name="end" placeholder="13:00" value={end} onChange={setEnd} />
        </div>
        <CheckboxGroup className="field checks weekday-checks" value={days} onChange={setDays}>
          <Label>On</Label>
          {WEEKDAY_KEYS.map((key, i) => (
            <Checkbox key={key} value={key}>
              {WEEKDAYS[i]}
            </Checkbox>
          ))}
        </CheckboxGroup>
        <Outcome
          error={add.isError ? problemText(add.error) : remove.isError ? problemText(remove.error) : undefined}
        />
        <Button type="submit" className="btn" isDisabled={add.isPending}>
          Add no-go window
        </Button>
      </Form>
    </Section>
  );
}
