import type { ReactNode } from 'react';

/** A settings section: a card whose heading names it (`/settings/<id>` scrolls to it). */
export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section id={`section-${id}`} className="card settings-section" aria-labelledby={`heading-${id}`}>
      <h2 id={`heading-${id}`}>{title}</h2>
      {children}
    </section>
  );
}

/** The answer to a write, in words, where the section shows it. */
export function Outcome({ error, saved }: { error?: string | undefined; saved?: string | undefined }) {
  if (error) {
    return (
      <p className="notice notice-error" role="alert">
        {error}
      </p>
    );
  }
  return saved ? (
    <p className="notice" role="status">
      {saved}
    </p>
  ) : null;
}
