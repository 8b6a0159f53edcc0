import { useEffect } from 'react';
import { createPortal } from 'react-dom';
import type { CalendarEvent, Decision, Task } from '../api/queries.js';
import { providerName, slotNameOf } from './names.js';

export interface TipTarget {
  id: string;
  element: HTMLElement;
}

const PRIORITY = ['', 'Priority 1 (highest)', 'Priority 2', 'Priority 3', 'Priority 4', 'Priority 5 (lowest)'];

/** Whether a decision still explains a block: the block sits in the decision's slot. */
export function explains(decision: Decision | undefined, event: CalendarEvent): decision is Decision {
  return (
    !!decision &&
    Date.parse(decision.chosen_slot_start) === Date.parse(event.start) &&
    Date.parse(decision.chosen_slot_end) === Date.parse(event.end)
  );
}

/**
 * The tip of the hovered or focused block: its time, priority, state and, for a block the engine placed, the
 * decision's rationale; for an external event its provider (read-only). One element for the whole grid, tied
 * to the block by aria-describedby while shown.
 */
export function BlockTip({
  tip,
  event,
  rationale,
  task,
  timeZone,
}: {
  tip: TipTarget;
  event: CalendarEvent;
  rationale: string | undefined;
  task: Task | undefined;
  timeZone: string;
}) {
  useEffect(() => {
    tip.element.setAttribute('aria-describedby', 'block-tip');
    return () => tip.element.removeAttribute('aria-describedby');
  }, [tip.element]);
  // Drawn outside the grid (a tooltip is no cell of it) but inside the main landmark, under the block, kept
  // inside the window.
  const rect = tip.element.getBoundingClientRect();
  const top = rect.bottom + 6 + 140 > window.innerHeight ? rect.top - 6 - 140 : rect.bottom + 6;
  const left = Math.max(8, Math.min(rect.left, window.innerWidth - 268));
  const lines: string[] = [];
  if (event.source !== 'task') lines.push(`${providerName(event)} · read-only`);
  if (event.status === 'proposed') lines.push('Proposed by Plan my week');
  if (task) lines.push(PRIORITY[task.priority] ?? `Priority ${task.priority}`);
  if (event.status === 'done') lines.push('Done');
  if (event.status === 'skipped') lines.push('Skipped');
  return createPortal(
    <div id="block-tip" role="tooltip" className="block-tip" style={{ top: `${top}px`, left: `${left}px` }}>
      <p className="tip-title">{slotNameOf(event.title, event.start, event.end, timeZone)}</p>
      {lines.length > 0 && <p className="tip-meta">{lines.join(' · ')}</p>}
      {rationale && (
        <p className="tip-why">
          <span>Why here: </span>
          {rationale}
        </p>
      )}
    </div>,
    document.getElementById('main') ?? document.body,
  );
}
