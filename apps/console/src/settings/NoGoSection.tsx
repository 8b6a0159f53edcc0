import type { Schemas } from '@routinely/api-client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { Button, Checkbox, CheckboxGroup, Form, Label } from 'react-aria-components';
import { api, data, fieldErrors, problemText } from '../api/client.js';
import { keys, useSettings } from '../api/queries.js';
import { WEEKDAY_KEYS, WEEKDAYS } from '../time/zone.js';
import { Field } from '../ui/Field.js';
import { EmptyState, QueryView } from '../ui/states.js';
import { Outcome, Section } from './Section.js';

type WeeklyWindow = Extract<Schemas['NoGoWindow'], { kind: 'weekly' }>;
const WORKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri'];

const dayName = (key: string) => WEEKDAYS[WEEKDAY_KEYS.indexOf(key as (typeof WEEKDAY_KEYS)[number])] ?? key;

/**
 * Times plans never use (lunch, the school run): weekly windows here; removing one frees its time again. The API
 * has no update of a window, so an edit adds the changed window and then removes the old one (a refused change
 * leaves the old window as it was).
 */
export function NoGoSection() {
  const settings = useSettings();
  const queryClient = useQueryClient();
  const labelField = useRef<HTMLInputElement>(null);
  const [editing, setEditing] = useState<WeeklyWindow | undefined>();
  const [label, setLabel] = useState('');
  const [days, setDays] = useState<string[]>(WORKDAYS);
  const [start, setStart] = useState('12:00');
  const [end, setEnd] = useState('13:00');
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: keys.settings });
    void queryClient.invalidateQueries({ queryKey: keys.events });
  };
  /** The form for a window to edit (focus moves to it), or back to adding one. */
  const fill = (w: WeeklyWindow | undefined) => {
    setEditing(w);
    setLabel(w?.label ?? '');
    setDays(w?.days ?? WORKDAYS);
    setStart(w?.start ?? '12:00');
    setEnd(w?.end ?? '13:00');
    if (w) labelField.current?.focus();
  };
  const add = useMutation({
    mutationFn: async () => {
      const added = data(
        await api.POST('/api/v1/service/settings/no-go-windows', {
          body: {
            kind: 'weekly',
            days: days as (typeof WEEKDAY_KEYS)[number][],
            start,
            end,
            ...(label ? { label } : {}),
          },
        }),
      );
      if (editing) await removeWindow(editing.id);
      return added;
    },
    onSuccess: () => {
      fill(undefined);
      refresh();
    },
  });
  const remove = useMutation({ mutationFn: removeWindow, onSuccess: refresh });
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
                    <span className="btn-pair">
                      {w.kind === 'weekly' && (
                        <Button
                          className="btn btn-small"
                          aria-label={`Edit ${name}`}
                          data-edit={w.id}
                          onPress={() => fill(w)}
                        >
                          Edit
                        </Button>
                      )}
                      <Button
                        className="btn btn-small"
                        aria-label={`Remove ${name}`}
                        onPress={() => remove.mutate(w.id)}
                      >
                        Remove
                      </Button>
                    </span>
                  </li>
                );
              })}
            </ul>
          )
        }
      </QueryView>
      <Form className="stack" onSubmit={submit} validationErrors={fieldErrors(add.error)}>
        <h3>{editing ? `Edit ${editing.label ?? 'no-go window'}` : 'Add a weekly no-go window'}</h3>
        <div className="row wrap">
          <Field
            label="Label"
            name="label"
            placeholder="Lunch"
            value={label}
            onChange={setLabel}
            inputRef={labelField}
          />
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
        <div className="row">
          <Button type="submit" className="btn" isDisabled={add.isPending}>
            {editing ? 'Save no-go window' : 'Add no-go window'}
          </Button>
          {editing && (
            <Button
              className="btn btn-quiet"
              onPress={() => {
                // Back to the Edit button this started from (Cancel itself goes away).
                document.querySelector<HTMLElement>(`[data-edit="${editing.id}"]`)?.focus();
                fill(undefined);
              }}
            >
              Cancel
            </Button>
          )}
        </div>
      </Form>
    </Section>
  );
}

async function removeWindow(id: string): Promise<void> {
  const result = await api.DELETE('/api/v1/service/settings/no-go-windows/{window_id}', {
    params: { path: { window_id: id } },
  });
  if (!result.response.ok) data(result);
}
