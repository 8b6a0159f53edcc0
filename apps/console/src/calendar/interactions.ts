import {
  type FocusEvent,
  type KeyboardEvent,
  type MouseEvent,
  type PointerEvent,
  type RefObject,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { Temporal } from 'temporal-polyfill';
import type { CalendarEvent, Task } from '../api/queries.js';
import { instantAt, MINUTES_PER_DAY, STEP_MIN, zoned } from '../time/zone.js';
import type { TipTarget } from './BlockTip.js';
import { layoutDays, type Segment } from './layout.js';
import type { SlotChange } from './moves.js';
import { slotNameOf } from './names.js';

/** Height of one hour in the grid, in CSS pixels. */
export const HOUR_PX = 48;
const STEP_MS = STEP_MIN * 60_000;
/** A press that moves less than this is a click (opens the task), not a drag. */
const DRAG_THRESHOLD_PX = 4;
/** The bottom edge of a block, in pixels, that resizes instead of moving. */
const RESIZE_EDGE_PX = 8;

/** A block on its way somewhere: where it would land, not yet saved. */
export interface Pending {
  event: CalendarEvent;
  start: string;
  end: string;
  mode: 'move' | 'resize' | 'key' | 'place';
}

interface Options {
  days: Temporal.PlainDate[];
  events: CalendarEvent[];
  timeZone: string;
  placing: Task | undefined;
  onPlaced(): void;
  onChange(change: SlotChange): void;
  onOpen(taskId: string): void;
  bodyRef: RefObject<HTMLDivElement | null>;
  columns: Segment[][];
}

interface Press {
  event: CalendarEvent;
  mode: 'move' | 'resize';
  x: number;
  y: number;
  /** Minutes between the block's top and the pointer, kept while moving. */
  grab: number;
  dayIndex: number;
  dragging: boolean;
}

const snap = (minutes: number) => Math.round(minutes / STEP_MIN) * STEP_MIN;
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Moving and resizing blocks. Pointer: drag a block to another time or day, drag its bottom edge to resize, drop
 * a task from the side panel. Keyboard on a focused block: arrows move by 15 minutes (left/right by a day),
 * Shift+Up/Down resizes, Enter saves, Escape cancels. Handlers sit on the grid body, not on 500 blocks.
 */
export function useGridInteractions(options: Options) {
  const { days, timeZone, bodyRef } = options;
  const latest = useRef(options);
  latest.current = options;
  const [pending, setPendingState] = useState<Pending | undefined>();
  const pendingRef = useRef<Pending | undefined>(undefined);
  const setPending = (next: Pending | undefined) => {
    pendingRef.current = next;
    setPendingState(next);
  };
  const press = useRef<Press | undefined>(undefined);
  const suppressClick = useRef(false);
  const refocus = useRef<string | undefined>(undefined);

  const eventOf = (target: EventTarget | null): CalendarEvent | undefined => {
    const id = (target as HTMLElement | null)?.closest?.<HTMLElement>('[data-id]')?.dataset.id;
    return id ? latest.current.events.find((e) => e.id === id) : undefined;
  };

  /** The day column and wall-clock minute under a point of the screen, or undefined outside the grid. */
  const slotAt = (x: number, y: number) => {
    const body = bodyRef.current;
    if (!body) return undefined;
    const cells = body.querySelectorAll<HTMLElement>('.cal-day');
    const rect = body.getBoundingClientRect();
    const firstCell = cells[0]?.getBoundingClientRect();
    if (!firstCell || x < firstCell.left || x > rect.right || y < rect.top || y > rect.bottom) return undefined;
    const dayIndex = clamp(Math.floor((x - firstCell.left) / firstCell.width), 0, cells.length - 1);
    return { dayIndex, minutes: ((y - rect.top) / HOUR_PX) * 60 };
  };

  const moveTo = (event: CalendarEvent, dayIndex: number, startMinutes: number): Pending | undefined => {
    const day = latest.current.days[dayIndex];
    if (!day) return undefined;
    const duration = Date.parse(event.end) - Date.parse(event.start);
    const minutes = clamp(snap(startMinutes), 0, MINUTES_PER_DAY - STEP_MIN);
    const start = instantAt(day, minutes, latest.current.timeZone).epochMilliseconds;
    return { event, start: iso(start), end: iso(start + duration), mode: 'move' };
  };

  const commit = (next: Pending) => {
    setPending(undefined);
    const { event } = next;
    if (!event.task_id || (next.start === event.start && next.end === event.end)) return;
    refocus.current = next.mode === 'key' ? event.id : undefined;
    latest.current.onChange({
      taskId: event.task_id,
      title: event.title,
      start: next.start,
      end: next.end,
      previous: next.mode === 'place' ? undefined : { start: event.start, end: event.end },
    });
  };

  // After a keyboard move the block may sit in another day column (a new element): give it the focus back.
  useEffect(() => {
    const id = refocus.current;
    if (!id) return;
    const block = bodyRef.current?.querySelector<HTMLElement>(`[data-id="${id}"]`);
    if (block && document.activeElement !== block) block.focus();
  });

  // A task dragged from the side panel: follow the pointer over the grid, drop it where it is let go.
  // slotAt, moveTo and commit read the latest options through `latest`: only a new drag restarts this.
  useEffect(() => {
    const task = options.placing;
    if (!task) return;
    const event: CalendarEvent = {
      ...{ id: task.id, source: 'task', title: task.title, start: '', end: '', all_day: false },
      ...{ status: 'pending', busy: true, task_id: task.id, integration_id: null, external_id: null, editable: true },
    };
    let last: Pending | undefined;
    const onMove = (e: globalThis.PointerEvent) => {
      const slot = slotAt(e.clientX, e.clientY);
      const sized = { ...event, start: iso(0), end: iso(task.duration_min * 60_000) };
      last = slot ? moveTo(sized, slot.dayIndex, slot.minutes) : undefined;
      if (last) last = { ...last, event: { ...event, start: last.start, end: last.end }, mode: 'place' };
      setPending(last);
    };
    const onUp = () => {
      if (last) commit(last);
      else setPending(undefined);
      latest.current.onPlaced();
    };
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      last = undefined;
      setPending(undefined);
      latest.current.onPlaced();
    };
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp, { once: true });
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', onUp);
      window.removeEventListener('keydown', onKey);
    };
  }, [options.placing]);

  const handlers = {
    onPointerDown(e: PointerEvent<HTMLDivElement>) {
      if (e.button !== 0) return;
      const event = eventOf(e.target);
      if (!event?.editable || !event.task_id) return;
      const block = (e.target as HTMLElement).closest<HTMLElement>('[data-id]');
      const slot = slotAt(e.clientX, e.clientY);
      if (!block || !slot) return;
      const rect = block.getBoundingClientRect();
      const top = ((rect.top - (bodyRef.current?.getBoundingClientRect().top ?? 0)) / HOUR_PX) * 60;
      press.current = {
        event,
        mode: e.clientY > rect.bottom - RESIZE_EDGE_PX ? 'resize' : 'move',
        x: e.clientX,
        y: e.clientY,
        grab: slot.minutes - top,
        dayIndex: Number(block.parentElement?.dataset.day ?? slot.dayIndex),
        dragging: false,
      };
    },
    onPointerMove(e: PointerEvent<HTMLDivElement>) {
      const p = press.current;
      if (!p) return;
      if (!p.dragging && Math.hypot(e.clientX - p.x, e.clientY - p.y) < DRAG_THRESHOLD_PX) return;
      // Captured only once it is a drag: a plain click keeps the block as its target (and opens the task).
      if (!p.dragging) e.currentTarget.setPointerCapture(e.pointerId);
      p.dragging = true;
      const slot = slotAt(e.clientX, e.clientY);
      if (!slot) return;
      if (p.mode === 'move') {
        const next = moveTo(p.event, slot.dayIndex, slot.minutes - p.grab);
        if (next) setPending(next);
        return;
      }
      const day = latest.current.days[p.dayIndex];
      if (!day) return;
      const start = Date.parse(p.event.start);
      const end = Math.max(
        instantAt(day, clamp(snap(slot.minutes), 0, MINUTES_PER_DAY), latest.current.timeZone).epochMilliseconds,
        start + STEP_MS,
      );
      setPending({ event: p.event, start: p.event.start, end: iso(end), mode: 'resize' });
    },
    onPointerUp() {
      const p = press.current;
      press.current = undefined;
      if (!p?.dragging) return;
      suppressClick.current = true;
      const current = pendingRef.current;
      if (current) commit(current);
      else setPending(undefined);
    },
    onPointerCancel() {
      press.current = undefined;
      setPending(undefined);
    },
    onClick(e: MouseEvent<HTMLDivElement>) {
      if (suppressClick.current) {
        suppressClick.current = false;
        return;
      }
      const event = eventOf(e.target);
      if (event?.task_id && event.source === 'task') latest.current.onOpen(event.task_id);
    },
    onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
      const event = eventOf(e.target);
      if (!event) return;
      if (e.key === 'Escape' && pending) {
        e.preventDefault();
        setPending(undefined);
        return;
      }
      if (e.key === 'Enter' && pending?.mode === 'key') {
        e.preventDefault();
        commit(pending);
        return;
      }
      if (!event.editable || !event.task_id || !e.key.startsWith('Arrow')) return;
      e.preventDefault();
      const base = pending?.mode === 'key' && pending.event.id === event.id ? pending : undefined;
      const start = Date.parse(base?.start ?? event.start);
      const end = Date.parse(base?.end ?? event.end);
      let next = { start, end };
      if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
        const step = e.key === 'ArrowUp' ? -STEP_MS : STEP_MS;
        next = e.shiftKey
          ? { start, end: Math.max(start + STEP_MS, end + step) }
          : { start: start + step, end: end + step };
      } else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
        const moved = Temporal.Instant.fromEpochMilliseconds(start)
          .toZonedDateTimeISO(latest.current.timeZone)
          .add({ days: e.key === 'ArrowLeft' ? -1 : 1 }).epochMilliseconds;
        next = { start: moved, end: moved + (end - start) };
      }
      const startDay = zoned(iso(next.start), latest.current.timeZone).toPlainDate();
      if (!latest.current.days.some((d) => d.equals(startDay))) return;
      setPending({ event, start: iso(next.start), end: iso(next.end), mode: 'key' });
    },
    onBlurCapture(e: FocusEvent<HTMLDivElement>) {
      // Leaving a block while it is being moved by keyboard cancels the move (nothing half-saved).
      if (pending?.mode === 'key' && eventOf(e.target)?.id === pending.event.id) setPending(undefined);
    },
  };

  const preview = useMemo(() => {
    if (!pending) return [];
    const moved = { ...pending.event, start: pending.start, end: pending.end };
    return layoutDays([moved], days, timeZone).flatMap((segments, dayIndex) =>
      segments.map((s) => ({ dayIndex, top: s.top, bottom: s.bottom, title: s.event.title })),
    );
  }, [pending, days, timeZone]);

  const announcement = useMemo(() => {
    if (pending?.mode !== 'key') return '';
    const name = slotNameOf(pending.event.title, pending.start, pending.end, timeZone);
    return `${name}. Enter saves, Escape cancels.`;
  }, [pending, timeZone]);

  /** The tip of the block under the pointer or with the focus (none while something is being moved). */
  const hover = (e: MouseEvent | FocusEvent, show: (tip: TipTarget | undefined) => void) => {
    if (press.current?.dragging || pending) return;
    const block = (e.target as HTMLElement).closest<HTMLElement>('[data-id]');
    const id = block?.dataset.id;
    show(block && id ? { id, element: block } : undefined);
  };

  return { handlers, pending, preview, announcement, hover };
}
