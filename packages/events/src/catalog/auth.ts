import { z } from 'zod';
import { defineEvent } from '../envelope.js';

const userData = z.object({
  user: z.object({
    id: z.string().uuid(),
    tenant_id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    timezone: z.string().nullable(),
    is_active: z.boolean(),
  }),
});

/** Events of the auth service (subjects auth.user.<verb>, auth.session.<verb>). */
export const authEvents = {
  userRegistered: defineEvent('auth.user.registered', userData),
  userUpdated: defineEvent('auth.user.updated', userData),
  sessionRevoked: defineEvent(
    'auth.session.revoked',
    z.object({ user_id: z.string().uuid(), session_ids: z.array(z.string()), reason: z.string() }),
  ),
};
