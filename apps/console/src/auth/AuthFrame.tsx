import type { ReactNode } from 'react';

/** The calm, centred card of the sign-in and registration screens. */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth">
      <div className="auth-card">
        <div className="brand" aria-hidden="true">
          <span className="brand-mark" />
          Routinely
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
