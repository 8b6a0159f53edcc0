import { PERMISSIONS, type Permission, problemCodesIn, problemSchema } from '@routinely/platform';
import type { TestTokens, TestUser } from '@routinely/platform/testing';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from './http.js';

type Ids = Record<string, string>;
type Method = NonNullable<InjectOptions['method']>;

/** How one route is exercised by the guard checks. Keys of a table are `METHOD /path/:param` after the mount. */
export interface RouteGuardCase<U> {
  /** Public or token-optional routes say so with the reason; the route's own config must agree. */
  auth?: { mode: 'none' | 'optional'; reason: string };
  /** The permission the route requires (the route's config must agree): 403 for a token lacking it. */
  permission?: Permission | readonly Permission[];
  /** Creates what the route addresses as `owner` (tenant A); answers every path parameter (and body ids). */
  fixture?: (owner: U) => Promise<Ids>;
  /** A body the route accepts, given the fixture's ids. */
  body?: (ids: Ids) => unknown;
  /** A query string (without `?`) the route needs. */
  query?: (ids: Ids) => string;
  /** Besides path parameters, the body names tenant A's resource, so tenant B gets 404 too. */
  bodyAddressesResource?: true;
  /** A request the route's schema rejects with 422 (overrides on the valid one); required when it validates input. */
  invalid?: { params?: Ids; body?: unknown; query?: string };
  /** A route whose contract answers bad input otherwise than 422 (OIDC back-channel logout: 400) says so. */
  invalidAnswer?: { status: number; reason: string };
  /** Headers every request of this case sends (content type of a CSV route). */
  headers?: Record<string, string>;
}

export type RouteGuardTable<U> = Record<string, RouteGuardCase<U>>;

/** What the checks drive: the routes the service registered, a way to call them and three kinds of user. */
export interface GuardTarget<U> {
  routes: RegisteredRoute[];
  call(
    user: U | null,
    method: Method,
    path: string,
    payload?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** A user of a fresh tenant (tenant A) allowed everything a user role may do. */
  owner(): Promise<U>;
  /** A user of another tenant with every permission short of super-admin. */
  stranger(): Promise<U>;
  /** A user of the owner's tenant holding every user permission except `missing`. */
  lacking(missing: readonly Permission[], like: U): Promise<U>;
}

/** A guard target for services verifying test tokens; `register` adds each user where the service looks users up. */
export function tokenGuardTarget(
  h: { routes: RegisteredRoute[]; tokens: TestTokens; call: GuardTarget<TestUser>['call'] },
  register: (user: TestUser) => TestUser = (user) => user,
): GuardTarget<TestUser> {
  const elevated: Permission[] = ['SERVICE_ADMIN', 'SERVICE_SUPER_ADMIN'];
  return {
    routes: h.routes,
    call: (user, method, path, payload, headers) => h.call(user, method, path, payload, headers),
    owner: async () => register(h.tokens.user()),
    stranger: async () =>
      register(
        h.tokens.user({ roles: ['admin'], permissions: PERMISSIONS.filter((p) => p !== 'SERVICE_SUPER_ADMIN') }),
      ),
    lacking: async (missing, like) =>
      register(
        h.tokens.user({
          tenantId: like.tenantId,
          permissions: PERMISSIONS.filter((p) => !missing.includes(p) && !elevated.includes(p)),
        }),
      ),
  };
}

const routeKey = (route: RegisteredRoute) => `${route.method} ${route.path}`;
/** A query parameter no route declares. */
const UNKNOWN_QUERY = 'zz_unknown';

function fill(path: string, ids: Ids): string {
  return path.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    const id = ids[name];
    if (id === undefined) throw new Error(`the fixture of ${path} answers no ${name}`);
    return encodeURIComponent(id);
  });
}

/**
 * What is wrong between the routes a service registered and its guard table: a route without an entry, an
 * entry without a route, or an entry disagreeing with the route's auth mode, permission or validation.
 */
