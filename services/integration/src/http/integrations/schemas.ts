import { nameSchemas, timestampOut } from '@routinely/platform';
import { z } from 'zod';

const showAs = z
  .enum(['busy', 'details'])
  .describe('"busy": events are titled "Busy" with no description; "details": the task\'s title, description, link');

const writeBackRead = z.object({
  enabled: z.boolean(),
  calendar_name: z.string(),
  show_as: showAs,
  calendar_id: z.string().nullable().describe("the dedicated calendar's provider id, once it is created"),
  last_written_at: timestampOut().nullable(),
  last_error: z.string().nullable().describe('why the last write-back attempt failed (null after a success)'),
});

export const integrationRead = z.object({
  id: z.string().uuid(),
  provider: z.enum(['google', 'microsoft']),
  status: z.enum(['pending', 'active', 'error', 'revoked']),
  account_email: z.string().nullable(),
  last_synced_at: timestampOut().nullable(),
  last_error: z.string().nullable(),
  push_expires_at: timestampOut().nullable(),
  write_back: writeBackRead,
  created_at: timestampOut(),
  updated_at: timestampOut(),
});

export const integrationParams = z.object({ integration_id: z.string().uuid() });
/** Any string: an unknown provider is 404 (contract), not a validation error. */
export const providerParams = z.object({ provider: z.string().min(1).max(64) });

const returnUrl = z
  .string()
  .min(1)
  .max(2048)
  .describe("A relative path, or an absolute URL of PUBLIC_BASE_URL's origin or of OAUTH_ALLOWED_RETURN_ORIGINS");

/** oauth/start: no body, or no return_url, means the console's calendar settings page (contract, "Web console"). */
export const returnUrlBody = z.object({ return_url: returnUrl.optional() }).nullish();

/** reconnect: no body, or no return_url, means the row's last return URL (contract). */
export const reconnectBody = z.object({ return_url: returnUrl.optional() }).nullish();

export const authorizationAnswer = z.object({
  auth_url: z.string(),
  integration_id: z.string().uuid(),
});

export const syncCounts = z.object({
  fetched: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  deleted: z.number().int(),
});

export const integrationPatch = z.strictObject({
  write_back: z.strictObject({
    enabled: z.boolean(),
    calendar_name: z.string().trim().min(1).max(100).optional().describe('default "Routinely"'),
    show_as: showAs.optional().describe('default "busy"'),
  }),
});

export const integrationList = z.array(integrationRead);
export const integrationDisconnected = z.null();

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  Integration: integrationRead,
  IntegrationWriteBack: writeBackRead,
  IntegrationPatch: integrationPatch,
  IntegrationAuthorization: authorizationAnswer,
  SyncCounts: syncCounts,
});
