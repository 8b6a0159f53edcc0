import { useMe, useSettings } from '../api/queries.js';
import { WEEKDAY_KEYS, WEEKDAYS } from '../time/zone.js';

/** What the calendar runs on (timezone, working hours), read-only here: issue 39 makes this page editable. */
export default function SettingsPage() {
  const settings = useSettings();
  const me = useMe();
  const s = settings.data;
  return (
    <div className="content-page">
      <h1>Settings</h1>
      {s && (
        <section className="card" aria-labelledby="settings-calendar">
          <h2 id="settings-calendar">Calendar</h2>
          <dl className="facts">
            <dt>Timezone</dt>
            <dd>{s.timezone}</dd>
            <dt>Planning provider</dt>
            <dd>{s.llm_provider_effective}</dd>
            <dt>Account</dt>
            <dd>{me.data?.email}</dd>
          </dl>
          <h3>Working hours</h3>
          <dl className="facts">
            {WEEKDAY_KEYS.map((key, i) => (
              <div key={key} className="fact-row">
                <dt>{WEEKDAYS[i]}</dt>
                <dd>{s.working_hours[key].map((w) => `${w.start}–${w.end}`).join(', ') || 'off'}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
    </div>
  );
}
