import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import { CalendarsSection, FeedSection } from './CalendarsSection.js';
import { ModelSection } from './ModelSection.js';
import { NoGoSection } from './NoGoSection.js';
import { ProfileSection } from './ProfileSection.js';
import { SecuritySection } from './SecuritySection.js';
import { WebhooksSection } from './WebhooksSection.js';
import { WorkingHoursSection } from './WorkingHoursSection.js';

const SECTIONS = [
  { id: 'profile', title: 'Profile' },
  { id: 'working-hours', title: 'Working hours' },
  { id: 'no-go', title: 'No-go windows' },
  { id: 'calendars', title: 'Calendars' },
  { id: 'feed', title: 'Calendar feed' },
  { id: 'webhooks', title: 'Webhooks' },
  { id: 'security', title: 'Security' },
  { id: 'model', title: 'Model and spend' },
];

/**
 * Every setting on one page, a section each (its heading is its name); `/settings/<section>` opens the page
 * at that section (`/settings/calendars` is where a calendar connection returns).
 */
export default function SettingsPage() {
  const { '*': section } = useParams();
  useEffect(() => {
    if (section) document.getElementById(`section-${section}`)?.scrollIntoView();
  }, [section]);
  return (
    <div className="content-page settings">
      <h1>Settings</h1>
      <nav aria-label="Settings sections" className="section-nav">
        {SECTIONS.map((s) => (
          <Link key={s.id} to={`/settings/${s.id}`}>
            {s.title}
          </Link>
        ))}
      </nav>
      <ProfileSection />
      <WorkingHoursSection />
      <NoGoSection />
      <CalendarsSection />
      <FeedSection />
      <WebhooksSection />
      <SecuritySection />
      <ModelSection />
    </div>
  );
}
