import { nameSchemas } from '@routinely/platform';
import { z } from 'zod';
import type { WebhookEndpointRow } from '../../db/entities.js';
import { MAX_MAX_ATTEMPTS } from '../../domain/retry-policy.js';

export const endpointParams = z.object({ endpoint_id: z.uuid() });

export const endpointCreateBody = z.object({
  name: z.string().trim().min(1).max(200),
  url: z.string().min(1).max(2048),
  description: z.string().max(2000).nullish(),
  enabled: z.boolean().optional(),
  max_attempts: z.number().int().min(0).max(MAX_MAX_ATTEMPTS).default(4),
  fallback_to_email: z.boolean().optional(),
});

export const endpointPatchBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  url: z.string().min(1).max(2048).optional(),
  description: z.string().max(2000).nullish(),
  enabled: z.boolean().optional(),
  max_attempts: z.number().int().min(0).max(MAX_MAX_ATTEMPTS).optional(),
  fallback_to_email: z.boolean().optional(),
});

export const endpointRead = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  max_attempts: z.number().int(),
  fallback_to_email: z.boolean(),
  secret_preview: z.string(),
  consecutive_failures: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Create and rotate only: the plaintext secret, shown once. */
export const endpointWithSecret = endpointRead.extend({ secret: z.string() });

export const testResult = z.object({
  ok: z.boolean(),
  status_code: z.number().int(),
  latency_ms: z.number().int(),
  signature: z.string(),
  response_preview: z.string(),
  error: z.string().optional(),
});

export function toEndpoint(row: WebhookEndpointRow): z.infer<typeof endpointRead> {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    description: row.description ?? null,
    enabled: row.enabled,
    max_attempts: row.maxAttempts,
    fallback_to_email: row.fallbackToEmail,
    secret_preview: row.secretPreview,
    consecutive_failures: row.consecutiveFailures,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  WebhookEndpointCreate: endpointCreateBody,
  WebhookEndpointPatch: endpointPatchBody,
  WebhookEndpoint: endpointRead,
  WebhookEndpointWithSecret: endpointWithSecret,
  WebhookTestResult: testResult,
});
