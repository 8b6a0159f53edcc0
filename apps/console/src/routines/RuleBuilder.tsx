import { useId } from 'react';
import { Checkbox, CheckboxGroup, Input, Label, NumberField } from 'react-aria-components';
import { BYDAY, type ByDay, dayName, NTH, REPEATS, type RuleShape } from './rrule.js';

/** The rule builder's fields: "Repeats" and what the chosen shape needs (days, interval, day of the month). */
export function RuleBuilder({ shape, onChange }: { shape: RuleShape; onChange(patch: Partial<RuleShape>): void }) {
  const ids = { repeats: useId(), nth: useId(), weekday: useId() };
  const weekly = shape.repeats === 'weekly' || shape.repeats === 'every_n_weeks';
  return (
    <>
      <div className="field">
        <label htmlFor={ids.repeats}>Repeats</label>
        <select
          id={ids.repeats}
          className="select"
          value={shape.repeats}
          onChange={(e) => onChange({ repeats: e.target.value as RuleShape['repeats'] })}
        >
          {REPEATS.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
        </select>
      </div>
      {shape.repeats === 'every_n_weeks' && (
        <NumberField
          className="field"
          minValue={2}
          maxValue={52}
          value={shape.interval}
          onChange={(interval) => onChange({ interval })}
        >
          <Label>Every how many weeks</Label>
          <Input />
        </NumberField>
      )}
      {weekly && (
        <CheckboxGroup
          className="field checks weekday-checks"
          value={shape.days}
          onChange={(days) => onChange({ days: days as ByDay[] })}
          isRequired
        >
          <Label>On days</Label>
          {BYDAY.map((d) => (
            <Checkbox key={d} value={d}>
              {dayName(d)}
            </Checkbox>
          ))}
        </CheckboxGroup>
      )}
      {shape.repeats === 'monthly_day' && (
        <NumberField
          className="field"
          minValue={1}
          maxValue={31}
          value={shape.monthDay}
          onChange={(monthDay) => onChange({ monthDay })}
        >
          <Label>Day of the month</Label>
          <Input />
        </NumberField>
      )}
      {shape.repeats === 'monthly_nth' && (
        <div className="row">
          <div className="field">
            <label htmlFor={ids.nth}>Which</label>
            <select
              id={ids.nth}
              className="select"
              value={shape.nth}
              onChange={(e) => onChange({ nth: Number(e.target.value) })}
            >
              {NTH.map((n) => (
                <option key={n.value} value={n.value}>
                  {n.label}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.weekday}>Weekday</label>
            <select
              id={ids.weekday}
              className="select"
              value={shape.weekday}
              onChange={(e) => onChange({ weekday: e.target.value as ByDay })}
            >
              {BYDAY.map((d) => (
                <option key={d} value={d}>
                  {dayName(d)}
                </option>
              ))}
            </select>
          </div>
        </div>
      )}
    </>
  );
}
