import type { EventSource, UnifiedEvent } from './unified.js';

interface BusySource {
  source: EventSource;
  id: string;
  title: string;
}

export interface BusyBlock {
  start: Date;
  end: Date;
  /** The one source of every event in the block, or `mixed` when several kinds made it busy. */
  source: EventSource | 'mixed';
  sources: BusySource[];
}

/**
 * Merges the busy events into blocks with one sweep over the intervals sorted by start: an interval that
 * starts before the open block ends extends it; one that starts at or after its end opens the next block
 * (blocks that only touch stay apart, each keeping its own sources). Intervals are clipped to the window.
 */
export function mergeBusy(events: readonly UnifiedEvent[], window: { from: Date; to: Date }): BusyBlock[] {
  const intervals = events
    .filter((e) => e.busy)
    .map((e) => ({
      start: new Date(Math.max(e.start.getTime(), window.from.getTime())),
      end: new Date(Math.min(e.end.getTime(), window.to.getTime())),
      event: e,
    }))
    .filter((i) => i.end > i.start)
    .sort((a, b) => a.start.getTime() - b.start.getTime() || a.end.getTime() - b.end.getTime());
  const blocks: BusyBlock[] = [];
  let open: BusyBlock | undefined;
  for (const interval of intervals) {
    const named: BusySource = { source: interval.event.source, id: interval.event.id, title: interval.event.title };
    if (open && interval.start < open.end) {
      if (interval.end > open.end) open.end = interval.end;
      open.sources.push(named);
      if (open.source !== named.source) open.source = 'mixed';
      continue;
    }
    open = { start: interval.start, end: interval.end, source: named.source, sources: [named] };
    blocks.push(open);
  }
  return blocks;
}
