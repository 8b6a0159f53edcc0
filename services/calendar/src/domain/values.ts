/**
 * The closed sets of values a calendar, an item and a share take: the API schemas, the domain rules and the
 * row types of db/ all name them from here (the columns themselves are plain varchar).
 */
export const VISIBILITIES = ['private', 'shared', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export const SHARE_LEVELS = ['view', 'edit', 'admin'] as const;
export type ShareLevel = (typeof SHARE_LEVELS)[number];
export const ITEM_TYPES = ['meeting', 'event', 'task'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];
export const ITEM_STATUSES = ['confirmed', 'tentative', 'cancelled'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
