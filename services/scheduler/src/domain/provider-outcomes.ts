import { type EventEnvelope, enqueue, makeEvent, schedulerEvents } from '@routinely/events';
import type { SchedulerContext } from './context.js';
import { PROVIDER_NAMES, type ProviderName } from './providers.js';

/** A fixed class of a failed model call; never the provider's message, which may echo a prompt or a key. */
export type ProviderErrorClass = 'timeout' | 'http_4xx' | 'http_5xx' | 'invalid_answer' | 'network';

/**
 * What the administrators' health page shows of the model registry (ADR 026), published as events the task
 * service keeps (ADR 056): the providers this process is configured with when it starts, and the outcome of
 * every model call for the tenant it was made for (when and how another tenant last used a model is theirs).
 */
export class ProviderOutcomes {
  constructor(private readonly ctx: SchedulerContext) {}

  /** The configured providers (a key set or not; never the key), once per process start. */
  async announce(): Promise<void> {
    const at = this.ctx.clock.now();
    const providers = PROVIDER_NAMES.map((name) => {
      const { model, available } = this.ctx.providers.get(name);
      return { name, model, available };
    });
    const event = makeEvent(
      schedulerEvents.modelRegistryConfigured,
      { tenantId: '', userId: null, at },
      { providers, at: at.toISOString() },
    );
    await this.publish(event);
  }

  /** Called by whoever calls a model, after each call, with the tenant it called for. */
  async report(
    tenantId: string,
    provider: ProviderName,
    outcome: 'ok' | 'error',
    error: ProviderErrorClass | null = null,
  ): Promise<void> {
    const at = this.ctx.clock.now();
    const event = makeEvent(
      schedulerEvents.modelCallFinished,
      { tenantId, userId: null, at },
      { provider, outcome, error: outcome === 'error' ? error : null, at: at.toISOString() },
    );
    await this.publish(event);
  }

  private async publish(event: EventEnvelope): Promise<void> {
    await this.ctx.db.transaction((sql) => enqueue(sql, event));
    this.ctx.relay.kick();
  }
}
