import { databaseReady, Sql } from '@routinely/db';
import { consumerSubscriptions } from '@routinely/events';
import { backgroundOf, defineWorker, SecretBox, type ServiceInstance } from '@routinely/platform';
import type { ServiceDeps } from '@routinely/runtime';
import type { FastifyPluginAsync } from 'fastify';
import { warmUpHttpClient } from './adapters/http-client-warm-up.js';
import { type Mailer, OutboxMailer, SmtpMailer } from './adapters/mailer.js';
import type { HostResolver, TargetPolicy } from './adapters/target-guard.js';
import { WebhookSender } from './adapters/webhook-sender.js';
import type { DeliveryConfig } from './config.js';
import { rememberContact } from './db/contacts-sql.js';
import type { DeliveryContext } from './domain/context.js';
import { resealUnboundSecrets } from './domain/secret-reseal.js';
import { deliveryConsumers } from './events/consumers.js';
import { addDeliveryRpc } from './grpc/delivery-rpc.js';
import { notificationRoutes } from './http/notifications/routes.js';
import { reminderRoutes } from './http/reminders/routes.js';
import { webhookAttemptRoutes } from './http/webhook-attempts/routes.js';
import { webhookEventTypeRoutes } from './http/webhook-event-types/routes.js';
import { documentWebhookEvents } from './http/webhook-event-types/schemas.js';
import { webhookRoutes } from './http/webhooks/routes.js';
import { DeliveryWorker } from './workers/delivery-worker.js';
import { observeDeadLetterQueue } from './workers/observability.js';
import { ReminderFirer } from './workers/reminder-firer.js';
import { WakeupListener } from './workers/wakeups.js';

/** How long a stopping host lets started sends finish before abandoning them to lease expiry. */
const SHUTDOWN_GRACE_MS = 5_000;

/** What every host gives a service (the context of @routinely/runtime), and the test doubles this root accepts. */
export type DeliveryDeps = ServiceDeps<DeliveryConfig> & {
  /** Email port override; default: SMTP when SMTP_URL is set, else the local email_outbox table. */
  mailer?: Mailer;
  /** DNS override for the webhook target guard (tests that need a name resolving to a given address). */
  resolveHost?: HostResolver;
  /** CIDRs treated as public by the target guard (tests: exactly one loopback receiver). */
  allowCidrs?: string[];
};

export type DeliveryService = ServiceInstance;

/** What the delivery service's routes call while answering. */
export type DeliveryApi = DeliveryContext & {
  /** A dead letter was requeued: the delivery worker looks at once. */
  onRequeued: () => void;
};

/** The delivery service's API routes, written after the mount (module.ts documents them with `api` never used). */
export function apiRoutes(api: DeliveryApi): FastifyPluginAsync {
  // Shared by both mounts: one write per caller address, not one per mount.
  const knownContacts = new Set<string>();
  return async (app) => {
    documentWebhookEvents(app);
    // Reminder emails go to the address in the caller's token when no auth event has told us one.
    app.addHook('preHandler', async (request) => {
      const p = request.principal;
      if (!p?.email) return;
      const key = `${p.tenantId}/${p.userId}/${p.email}`;
      if (knownContacts.has(key)) return;
      const contact = { tenantId: p.tenantId, userId: p.userId, email: p.email };
      await rememberContact(api.db, contact, api.clock.now(), { ifMissing: true });
      // Only saves a write per request; forgetting is harmless, so the set is simply bounded.
      if (knownContacts.size >= 10_000) knownContacts.clear();
      knownContacts.add(key);
    });
    await app.register(webhookRoutes(api));
    await app.register(webhookEventTypeRoutes());
    await app.register(webhookAttemptRoutes(api));
    await app.register(reminderRoutes(api));
    await app.register(notificationRoutes(api));
  };
}

/** What sending needs: the webhook client, the mailer and the two workers' passes. */
export interface DeliveryEngine {
  box: SecretBox;
  sender: WebhookSender;
  mailer: Mailer;
  deliveries: DeliveryWorker;
  firer: ReminderFirer;
}

/**
 * Composes the sending side from the config: buildService runs it once, with `wake` hooks to its pacers; a test
 * harness runs it again to drive passes by hand on the same database, as a second replica would.
 */
