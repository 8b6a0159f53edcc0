export const PERMISSIONS = [
  'SERVICE_TASK_CREATE',
  'SERVICE_TASK_READ',
  'SERVICE_TASK_UPDATE',
  'SERVICE_TASK_DELETE',
  'SERVICE_TASK_BULK_IMPORT',
  'SERVICE_SCHEDULE_RUN',
  'SERVICE_INTEGRATION_MANAGE',
  'SERVICE_WEBHOOK_MANAGE',
  'SERVICE_WEBHOOK_READ',
  'SERVICE_REMINDER_MANAGE',
  'SERVICE_SETTINGS_MANAGE',
  'SERVICE_ADMIN',
  'SERVICE_QUOTA_OVERRIDE',
  'SERVICE_SUPER_ADMIN',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['user', 'admin', 'super_admin'] as const;
export type Role = (typeof ROLES)[number];

const ELEVATED: readonly Permission[] = ['SERVICE_ADMIN', 'SERVICE_QUOTA_OVERRIDE', 'SERVICE_SUPER_ADMIN'];
const USER_PERMISSIONS = PERMISSIONS.filter((p) => !ELEVATED.includes(p));

/** Role -> permission codes, as the contract fixes them. */
export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  user: USER_PERMISSIONS,
  admin: [...USER_PERMISSIONS, 'SERVICE_ADMIN', 'SERVICE_QUOTA_OVERRIDE'],
  super_admin: [...USER_PERMISSIONS, 'SERVICE_ADMIN', 'SERVICE_QUOTA_OVERRIDE', 'SERVICE_SUPER_ADMIN'],
};

export function permissionsForRoles(roles: readonly string[]): Permission[] {
  const out = new Set<Permission>();
  for (const role of roles) for (const p of ROLE_PERMISSIONS[role as Role] ?? []) out.add(p);
  return PERMISSIONS.filter((p) => out.has(p));
}

/**
 * True when the granted codes open an endpoint needing any one of `needed`. SERVICE_ADMIN and
 * SERVICE_SUPER_ADMIN are catch-alls, except that SERVICE_SUPER_ADMIN alone opens super-admin routes.
 */
export function hasPermission(granted: readonly string[], needed: Permission | readonly Permission[]): boolean {
  if (granted.includes('SERVICE_SUPER_ADMIN')) return true;
  const wanted = typeof needed === 'string' ? [needed] : needed;
  if (granted.includes('SERVICE_ADMIN') && !wanted.includes('SERVICE_SUPER_ADMIN')) return true;
  return wanted.some((p) => granted.includes(p));
}
