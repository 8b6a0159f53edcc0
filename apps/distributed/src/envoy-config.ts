import { parse } from 'yaml';
import { z } from 'zod';

/**
 * The part of an Envoy static configuration the test gateway acts on, read from the generated envoy.yaml
 * itself (not from the route table it was generated from), so a wrong file fails the tests that go through it.
 * Every field that changes where or how a request is routed is read strictly: a route, match or cluster
 * setting this gateway does not implement fails here, rather than being silently ignored. Observability
 * (access log, admin) is left to Envoy.
 */

/** Envoy durations as protobuf JSON writes them: "30s", "0.5s". */
const duration = z
  .string()
  .regex(/^\d+(\.\d+)?s$/, 'a duration like "30s"')
  .transform((s) => Math.round(Number(s.slice(0, -1)) * 1000));

const socketAddress = z.object({ address: z.string().min(1), port_value: z.number().int().min(0).max(65535) });

const routeAction = z
  .object({
    cluster: z.string().min(1),
    timeout: duration.optional(),
    regex_rewrite: z
      .object({ pattern: z.object({ regex: z.string() }).strict(), substitution: z.string() })
      .strict()
      .optional(),
    retry_policy: z
      .object({
        retry_on: z.string(),
        num_retries: z.number().int().min(0).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const route = z
  .object({
    match: z.union([z.object({ path: z.string() }).strict(), z.object({ prefix: z.string() }).strict()]),
    route: routeAction,
  })
  .strict();

const headerToAdd = z
  .object({
    header: z.object({ key: z.string(), value: z.string() }).strict(),
    append_action: z.literal('OVERWRITE_IF_EXISTS_OR_ADD'),
  })
  .strict();

const bodyFormat = z
  .object({ json_format: z.record(z.string(), z.unknown()), content_type: z.string().optional() })
  .strict();

const localReplyConfig = z
  .object({
    mappers: z
      .array(
        z
          .object({
            filter: z
              .object({
                status_code_filter: z.object({
                  comparison: z.object({
                    op: z.literal('EQ'),
                    value: z.object({ default_value: z.number().int(), runtime_key: z.string() }).strict(),
                  }),
                }),
              })
              .strict(),
            body_format_override: bodyFormat,
          })
          .strict(),
      )
      .optional(),
    body_format: bodyFormat.optional(),
  })
  .strict();

export interface LocalReplyFormat {
  jsonFormat: Record<string, unknown>;
  contentType: string;
}
const replyFormat = (f: z.infer<typeof bodyFormat>): LocalReplyFormat => ({
  jsonFormat: f.json_format,
  contentType: f.content_type ?? 'application/json',
});

const connectionManager = z.object({
  stat_prefix: z.string(),
  use_remote_address: z.boolean().optional(),
  xff_num_trusted_hops: z.number().int().min(0).optional(),
  normalize_path: z.boolean().optional(),
  merge_slashes: z.boolean().optional(),
  local_reply_config: localReplyConfig.optional(),
  route_config: z.object({
    name: z.string(),
    virtual_hosts: z
      .array(
        z
          .object({
            name: z.string(),
            domains: z.array(z.literal('*')).length(1),
            request_headers_to_add: z.array(headerToAdd).optional(),
            routes: z.array(route).min(1),
          })
          .strict(),
      )
      .length(1),
  }),
  http_filters: z.array(z.object({ name: z.literal('envoy.filters.http.router') }).passthrough()).length(1),
});

const listener = z.object({
  name: z.string(),
  address: z.object({ socket_address: socketAddress }),
  filter_chains: z
    .array(
      z.object({
        filters: z
          .array(
            z.object({
              name: z.literal('envoy.filters.network.http_connection_manager'),
              typed_config: connectionManager.passthrough(),
            }),
          )
          .length(1),
      }),
    )
    .length(1),
});

const cluster = z.object({
  name: z.string().min(1),
  type: z.enum(['STRICT_DNS', 'STATIC', 'LOGICAL_DNS']),
  connect_timeout: duration,
  lb_policy: z.literal('ROUND_ROBIN'),
  load_assignment: z.object({
    cluster_name: z.string(),
    endpoints: z
      .array(
        z.object({
          lb_endpoints: z
            .array(z.object({ endpoint: z.object({ address: z.object({ socket_address: socketAddress }) }) }))
            .min(1),
        }),
      )
      .min(1),
  }),
  health_checks: z
    .array(
      z.object({
        timeout: duration,
        interval: duration,
        unhealthy_threshold: z.number().int().min(1),
        healthy_threshold: z.number().int().min(1),
        http_health_check: z.object({ path: z.string().startsWith('/') }),
      }),
    )
    .max(1)
    .optional(),
});

const envoyFile = z.object({
  static_resources: z.object({ listeners: z.array(listener).min(1), clusters: z.array(cluster).min(1) }),
});

export interface GatewayRoute {
  /** Exact path or path prefix, as Envoy matches them (first match wins). */
  match: { path: string } | { prefix: string };
  cluster: string;
  timeoutMs: number;
  rewrite?: { pattern: RegExp; substitution: string };
  /** Envoy's retry_on conditions (comma-separated in the file) and how many retries. */
  retry?: { on: string[]; numRetries: number };
}

export interface GatewayCluster {
  name: string;
  /** The addresses the file names (DNS names in the cluster); the harness maps them to local ports. */
  addresses: string[];
  connectTimeoutMs: number;
  healthCheck?: {
    path: string;
    intervalMs: number;
    timeoutMs: number;
    unhealthyThreshold: number;
    healthyThreshold: number;
  };
}

export interface GatewayConfig {
  listener: { name: string; port: number };
  normalizePath: boolean;
  mergeSlashes: boolean;
  /** Headers set on every upstream request; the value is an Envoy command operator or a literal. */
  requestHeaders: { key: string; value: string }[];
  /** The JSON bodies Envoy writes for its own replies (no route, no healthy upstream, timeout): by status, else the default. */
  localReply: { byStatus: Map<number, LocalReplyFormat>; default?: LocalReplyFormat };
  routes: GatewayRoute[];
  clusters: Map<string, GatewayCluster>;
}

/** Reads the public listener (the first one) and every cluster of an Envoy YAML file. */
export function readEnvoyConfig(yamlText: string): GatewayConfig {
  const file = envoyFile.parse(parse(yamlText, { maxAliasCount: -1 }));
  const [first] = file.static_resources.listeners;
  if (!first) throw new Error('envoy.yaml has no listener');
  const [chain] = first.filter_chains;
  const manager = chain?.filters[0]?.typed_config;
  const host = manager?.route_config.virtual_hosts[0];
  if (!manager || !host) throw new Error(`listener ${first.name} has no HTTP connection manager`);
  const clusters = new Map<string, GatewayCluster>();
  for (const c of file.static_resources.clusters) {
    if (c.load_assignment.cluster_name !== c.name) {
      throw new Error(`cluster ${c.name}: load_assignment names ${c.load_assignment.cluster_name}`);
    }
    const check = c.health_checks?.[0];
    clusters.set(c.name, {
      name: c.name,
      addresses: c.load_assignment.endpoints.flatMap((e) =>
        e.lb_endpoints.map(
          (l) => `${l.endpoint.address.socket_address.address}:${l.endpoint.address.socket_address.port_value}`,
        ),
      ),
      connectTimeoutMs: c.connect_timeout,
      ...(check
        ? {
            healthCheck: {
              path: check.http_health_check.path,
              intervalMs: check.interval,
              timeoutMs: check.timeout,
              unhealthyThreshold: check.unhealthy_threshold,
              healthyThreshold: check.healthy_threshold,
            },
          }
        : {}),
    });
  }
  const routes = host.routes.map((r): GatewayRoute => {
    if (!clusters.has(r.route.cluster))
      throw new Error(`a route names cluster ${r.route.cluster}, which is not defined`);
    return {
      match: r.match,
      cluster: r.route.cluster,
      // Envoy's default route timeout is 15 s.
      timeoutMs: r.route.timeout ?? 15_000,
      ...(r.route.regex_rewrite
        ? {
            rewrite: {
              pattern: new RegExp(r.route.regex_rewrite.pattern.regex),
              substitution: r.route.regex_rewrite.substitution,
            },
          }
        : {}),
      ...(r.route.retry_policy
        ? {
            retry: {
              on: r.route.retry_policy.retry_on.split(',').map((s) => s.trim()),
              numRetries: r.route.retry_policy.num_retries ?? 1,
            },
          }
        : {}),
    };
  });
  const reply = manager.local_reply_config;
  const byStatus = new Map<number, LocalReplyFormat>(
    (reply?.mappers ?? []).map((m) => [
      m.filter.status_code_filter.comparison.value.default_value,
      replyFormat(m.body_format_override),
    ]),
  );
  return {
    listener: { name: first.name, port: first.address.socket_address.port_value },
    normalizePath: manager.normalize_path ?? false,
    mergeSlashes: manager.merge_slashes ?? false,
    requestHeaders: (host.request_headers_to_add ?? []).map((h) => h.header),
    localReply: { byStatus, ...(reply?.body_format ? { default: replyFormat(reply.body_format) } : {}) },
    routes,
    clusters,
  };
}

/** Envoy's routing decision for a path: the first route that matches, and the path sent upstream. */
export function routeFor(
  config: GatewayConfig,
  path: string,
): { route: GatewayRoute; upstreamPath: string } | undefined {
  for (const route of config.routes) {
    const hit = 'path' in route.match ? path === route.match.path : path.startsWith(route.match.prefix);
    if (!hit) continue;
    const upstreamPath = route.rewrite ? path.replace(route.rewrite.pattern, route.rewrite.substitution) : path;
    return { route, upstreamPath };
  }
  return undefined;
}
