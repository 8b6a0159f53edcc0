import { describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../src/index.js';
import { routeGuardGaps } from '../src/index.js';

const route = (method: string, path: string, extra: Partial<RegisteredRoute> = {}): RegisteredRoute => ({
  method,
  path,
  auth: 'required',
  permissions: [],
  validates: { body: false, params: path.includes(':'), querystring: false, headers: false },
  documented: true,
  ...extra,
});
const fixture = async () => ({ id: 'x' });

describe('route guard table coverage', () => {
  it('accepts a table agreeing with every registered route', () => {
    const routes = [
      route('GET', '/things/:id', { permissions: ['SERVICE_TASK_READ'] }),
      route('POST', '/login', {
        auth: 'none',
        validates: { body: true, params: false, querystring: false, headers: false },
      }),
      route('GET', '/health', { auth: 'none' }),
    ];
    expect(
      routeGuardGaps(routes, {
        'GET /things/:id': { permission: 'SERVICE_TASK_READ', fixture, invalid: { params: { id: 'nope' } } },
        'POST /login': { auth: { mode: 'none', reason: 'signs in' }, invalid: { body: {} } },
        'GET /health': { auth: { mode: 'none', reason: 'probe' } },
      }),
    ).toEqual([]);
  });

  it('fails for a route missing from the table, so no new route skips the guards', () => {
    const routes = [route('GET', '/health'), route('DELETE', '/things/:id')];
    expect(routeGuardGaps(routes, { 'GET /health': {} })).toEqual(['DELETE /things/:id: missing from the guard table']);
  });

  it('fails for stale entries and entries that disagree with the route', () => {
    const routes = [
      route('GET', '/things/:id', { permissions: ['SERVICE_TASK_READ'] }),
      route('GET', '/status', {
        auth: 'optional',
        validates: { body: false, params: false, querystring: true, headers: false },
      }),
    ];
    expect(
      routeGuardGaps(routes, {
        'GET /things/:id': { permission: 'SERVICE_TASK_UPDATE' },
        'GET /status': {},
        'GET /gone': {},
      }),
    ).toEqual([
      'GET /things/:id: the table says permission [SERVICE_TASK_UPDATE], the route [SERVICE_TASK_READ]',
      'GET /things/:id: validates input, so the table needs an invalid request',
      'GET /things/:id: needs a fixture creating its path ids',
      'GET /status: the table says auth required, the route optional',
      'GET /status: validates input, so the table needs an invalid request',
      'GET /gone: no such route',
    ]);
  });
});
