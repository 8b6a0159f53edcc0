import type { expandWorkingTime } from '@routinely/scheduling';

/** Working hours minus no-go windows of a timezone as UTC intervals (`expandWorkingTime` of @routinely/scheduling). */
export type ExpandWorkingTime = typeof expandWorkingTime;