export function deliveryEngine(
  deps: Pick<DeliveryDeps, 'config' | 'logger' | 'clock' | 'mailer' | 'resolveHost' | 'allowCidrs'> & { db: Sql },
  wake: { onSettled?: () => void; onFired?: () => Promise<void> } = {},
): DeliveryEngine {
  const { config, logger, clock, db } = deps;
  const box = new SecretBox(config.ENCRYPTION_KEY);
  const policy: TargetPolicy = {
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    ...(deps.allowCidrs ? { allowCidrs: deps.allowCidrs } : {}),
    ...(deps.resolveHost ? { resolve: deps.resolveHost } : {}),
  };
  const sender = new WebhookSender(policy, config.WEBHOOK_TIMEOUT_MS);
  const mailer =
    deps.mailer ??
    (config.SMTP_URL
      ? new SmtpMailer(config.SMTP_URL, config.EMAIL_FROM)
      : new OutboxMailer(db, config.EMAIL_FROM, clock, logger));
  const deliveries = new DeliveryWorker({
    db,
    clock,
    logger,
    box,
    sender,
    mailer,
    leaseMs: config.DELIVERY_LEASE_MS,
    batchSize: config.DELIVERY_BATCH_SIZE,
    concurrency: config.DELIVERY_CONCURRENCY,
    perEndpoint: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
    perUser: config.WEBHOOK_MAX_IN_FLIGHT_PER_USER,
    circuit: { threshold: config.WEBHOOK_CIRCUIT_THRESHOLD, openMs: config.WEBHOOK_CIRCUIT_OPEN_MS },
    sendTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryWaitsMs: config.WEBHOOK_RETRY_WAITS_MS,
    ...(wake.onSettled ? { onSettled: wake.onSettled } : {}),
  });
  const firer = new ReminderFirer(db, clock, config.DELIVERY_BATCH_SIZE, wake.onFired ?? (async () => {}));
  return { box, sender, mailer, deliveries, firer };
}

export function buildService(deps: DeliveryDeps): DeliveryService {
  const { config, logger, clock, orm } = deps;
  const db = Sql.of(orm);
  const { box, sender, mailer, deliveries, firer } = deliveryEngine(
    { ...deps, db },
    {
      onSettled: () => deliveryWorker.wake(),
      onFired: () => deliveryWorker.wakeAndWait(),
    },
  );
  // Each worker's heartbeat tells the admin health page a stopped worker from a working one (ADR 026).
  const deliveryWorker = defineWorker(
    { name: 'deliveries', pollMs: config.DELIVERY_POLL_MS, pass: () => deliveries.pass() },
    { clock, logger },
  );
  const reminderWorker = defineWorker(
    { name: 'reminders', pollMs: config.DELIVERY_POLL_MS, pass: () => firer.pass() },
    { clock, logger },
  );
  const listener = new WakeupListener(
    String(orm.config.get('clientUrl')),
    (what) => (what === 'reminders' ? reminderWorker : deliveryWorker).wake(),
    logger,
  );
  let unobserveQueue: (() => void) | undefined;
  const ctx: DeliveryContext = {
    db,
    clock,
    box,
    sender,
    maxEndpointsPerUser: config.WEBHOOK_MAX_ENDPOINTS_PER_USER,
  };

  return {
    name: 'delivery',
    routes: apiRoutes({ ...ctx, onRequeued: () => deliveryWorker.wake() }),
    addGrpc: (server) =>
      addDeliveryRpc(server, deps.internalAuth, { db, clock, workers: [reminderWorker, deliveryWorker] }),
    readiness: {
      database: () => databaseReady(orm),
    },
    backgroundWorkers: [reminderWorker, deliveryWorker],
    ...backgroundOf([
      { stop: () => mailer.close() },
      { stop: () => sender.close() },
      // Sends in flight finish (or are given back) once the workers have stopped claiming.
      { stop: () => deliveries.drain(SHUTDOWN_GRACE_MS) },
      {
        start: async () => {
          const resealed = await resealUnboundSecrets(db, box);
          if (resealed > 0) logger.info({ resealed }, 'webhook secrets re-sealed with their endpoint bound');
        },
      },
      {
        start: () => {
          unobserveQueue = observeDeadLetterQueue(db);
        },
        stop: () => unobserveQueue?.(),
      },
      consumerSubscriptions(
        Object.values(deliveryConsumers({ clock, onReminderChanged: () => reminderWorker.wake() })),
        { db, transport: deps.transport, logger, clock },
      ),
      ...(config.DELIVERY_WORKERS_ENABLED
        ? [
            {
              start: () =>
                warmUpHttpClient().catch((error) => logger.warn({ err: error }, 'webhook client warm-up failed')),
            },
            listener,
            reminderWorker,
            deliveryWorker,
          ]
        : []),
    ]),
  };
}
