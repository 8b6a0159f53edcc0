import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import { useTiles } from '../api/queries.js';
import { QueryView } from '../ui/states.js';
import { HealthSection } from './HealthSection.js';
import { QuotasSection } from './QuotasSection.js';
import { RegistrationSection } from './RegistrationSection.js';
import { TenantModelSection } from './TenantModelSection.js';

const SECTIONS = [
  { id: 'registration', title: 'Registration and invites', tile: 'admin' },
  { id: 'quotas', title: 'Quotas', tile: 'quotas' },
  { id: 'tenant', title: 'Tenant model', tile: 'tenant_settings' },
  { id: 'health', title: 'Health', tile: 'health' },
];

/**
 * The tenant administration, shown only to a user whose tiles include "admin" (the API decides); anyone else
 * gets "Not allowed". Each section shows when its tile does; `/admin/<section>` opens the page there.
 */
export default function AdminPage() {
  const tiles = useTiles();
  const { '*': section } = useParams();
  useEffect(() => {
    if (section && tiles.data) document.getElementById(`section-${section}`)?.scrollIntoView();
  }, [section, tiles.data]);
  return (
    <div className="content-page">
      <QueryView query={tiles} label="Loading administration">
        {(list) => {
          const admin = list.find((t) => t.id === 'admin');
          if (!admin) return <NotAllowed />;
          const shown = new Set(['admin', ...admin.children.map((c) => c.id)]);
          const sections = SECTIONS.filter((s) => shown.has(s.tile));
          return (
            <>
              <h1>Admin</h1>
              <nav aria-label="Admin sections" className="section-nav">
                {sections.map((s) => (
                  <Link key={s.id} to={`/admin/${s.id}`}>
                    {s.title}
                  </Link>
                ))}
              </nav>
              <RegistrationSection />
              {shown.has('quotas') && <QuotasSection />}
              {shown.has('tenant_settings') && <TenantModelSection />}
              {shown.has('health') && <HealthSection />}
            </>
          );
        }}
      </QueryView>
    </div>
  );
}

function NotAllowed() {
  return (
    <>
      <h1>Not allowed</h1>
      <p>Administration is for the tenant's administrators; your account does not have that right.</p>
    </>
  );
}