export function routeGuardGaps<U>(routes: readonly RegisteredRoute[], table: RouteGuardTable<U>): string[] {
  const gaps: string[] = [];
  const registered = new Map(routes.map((r) => [routeKey(r), r]));
  for (const key of registered.keys()) if (!(key in table)) gaps.push(`${key}: missing from the guard table`);
  for (const [key, entry] of Object.entries(table)) {
    const route = registered.get(key);
    if (!route) {
      gaps.push(`${key}: no such route`);
      continue;
    }
    const mode = entry.auth?.mode ?? 'required';
    if (mode !== route.auth) gaps.push(`${key}: the table says auth ${mode}, the route ${route.auth}`);
    const permissions = [entry.permission ?? []].flat();
    if (permissions.join() !== route.permissions.join()) {
      gaps.push(`${key}: the table says permission [${permissions}], the route [${route.permissions}]`);
    }
    const validates = Object.values(route.validates).some(Boolean);
    if (validates && !entry.invalid) gaps.push(`${key}: validates input, so the table needs an invalid request`);
    if (!validates && entry.invalid) gaps.push(`${key}: validates nothing, so no invalid request applies`);
    if (route.path.includes(':') && !entry.fixture) gaps.push(`${key}: needs a fixture creating its path ids`);
  }
  return gaps;
}

type Json = Record<string, unknown>;

/** The statuses a route answers by the platform's rules, from its guard-table entry and what it validates. */
function statusesOf<U>(key: string, entry: RouteGuardCase<U>, route: RegisteredRoute | undefined): number[] {
  const statuses: number[] = [];
  if ((entry.auth?.mode ?? 'required') === 'required') statuses.push(401);
  if ([entry.permission ?? []].flat().length > 0) statuses.push(403);
  if (key.includes(':') || entry.bodyAddressesResource) statuses.push(404);
  if (entry.invalid) statuses.push(entry.invalidAnswer?.status ?? 422);
  if (route?.validates.body && !entry.invalidAnswer) statuses.push(413, 415);
  return statuses;
}

/**
 * What the service's OpenAPI document leaves out: a status a route answers (401 without a token, 403 without
 * its permission, 404 for another tenant's id, 422 or its own answer to invalid input, 413/415 for a body) that
 * its operation does not list, or an error answer whose description names no code of the error table with
 * that status, or whose example is not one of the codes it names.
 */
export function documentationGaps<U>(
  document: Json,
  routes: readonly RegisteredRoute[],
  table: RouteGuardTable<U>,
): string[] {
  const gaps: string[] = [];
  const paths = document.paths as Record<string, Record<string, { responses: Record<string, Json> }>>;
  const shared = ((document.components as Json | undefined)?.responses ?? {}) as Record<string, Json>;
  const resolve = (response: Json): Json =>
    typeof response.$ref === 'string' ? (shared[response.$ref.split('/').pop() ?? ''] ?? {}) : response;
  const registered = new Map(routes.map((r) => [routeKey(r), r]));
  for (const [key, entry] of Object.entries(table)) {
    const [method, path] = key.split(' ') as [string, string];
    const operation = paths[`/api/v1${path.replace(/:([A-Za-z_]+)/g, '{$1}')}`]?.[method.toLowerCase()];
    if (!operation) continue;
    for (const status of statusesOf(key, entry, registered.get(key))) {
      if (!(String(status) in operation.responses)) gaps.push(`${key}: answers ${status}, not documented`);
    }
    for (const [code, raw] of Object.entries(operation.responses)) {
      const status = Number(code);
      const response = resolve(raw);
      const media = (response.content as Record<string, Json> | undefined)?.['application/problem+json'];
      if (status < 400 || !media) continue;
      const codes = problemCodesIn(String(response.description ?? ''), status);
      if (codes.length === 0) gaps.push(`${key} ${status}: the description names no problem code`);
      const example = (media.example as { code?: string } | undefined)?.code;
      if (!codes.some((c) => c === example)) gaps.push(`${key} ${status}: the example's code ${example} is not named`);
    }
  }
  return gaps;
}

/**
 * The platform guards, checked for every route a service registers: each route must have an entry in the
 * table (a new route without one fails), and each entry gets 401 without a token, 403 without its
 * permission, 404 for tenant A's resource asked by tenant B, and 422 for an invalid request.
 */
