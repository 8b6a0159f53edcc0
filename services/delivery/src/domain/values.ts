/**
 * The closed sets of values a delivery takes: the API schemas, the domain rules and the row types of db/ all
 * name them from here (the columns themselves are plain varchar).
 */
export const CHANNELS = ['email', 'inapp', 'webhook'] as const;
export type Channel = (typeof CHANNELS)[number];
export const DELIVERY_STATUSES = ['pending', 'sent', 'failed', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const REMINDER_STATUSES = ['scheduled', 'fired', 'cancelled'] as const;
export type ReminderStatus = (typeof REMINDER_STATUSES)[number];
