import { type InternalAuth, reopeningRpcClient } from '@routinely/grpc';
import type { Owner, Permission } from '@routinely/platform';
import { task_v1_import_quota } from '@routinely/proto';

export interface ImportQuotaOfUser {
  userId: string;
  perHour: number;
  perDay: number;
  usedHour: number;
  usedDay: number;
  /** The administrator's last change; null while the user has the defaults. */
  updatedAt: Date | null;
}

const fromProto = (q: task_v1_import_quota.ImportQuota): ImportQuotaOfUser => ({
  userId: q.userId,
  perHour: q.perHour,
  perDay: q.perDay,
  usedHour: q.usedHour,
  usedDay: q.usedDay,
  updatedAt: q.updatedAt ? new Date(q.updatedAt) : null,
});

/**
 * The bulk-import quota, which the task service owns and enforces at import time (ADR 050, 056): `/quota/me`
 * and `/admin/quotas` read it and an administrator's PATCH sets it there. Each call acts with the permission
 * of the route that already checked the caller.
 */
export class TaskImportQuotas {
  private readonly client;

  constructor(address: string, internalAuth: InternalAuth, deadlineMs: number) {
    this.client = reopeningRpcClient(task_v1_import_quota.ImportQuotaServiceService, address, internalAuth, {
      defaultDeadlineMs: deadlineMs,
    });
  }

  private static meta(caller: Owner, permission: Permission) {
    return { actor: { tenantId: caller.tenantId, userId: caller.userId, permissions: [permission] } };
  }

  async own(owner: Owner): Promise<ImportQuotaOfUser> {
    const { quotas } = await this.client
      .rpc()
      .getImportQuotas({ userIds: [owner.userId] }, TaskImportQuotas.meta(owner, 'SERVICE_SCHEDULE_RUN'));
    const [quota] = quotas.map(fromProto);
    if (!quota) throw new Error('the task service answered no quota for the asked user');
    return quota;
  }

  async ofUsers(admin: Owner, userIds: readonly string[]): Promise<Map<string, ImportQuotaOfUser>> {
    if (userIds.length === 0) return new Map();
    const { quotas } = await this.client
      .rpc()
      .getImportQuotas({ userIds: [...userIds] }, TaskImportQuotas.meta(admin, 'SERVICE_ADMIN'));
    return new Map(quotas.map((q) => [q.userId, fromProto(q)]));
  }

  async set(admin: Owner, userId: string, limits: { perHour: number; perDay: number }): Promise<void> {
    await this.client
      .rpc()
      .setImportLimits({ userId, ...limits }, TaskImportQuotas.meta(admin, 'SERVICE_QUOTA_OVERRIDE'));
  }

  close(): void {
    this.client.close();
  }
}
