import { nameSchemas, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import { SHARE_LEVELS } from '../../domain/values.js';
import { isoDateTimeOut } from '../calendars/schemas.js';

export const sharingSchema = z.object({
  id: z.uuid(),
  calendar_id: z.uuid(),
  user_id: uuidOut(),
  email: z.string().nullable(),
  permission: z.enum(SHARE_LEVELS),
  granted_by: uuidOut(),
  created_at: isoDateTimeOut,
});

export const sharingParams = z.object({ calendar_id: z.uuid(), sharing_id: z.uuid() });

export const shareCreateBody = z
  .object({
    user_id: z.uuid().optional(),
    email: z.email().max(320).optional(),
    permission: z.enum(SHARE_LEVELS),
  })
  .refine((b) => (b.user_id === undefined) !== (b.email === undefined), {
    message: 'give exactly one of user_id or email',
    path: ['user_id'],
  });

export const sharePatchBody = z.object({ permission: z.enum(SHARE_LEVELS) });

export const sharingList = z.array(sharingSchema);
export const sharingRevoked = z.null().describe('Revoked');

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  Share: sharingSchema,
  ShareCreate: shareCreateBody,
  SharePatch: sharePatchBody,
});
