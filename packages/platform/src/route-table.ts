/**
 * Which service owns which public path. The all-in-one router, Envoy's generated routes and the drift test
 * all read this one table. Prefixes are after the mount (/api/v1 or /v1) unless `root` is set.
 */
export const SERVICE_NAMES = ['auth', 'calendar', 'task', 'scheduler', 'integration', 'delivery'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export interface RouteTableEntry {
  prefix: string;
  service: ServiceName;
  /** Served at the root, not under a mount. */
  root?: boolean;
}

export const ROUTE_TABLE: readonly RouteTableEntry[] = [
  { prefix: '/auth', service: 'auth' },
  { prefix: '/.well-known/jwks.json', service: 'auth', root: true },
  // The merged OpenAPI document and docs page are served by the auth service in distributed mode.
  { prefix: '/openapi.json', service: 'auth' },
  { prefix: '/docs', service: 'auth' },
  { prefix: '/calendars', service: 'calendar' },
  // Capture from text may call a language model under the spend quota, which the scheduler owns (ADR 062);
  // longer than `/service/tasks`, so it wins wherever the longest prefix does.
  { prefix: '/service/tasks/parse', service: 'scheduler' },
  { prefix: '/service/tasks', service: 'task' },
  { prefix: '/service/routine-tasks', service: 'task' },
  { prefix: '/service/calendar', service: 'task' },
  { prefix: '/service/dashboard', service: 'task' },
  { prefix: '/service/admin/health', service: 'task' },
  { prefix: '/service/schedule', service: 'scheduler' },
  { prefix: '/service/settings', service: 'scheduler' },
  { prefix: '/service/llm', service: 'scheduler' },
  { prefix: '/service/quota', service: 'scheduler' },
  { prefix: '/service/admin/quotas', service: 'scheduler' },
  { prefix: '/service/admin/tenant', service: 'scheduler' },
  { prefix: '/service/integrations', service: 'integration' },
  { prefix: '/service/webhooks', service: 'delivery' },
  { prefix: '/service/reminders', service: 'delivery' },
  { prefix: '/service/notifications', service: 'delivery' },
];

/**
 * The web console (ADR 101): behind the gateway, every path no entry above claims goes to this upstream, which
 * answers the console's files and client routes (and the API's problem+json 404 for an unknown API path). The
 * all-in-one serves the console on its own listener.
 */
export const CONSOLE_UPSTREAM = 'console';
export type UpstreamName = ServiceName | typeof CONSOLE_UPSTREAM;

const MOUNT = /^\/(?:api\/)?v1(?=\/)/;

/** The owning service of a request path (with or without a mount), by longest matching prefix. */
export function serviceForPath(path: string): ServiceName | undefined {
  const clean = path.split('?')[0] ?? path;
  const mounted = MOUNT.exec(clean);
  const rest = mounted ? clean.slice(mounted[0].length) : clean;
  let best: RouteTableEntry | undefined;
  for (const entry of ROUTE_TABLE) {
    const target = entry.root ? clean : mounted ? rest : undefined;
    if (target === undefined) continue;
    if (target === entry.prefix || target.startsWith(`${entry.prefix}/`)) {
      if (!best || entry.prefix.length > best.prefix.length) best = entry;
    }
  }
  return best?.service;
}