export function runRouteGuards<U>(name: string, target: () => GuardTarget<U>, table: RouteGuardTable<U>): void {
  describe(`${name} route guards`, () => {
    let owner: U;
    const fixtures = new Map<string, Promise<Ids>>();
    beforeAll(async () => {
      owner = await target().owner();
    });
    const idsFor = (key: string, entry: RouteGuardCase<U>) => {
      if (!fixtures.has(key)) fixtures.set(key, entry.fixture ? entry.fixture(owner) : Promise.resolve({}));
      return fixtures.get(key) as Promise<Ids>;
    };
    const request = async (key: string, entry: RouteGuardCase<U>, user: U | null, ids?: Ids) => {
      const [method, path] = key.split(' ') as [Method, string];
      const values = ids ?? (await idsFor(key, entry));
      const query = entry.query?.(values);
      return target().call(
        user,
        method,
        `${fill(path, values)}${query ? `?${query}` : ''}`,
        entry.body?.(values),
        entry.headers,
      );
    };

    it('has an entry for every registered route, agreeing with its auth, permission and validation', () => {
      expect(target().routes.length).toBeGreaterThan(0);
      expect(routeGuardGaps(target().routes, table)).toEqual([]);
    });

    it('documents every status those checks answer, each error naming its problem codes', async () => {
      const res = await target().call(null, 'GET', '/openapi.json');
      expect(res.statusCode).toBe(200);
      expect(documentationGaps(res.json(), target().routes, table)).toEqual([]);
    });

    for (const [key, entry] of Object.entries(table)) {
      const mode = entry.auth?.mode ?? 'required';
      if (mode === 'required') {
        it(`${key}: 401 without a token`, async () => {
          const res = await request(key, entry, null);
          expect(res.statusCode, res.body).toBe(401);
          expect(res.headers['www-authenticate']).toBe('Bearer');
          expect(res.json().code).toBe('not_authenticated');
        });
      }
      const permissions = [entry.permission ?? []].flat();
      if (permissions.length > 0) {
        it(`${key}: 403 with a token lacking ${permissions.join(' or ')}`, async () => {
          const lacking = await target().lacking(permissions, owner);
          const res = await request(key, entry, lacking);
          expect(res.statusCode, res.body).toBe(403);
          expect(res.json().code).toBe('forbidden');
        });
      }
      // A public route's path is its own credential (a feed token, a channel id): no tenant owns the caller.
      if ((key.includes(':') && mode !== 'none') || entry.bodyAddressesResource) {
        it(`${key}: 404 for another tenant's resource`, async () => {
          const stranger = await target().stranger();
          const res = await request(key, entry, stranger);
          expect(res.statusCode, res.body).toBe(404);
          expect(res.json().code).toBe('not_found');
        });
      }
      const invalid = entry.invalid;
      if (invalid) {
        const expected = entry.invalidAnswer?.status ?? 422;
        it(`${key}: ${expected} for an invalid request`, async () => {
          const ids = { ...(await idsFor(key, entry)), ...invalid.params };
          const [method, path] = key.split(' ') as [Method, string];
          const query = invalid.query ?? entry.query?.(ids);
          const body = 'body' in invalid ? invalid.body : entry.body?.(ids);
          const res = await target().call(
            owner,
            method,
            `${fill(path, ids)}${query ? `?${query}` : ''}`,
            body,
            entry.headers,
          );
          expect(res.statusCode, res.body).toBe(expected);
          if (!entry.invalidAnswer) {
            expect(res.json()).toMatchObject({ code: 'validation_failed', errors: expect.any(Array) });
          }
          // The Problem schema of the document, `loc` naming the request part by its one spelling.
          expect(problemSchema.safeParse(res.json()).error?.issues ?? [], res.body).toEqual([]);
        });
      }
      // A documented route refuses a query parameter it does not know, named `query` like every 422 (ADR 071).
      if (!entry.invalidAnswer) {
        it(`${key}: 422 naming query.${UNKNOWN_QUERY} for an unknown query parameter`, async (context) => {
          const route = target().routes.find((r) => routeKey(r) === key);
          // Left out of the document (providers' callbacks stay lenient), or no valid body to get past.
          if (!route?.documented || (route.validates.body && !entry.body)) return context.skip();
          const ids = await idsFor(key, entry);
          const [method, path] = key.split(' ') as [Method, string];
          const query = [entry.query?.(ids), `${UNKNOWN_QUERY}=1`].filter(Boolean).join('&');
          // Validation comes before the handler: a user holding every permission is refused for the query alone.
          const anyone = await target().stranger();
          const res = await target().call(
            anyone,
            method,
            `${fill(path, ids)}?${query}`,
            entry.body?.(ids),
            entry.headers,
          );
          expect(res.statusCode, res.body).toBe(422);
          expect(problemSchema.safeParse(res.json()).error?.issues ?? [], res.body).toEqual([]);
          expect(res.json().errors.map((e: { loc: unknown[] }) => e.loc)).toContainEqual(['query', UNKNOWN_QUERY]);
        });
      }
    }
  });
}
