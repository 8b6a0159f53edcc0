import { expect } from 'vitest';
import { apiFor, type Target } from './harness.js';
import type { E2eUser } from './users.js';

/**
 * Of the consumers named, those with a dead letter stored in the last hour, as the health page an admin reads
 * reports them (`event_consumers`, every service's consumers in either topology).
 */
export async function deadLettered(target: Target, admin: E2eUser, consumers: string[]): Promise<string[]> {
  const health = await apiFor(target, admin.token).GET('/api/v1/service/admin/health');
  expect(health.response.status).toBe(200);
  const component = health.data?.components.event_consumers as unknown as { dead_letters: { consumer: string }[] };
  return component.dead_letters.map((l) => l.consumer).filter((c) => consumers.includes(c));
}
