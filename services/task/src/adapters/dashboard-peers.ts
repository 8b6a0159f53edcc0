import { createRpcClient, type InternalAuth } from '@routinely/grpc';
import type { Owner, ServiceName } from '@routinely/platform';
import { delivery_v1, integration_v1 } from '@routinely/proto';

/** The caller an RPC acts for: the signed-in user with the permissions of their token. */
export interface Actor extends Owner {
  permissions: string[];
}

/** A peer's consumer's dead letters of one event type in the last hour (`lastAt` ISO-8601). */
export interface DeadLetterReport {
  consumer: string;
  type: string;
  count: number;
  lastAt: string;
}

export interface WorkerReport {
  name: string;
  running: boolean;
  intervalMs: number;
  lastTickAgeMs: number;
}

/**
 * The services owning the dashboard's other figures and the health page's components, over gRPC. Each call
 * carries the user's own identity and permissions, so the owner checks them as its HTTP routes would. The
 * scheduler's figures are not asked for: the scheduler calls this service, so they come as events (ADR 056).
 */
export class DashboardPeers {
  private readonly delivery;
  private readonly integration;

  constructor(address: (service: ServiceName) => string, auth: InternalAuth, deadlineMs: number) {
    const options = { defaultDeadlineMs: deadlineMs };
    this.delivery = createRpcClient(delivery_v1.DeliveryStatusServiceService, address('delivery'), auth, options);
    this.integration = createRpcClient(
      integration_v1.IntegrationStatusServiceService,
      address('integration'),
      auth,
      options,
    );
  }

  deliverySummary(actor: Actor, window: { start: Date; end: Date }) {
    return this.delivery.getUserSummary(
      { windowStart: window.start.toISOString(), windowEnd: window.end.toISOString() },
      { actor },
    );
  }

  integrationSummary(actor: Actor) {
    return this.integration.getUserSummary({}, { actor });
  }

  deliveryWorkers(actor: Actor): Promise<{ workers: WorkerReport[]; recentDeadLetters: DeadLetterReport[] }> {
    return this.delivery.getWorkerStatus({}, { actor });
  }

  integrationHealth(actor: Actor) {
    return this.integration.getIntegrationHealth({}, { actor });
  }

  close(): void {
    this.delivery.close();
    this.integration.close();
  }
}
