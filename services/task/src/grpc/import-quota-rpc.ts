import type { Sql } from '@routinely/db';
import { addRpcService, type InternalAuth, ownerOfCaller, parseRequest } from '@routinely/grpc';
import type { RpcServiceRegistry } from '@routinely/platform';
import { task_v1_import_quota } from '@routinely/proto';
import { z } from 'zod';
import type { ImportQuota, ImportQuotaOfUser } from '../domain/import/import-quota.js';

const getRequest = z.object({ userIds: z.array(z.uuid()).min(1).max(500) });
const importLimit = z.number().int().min(0).max(10_000);
const setRequest = z.object({ userId: z.uuid(), perHour: importLimit, perDay: importLimit });

const toProto = (q: ImportQuotaOfUser): task_v1_import_quota.ImportQuota => ({
  userId: q.userId,
  perHour: q.perHour,
  perDay: q.perDay,
  usedHour: q.usedHour,
  usedDay: q.usedDay,
  updatedAt: q.updatedAt?.toISOString() ?? '',
});

/**
 * The import quota the scheduler's `/quota/me` and `/admin/quotas` show and set (proto task.v1
 * ImportQuotaService). Every user id is read and written in the caller's tenant only.
 */
export function addImportQuotaRpc(server: RpcServiceRegistry, auth: InternalAuth, db: Sql, quota: ImportQuota): void {
  addRpcService(server, task_v1_import_quota.ImportQuotaServiceService, auth, {
    getImportQuotas: async (request, caller) => {
      const { userIds } = parseRequest(getRequest, request);
      const ownOnly = userIds.length === 1 && userIds[0] === caller.userId;
      const owner = ownerOfCaller(caller, ownOnly ? ['SERVICE_SCHEDULE_RUN'] : ['SERVICE_ADMIN']);
      return { quotas: (await quota.quotas(db, owner.tenantId, userIds)).map(toProto) };
    },
    setImportLimits: async (request, caller) => {
      const admin = ownerOfCaller(caller, ['SERVICE_QUOTA_OVERRIDE']);
      const { userId, perHour, perDay } = parseRequest(setRequest, request);
      const set = await quota.setLimits(db, { tenantId: admin.tenantId, userId }, { perHour, perDay });
      return { quota: toProto(set) };
    },
  });
}
