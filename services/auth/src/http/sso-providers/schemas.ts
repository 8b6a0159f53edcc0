import { z } from 'zod';

const providerRoleSchema = z.object({ name: z.string(), description: z.string().nullable() });
export const selectRoleBody = z.object({ role: z.string().min(1).max(100) });
export const verificationSentSchema = z.object({ ok: z.literal(true), sent: z.literal(true) });

export const providerRoleList = z.array(providerRoleSchema);
