import { describe, expect, it } from 'vitest';
import { serviceForPath } from './route-table.js';

describe('route table', () => {
  it.each([
    ['/api/v1/auth/login', 'auth'],
    ['/v1/auth/me', 'auth'],
    ['/.well-known/jwks.json', 'auth'],
    ['/api/v1/calendars/123/items?start_date=x', 'calendar'],
    ['/api/v1/service/tasks/abc/tree', 'task'],
    ['/v1/service/routine-tasks/tree', 'task'],
    ['/api/v1/service/admin/health', 'task'],
    ['/api/v1/service/admin/quotas/u1', 'scheduler'],
    ['/api/v1/service/admin/tenant/settings', 'scheduler'],
    ['/api/v1/service/webhooks/1/test', 'delivery'],
    ['/v1/service/integrations/google/oauth/start', 'integration'],
  ])('%s belongs to %s', (path, service) => {
    expect(serviceForPath(path)).toBe(service);
  });

  it('matches whole segments only and needs a mount', () => {
    expect(serviceForPath('/api/v1/service/tasksx')).toBeUndefined();
    expect(serviceForPath('/auth/login')).toBeUndefined();
    expect(serviceForPath('/api/v2/auth/login')).toBeUndefined();
  });
});
