import type { NoGoWindow, WorkingHours } from './settings-model.js';

/**
 * The signature of `expandWorkingTime` from `@routinely/scheduling` (the DST-correct time module): working
 * hours minus no-go windows of a timezone, as UTC intervals over a window. The composition root receives the
 * function, so this service compiles and runs before that package lands.
 */
export type ExpandWorkingTime = (input: {
  timezone: string;
  workingHours: WorkingHours;
  noGoWindows: NoGoWindow[];
  window: { start: Date; end: Date };
}) => { start: Date; end: Date }[];
