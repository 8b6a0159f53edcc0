import type { ReactNode } from 'react';

/**
 * A wide table's own horizontal scroll, so a phone's page does not get wider than the screen. It is focusable
 * (a keyboard scrolls it with the arrows) and named like its table.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
    <section className="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
