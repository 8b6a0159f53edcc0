import { describe, expect, it } from 'vitest';
import { hasPermission, PERMISSIONS, permissionsForRoles } from './permissions.js';

describe('permissions', () => {
  it('maps roles to the codes of the contract', () => {
    const user = permissionsForRoles(['user']);
    expect(user).not.toContain('SERVICE_ADMIN');
    expect(user).not.toContain('SERVICE_QUOTA_OVERRIDE');
    expect(user).not.toContain('SERVICE_SUPER_ADMIN');
    expect(user).toHaveLength(PERMISSIONS.length - 3);
    expect(permissionsForRoles(['admin'])).toEqual(expect.arrayContaining(['SERVICE_ADMIN', 'SERVICE_QUOTA_OVERRIDE']));
    expect(permissionsForRoles(['admin'])).not.toContain('SERVICE_SUPER_ADMIN');
    expect(permissionsForRoles(['super_admin'])).toEqual([...PERMISSIONS]);
    expect(permissionsForRoles(['unknown'])).toEqual([]);
  });

  it('treats SERVICE_ADMIN and SERVICE_SUPER_ADMIN as catch-alls', () => {
    expect(hasPermission(['SERVICE_TASK_READ'], 'SERVICE_TASK_READ')).toBe(true);
    expect(hasPermission(['SERVICE_TASK_READ'], 'SERVICE_TASK_UPDATE')).toBe(false);
    expect(hasPermission(['SERVICE_ADMIN'], 'SERVICE_WEBHOOK_MANAGE')).toBe(true);
    expect(hasPermission(['SERVICE_ADMIN'], 'SERVICE_SUPER_ADMIN')).toBe(false);
    expect(hasPermission(['SERVICE_SUPER_ADMIN'], 'SERVICE_QUOTA_OVERRIDE')).toBe(true);
    expect(hasPermission(['SERVICE_WEBHOOK_READ'], ['SERVICE_WEBHOOK_READ', 'SERVICE_WEBHOOK_MANAGE'])).toBe(true);
    expect(hasPermission([], 'SERVICE_TASK_READ')).toBe(false);
  });
});
