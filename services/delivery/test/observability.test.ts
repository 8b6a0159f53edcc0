import { createLogger, ManualClock, metricsRegistry, renderMetrics } from '@routinely/platform';
import type { WebhookReceiver } from '@routinely/testkit';
import { defined } from '@routinely/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, type Harness, scheduleDue, sqlRows, startWithReceiver } from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');
const lines: Record<string, unknown>[] = [];
let h: Harness;
let receiver: WebhookReceiver;
let secrets: string[] = [];

beforeAll(async () => {
  const logger = createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
  const started = await startWithReceiver({ clock, logger }, () => secrets);
  ({ h, receiver } = started);
  return started.close;
});

async function sampleValue(name: string, labels: Record<string, string> = {}, suffix = ''): Promise<number> {
  const metric = metricsRegistry.getSingleMetric(name);
  // Histograms list their _bucket, _count and _sum samples under `metricName`.
  const values: { value: number; labels: Record<string, unknown>; metricName?: string }[] =
    (await metric?.get())?.values ?? [];
  const match = values.find(
    (v) =>
      (v.metricName ?? name) === `${name}${suffix}` &&
      Object.entries(labels).every(([k, value]) => v.labels[k] === value),
  );
  return match?.value ?? 0;
}

describe('delivery observability', () => {
  it('counts each try by channel and result, logs every failure and the dead letter, and sizes the DLQ', async () => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: `${receiver.url}?token=query-secret`, max_attempts: 1 });
    secrets = [endpoint.secret];
    receiver.setResponder(() => ({ status: 503 }));
    const retriesBefore = await sampleValue('routinely_delivery_attempts_total', {
      channel: 'webhook',
      result: 'retry',
    });
    const deadBefore = await sampleValue('routinely_delivery_attempts_total', { channel: 'webhook', result: 'dead' });
    const lagCountBefore = await sampleValue('routinely_reminder_fire_lag_seconds', {}, '_count');
    const lagSumBefore = await sampleValue('routinely_reminder_fire_lag_seconds', {}, '_sum');

    await scheduleDue(h, clock, user, { slotInMin: 20, reminder_channels: ['webhook'] });
    clock.advance(90_000); // the firing pass runs a minute and a half late
    expect(await h.workers.fireDueReminders()).toBe(1);
    expect(await sampleValue('routinely_reminder_fire_lag_seconds', {}, '_count')).toBe(lagCountBefore + 1);
    expect(await sampleValue('routinely_reminder_fire_lag_seconds', {}, '_sum')).toBe(lagSumBefore + 90);

    expect(await h.workers.runDueDeliveries()).toBe(1);
    const [row] = await sqlRows<{ id: string; next_attempt_at: Date }>(
      h.orm,
      'select id, next_attempt_at from deliveries where endpoint_id = ?',
      [endpoint.id],
    );
    clock.advance(new Date(defined(row).next_attempt_at).getTime() - clock.now().getTime());
    expect(await h.workers.runDueDeliveries()).toBe(1);

    expect(await sampleValue('routinely_delivery_attempts_total', { channel: 'webhook', result: 'retry' })).toBe(
      retriesBefore + 1,
    );
    expect(await sampleValue('routinely_delivery_attempts_total', { channel: 'webhook', result: 'dead' })).toBe(
      deadBefore + 1,
    );
    const expected = {
      delivery_id: defined(row).id,
      endpoint_id: endpoint.id,
      channel: 'webhook',
      status_code: 503,
      error_class: 'http_status',
    };
    const failed = lines.filter((l) => l.msg === 'delivery attempt failed');
    expect(failed).toEqual([expect.objectContaining({ ...expected, level: 40, attempt: 1, retry_in_ms: 5_000 })]);
    const dead = lines.filter((l) => l.msg === 'delivery dead-lettered');
    expect(dead).toEqual([expect.objectContaining({ ...expected, level: 50, attempt: 2 })]);
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain('query-secret');
    expect(logged).not.toContain(endpoint.secret);
    expect(logged).not.toContain(receiver.url);

    expect((await renderMetrics()).body).toMatch(/^routinely_delivery_dead_letters 1$/m);
  });
});
