import { ownerOf, pageOf, pageQuery } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deliveryWithAttempts } from '../../domain/attempt-log.js';
import type { DeliveryContext } from '../../domain/context.js';
import { listDeadLetters, listDeliveries, redeliver, requeue } from '../../domain/delivery-log.js';
import { upcomingReminders } from '../../domain/reminders.js';
import { toAttemptLogEntry } from '../webhook-attempts/schemas.js';
import {
  deadLetterRead,
  deliveryDetail,
  deliveryParams,
  deliveryQuery,
  deliveryRead,
  dlqParams,
  toDeadLetter,
  toDelivery,
  upcomingList,
  upcomingQuery,
} from './schemas.js';

const READ = 'SERVICE_TASK_READ' as const;
const WRITE = 'SERVICE_REMINDER_MANAGE' as const;
const tags = ['reminders'];

export function reminderRoutes(ctx: DeliveryContext & { onRequeued: () => void }): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/reminders/upcoming',
      {
        config: { permission: READ },
        schema: {
          operationId: 'listUpcomingReminders',
          summary: 'Reminders not yet fired, soonest first',
          tags,
          querystring: upcomingQuery,
          response: { 200: upcomingList },
        },
      },
      async (request) =>
        upcomingReminders(ctx.db, ownerOf(request), request.query.days, request.query.limit, ctx.clock),
    );

    r.get(
      '/service/reminders/deliveries',
      {
        config: { permission: READ },
        schema: {
          operationId: 'listDeliveries',
          summary: 'The delivery log (filters status, channel, reminder_id), newest first',
          tags,
          querystring: deliveryQuery,
          response: { 200: pageOf(deliveryRead) },
        },
      },
      async (request) => {
        const { limit, offset, ...filter } = request.query;
        const { items, total } = await listDeliveries(ctx, ownerOf(request), filter, { limit, offset });
        return { items: items.map(toDelivery), total, limit, offset };
      },
    );

    r.get(
      '/service/reminders/deliveries/:delivery_id',
      {
        config: { permission: READ },
        schema: {
          operationId: 'getDelivery',
          summary: 'One delivery',
          tags,
          params: deliveryParams,
          response: { 200: deliveryDetail },
        },
      },
      async (request) => {
        const { row, attempts } = await deliveryWithAttempts(ctx, ownerOf(request), request.params.delivery_id);
        return { ...toDelivery(row), payload: row.payload, attempts_log: attempts.map(toAttemptLogEntry) };
      },
    );

    r.post(
      '/service/reminders/deliveries/:delivery_id/redeliver',
      {
        config: { permission: WRITE },
        schema: {
          operationId: 'redeliverDelivery',
          description: 'Sends the delivery again with the same `event_id`, so receivers can deduplicate.',
          summary: 'Send a delivery again now',
          tags,
          params: deliveryParams,
          response: { 200: deliveryRead },
        },
      },
      async (request) => {
        const row = await redeliver(ctx, ownerOf(request), request.params.delivery_id);
        ctx.onRequeued();
        return toDelivery(row);
      },
    );

    r.get(
      '/service/reminders/dlq',
      {
        config: { permission: READ },
        schema: {
          operationId: 'listDeadLetters',
          summary: 'Deliveries that exhausted their attempts or failed hard',
          tags,
          querystring: pageQuery,
          response: { 200: pageOf(deadLetterRead) },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        const { items, total } = await listDeadLetters(ctx, ownerOf(request), { limit, offset });
        return { items: items.map(toDeadLetter), total, limit, offset };
      },
    );

    r.post(
      '/service/reminders/dlq/:dlq_id/requeue',
      {
        config: { permission: WRITE },
        schema: {
          operationId: 'requeueDeadLetter',
          description: 'Makes a new delivery of the dead-lettered one (a new delivery id, the same `event_id`).',
          summary: 'Send a dead-lettered delivery again as a new delivery',
          tags,
          params: dlqParams,
          response: { 200: deliveryRead },
        },
      },
      async (request) => {
        const row = await requeue(ctx, ownerOf(request), request.params.dlq_id);
        ctx.onRequeued();
        return toDelivery(row);
      },
    );
  };
}
