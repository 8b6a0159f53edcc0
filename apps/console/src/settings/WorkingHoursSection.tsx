import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api, data, fieldErrors, problemText } from '../api/client.js';
import { keys, type Settings, useSettings } from '../api/queries.js';
import { WEEKDAY_KEYS, WEEKDAYS } from '../time/zone.js';
import { QueryView } from '../ui/states.js';
import { Outcome, Section } from './Section.js';

type Hours = Settings['working_hours'];
type DayKey = (typeof WEEKDAY_KEYS)[number];

/** Working hours per weekday, several ranges a day (up to 6), wall-clock in the settings timezone. */
export function WorkingHoursSection() {
  const settings = useSettings();
  return (
    <Section id="working-hours" title="Working hours">
      <p className="muted">When plans may place your tasks, in {settings.data?.timezone ?? 'your timezone'}.</p>
      <QueryView query={settings} label="Loading working hours" rows={7}>
        {(s) => <HoursForm initial={s.working_hours} />}
      </QueryView>
    </Section>
  );
}

function HoursForm({ initial }: { initial: Hours }) {
  const queryClient = useQueryClient();
  const [hours, setHours] = useState<Hours>(initial);
  const save = useMutation({
    mutationFn: async (body: Hours) => data(await api.PUT('/api/v1/service/settings/working-hours', { body })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.settings });
      void queryClient.invalidateQueries({ queryKey: keys.events });
    },
  });
  const errors = fieldErrors(save.error);
  const change = (day: DayKey, ranges: Hours[DayKey]) => setHours((h) => ({ ...h, [day]: ranges }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(hours);
  };
  return (
    <Form className="stack" onSubmit={submit}>
      <table className="hours">
        <tbody>
          {WEEKDAY_KEYS.map((day, i) => {
            const name = WEEKDAYS[i] ?? day;
            const ranges = hours[day];
            return (
              <tr key={day}>
                <th scope="row">{name}</th>
                <td>
                  <div className="ranges">
                    {ranges.length === 0 && <span className="muted">off</span>}
                    {ranges.map((range, r) => {
                      const which = ranges.length > 1 ? ` ${r + 1}` : '';
                      const error = errors[`${day}.${r}.start`] ?? errors[`${day}.${r}.end`] ?? errors[`${day}.${r}`];
                      return (
                        <span key={r} className="range">
                          <input
                            className="time-input"
                            aria-label={`${name}${which} from`}
                            value={range.start}
                            placeholder="09:00"
                            aria-invalid={error ? true : undefined}
                            onChange={(e) =>
                              change(
                                day,
                                ranges.map((x, j) => (j === r ? { ...x, start: e.target.value } : x)),
                              )
                            }
                          />
                          –
                          <input
                            className="time-input"
                            aria-label={`${name}${which} to`}
                            value={range.end}
                            placeholder="17:00"
                            aria-invalid={error ? true : undefined}
                            onChange={(e) =>
                              change(
                                day,
                                ranges.map((x, j) => (j === r ? { ...x, end: e.target.value } : x)),
                              )
                            }
                          />
                          <Button
                            className="btn btn-small"
                            aria-label={`Remove ${name}${which}`}
                            onPress={() =>
                              change(
                                day,
                                ranges.filter((_, j) => j !== r),
                              )
                            }
                          >
                            ✕
                          </Button>
                          {error && <span className="field-error">{error}</span>}
                        </span>
                      );
                    })}
                    {ranges.length < 6 && (
                      <Button
                        className="btn btn-small btn-quiet"
                        aria-label={`Add a range on ${name}`}
                        onPress={() => change(day, [...ranges, { start: '09:00', end: '17:00' }])}
                      >
                        + range
                      </Button>
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <Outcome
        error={save.isError ? problemText(save.error) : undefined}
        saved={save.isSuccess ? 'Working hours saved: the next plan uses them.' : undefined}
      />
      <Button type="submit" className="btn btn-primary" isDisabled={save.isPending}>
        Save working hours
      </Button>
    </Form>
  );
}
