import { timingSafeEqual } from 'node:crypto';
import { randomToken, sha256 } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import type { PushChannel } from '../adapters/adapter.js';
import type { IntegrationRow, Provider } from '../db/entities.js';
import { makeSyncDue, pushTargetOf } from '../db/integrations-sql.js';
import { type IntegrationContext, notificationPath, sealContext } from './context.js';
import { apiFor } from './credentials.js';
import { type IntegrationPatch, loadIntegration, saveIntegration } from './integration-rows.js';
import { describeFailure } from './log-safe.js';

/** Google keeps channels up to ~7 days, Graph event subscriptions under 3 days: ask for less than both. */
const CHANNEL_LIFETIME_MS = 2 * 86_400_000;
/** Channels expiring within this are renewed by the worker. */
export const CHANNEL_RENEW_BEFORE_MS = 12 * 3_600_000;

const channelOf = (row: IntegrationRow): PushChannel | null =>
  row.channelId
    ? { id: row.channelId, resourceId: row.channelResourceId ?? null, expiresAt: row.pushExpiresAt ?? new Date(0) }
    : null;

function channelColumns(ctx: IntegrationContext, id: string, channel: PushChannel, secret: string): IntegrationPatch {
  return {
    channelId: channel.id,
    channelResourceId: channel.resourceId,
    channelSecretSealed: ctx.box.seal(secret, sealContext.channel(id)),
    pushExpiresAt: channel.expiresAt,
    updatedAt: ctx.clock.now(),
  };
}

/**
 * Opens a push channel, or renews the one the row has (Graph: PATCH; Google: a new channel, the old one
 * stopped). Failure is logged and left to the renewal worker: polling keeps the data fresh meanwhile.
 */
export async function openOrRenewChannel(ctx: IntegrationContext, id: string): Promise<boolean> {
  const row = await loadIntegration(ctx, id);
  if (row?.status !== 'active') return false;
  const adapter = ctx.adapters[row.provider];
  const api = apiFor(ctx, id);
  const params = {
    id: uuidv7(),
    address: `${ctx.config.PUBLIC_BASE_URL}${notificationPath(row.provider)}`,
    secret: randomToken(32),
    expiresAt: new Date(ctx.clock.now().getTime() + CHANNEL_LIFETIME_MS),
  };
  const old = channelOf(row);
  try {
    let patch: IntegrationPatch;
    if (old && row.provider === 'microsoft') {
      const renewed = await adapter.renewChannel(api, old, params);
      patch = { pushExpiresAt: renewed.expiresAt, updatedAt: ctx.clock.now() };
    } else {
      const opened = old ? await adapter.renewChannel(api, old, params) : await adapter.openChannel(api, params);
      patch = channelColumns(ctx, row.id, opened, params.secret);
      if (old) await adapter.stopChannel(api, old).catch(() => undefined);
    }
    await saveIntegration(ctx, row, patch);
    return true;
  } catch (error) {
    ctx.logger.warn(
      { integration_id: id, provider: row.provider, err: describeFailure(error) },
      'push channel could not be opened or renewed; polling covers it',
    );
    return false;
  }
}

/** Stops the row's channel upstream (best effort); answers the columns that forget it, for the caller to write. */
export async function stopChannel(ctx: IntegrationContext, row: IntegrationRow): Promise<IntegrationPatch> {
  const channel = channelOf(row);
  if (channel) {
    await ctx.adapters[row.provider].stopChannel(apiFor(ctx, row.id), channel).catch((error: unknown) => {
      ctx.logger.warn(
        { integration_id: row.id, err: describeFailure(error) },
        'push channel stop failed; it expires on its own',
      );
    });
  }
  return { channelId: null, channelResourceId: null, channelSecretSealed: null, pushExpiresAt: null };
}

/** Constant-time comparison of a presented channel token / clientState with the sealed one. */
function secretMatches(
  ctx: IntegrationContext,
  target: { id: string; channel_secret_sealed: string | null },
  presented: string | undefined,
): boolean {
  if (!presented || !target.channel_secret_sealed) return false;
  const expected = ctx.box.open(target.channel_secret_sealed, sealContext.channel(target.id));
  // Hashing first gives equal lengths, so the comparison time says nothing about the secret.
  return timingSafeEqual(Buffer.from(sha256(presented), 'hex'), Buffer.from(sha256(expected), 'hex'));
}

/**
 * A push notification: verified against the channel's secret, it only makes the integration's sync due now.
 * Its content is never trusted. Answers false (401, nothing changed) for an unknown channel or a wrong secret.
 */
export async function acceptPush(
  ctx: IntegrationContext,
  provider: Provider,
  channelId: string | undefined,
  secret: string | undefined,
  options: { dryRun?: boolean } = {},
): Promise<boolean> {
  if (!channelId) return false;
  const target = await pushTargetOf(ctx.db, provider, channelId);
  if (!target || !secretMatches(ctx, target, secret)) return false;
  if (options.dryRun) return true;
  if (target.status === 'active') {
    await makeSyncDue(ctx.db, target.id, ctx.clock.now());
    ctx.wakeSync();
  }
  return true;
}
