import { CONSOLE_UPSTREAM, ROUTE_TABLE, SERVICE_NAMES, type UpstreamName } from './route-table.js';

/** Port every service's HTTP listener uses inside the cluster (distributed mode). */
export const SERVICE_HTTP_PORT = 8080;
/** Envoy's public listener and its admin (stats, /ready) listener. */
export const ENVOY_LISTENER_PORT = 8080;
export const ENVOY_ADMIN_PORT = 9901;

export interface EnvoyOptions {
  /**
   * DNS name of a service's pods. Envoy resolves it with STRICT_DNS and balances over every address, so in
   * Kubernetes it is a headless Service (one A record per ready pod). Default `routinely-<svc>`.
   */
  upstreamHost?: (upstream: UpstreamName) => string;
  /**
   * How many proxies in front of Envoy append to X-Forwarded-For and are trusted (0: Envoy's TCP peer is the
   * client). A string is written as is: the Helm chart's copy carries a placeholder the template fills.
   */
  xffNumTrustedHops?: number | string;
}

const typed = (type: string, rest: Record<string, unknown> = {}) => ({
  '@type': `type.googleapis.com/${type}`,
  ...rest,
});

/** One JSON line per request on stdout: no query string (OAuth codes, tokens), no headers but the request id. */
const accessLog = {
  name: 'envoy.access_loggers.stdout',
  typed_config: typed('envoy.extensions.access_loggers.stream.v3.StdoutAccessLog', {
    log_format: {
      json_format: {
        time: '%START_TIME%',
        method: '%REQ(:METHOD)%',
        path: '%REQ_WITHOUT_QUERY(X-ENVOY-ORIGINAL-PATH?:PATH)%',
        protocol: '%PROTOCOL%',
        status: '%RESPONSE_CODE%',
        flags: '%RESPONSE_FLAGS%',
        duration_ms: '%DURATION%',
        bytes_in: '%BYTES_RECEIVED%',
        bytes_out: '%BYTES_SENT%',
        client: '%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%',
        request_id: '%REQ(X-REQUEST-ID)%',
        upstream: '%UPSTREAM_CLUSTER%',
        upstream_host: '%UPSTREAM_HOST%',
      },
      formatters: [
        {
          name: 'envoy.formatter.req_without_query',
          typed_config: typed('envoy.extensions.formatter.req_without_query.v3.ReqWithoutQuery'),
        },
      ],
    },
  }),
};

/**
 * Envoy's static configuration, derived from ROUTE_TABLE: /v1/... is rewritten to /api/v1/..., each
 * prefix goes to the cluster of the service that owns it (longest prefix first, as Envoy takes the first match).
 * The client address Envoy settles on (its peer, or the trusted hop of X-Forwarded-For) replaces the
 * X-Forwarded-For header the services see, so TRUST_PROXY=true there reads exactly that one address and a
 * client cannot choose its own rate-limit bucket.
 */
/**
 * Envoy's own answers (no route, no healthy upstream, upstream timeout) as problem+json like every other error
 * (contract): a fixed detail, never Envoy's reason text ("upstream connect error ... reset reason"), which is
 * an internal. A 404 from Envoy means no route, so it reads as the services' own unknown-path answer.
 */
const problem = (code: string, title: string, detail: string) => ({
  json_format: {
    type: 'about:blank',
    title,
    status: '%RESPONSE_CODE%',
    detail,
    code,
    request_id: '%REQ(X-REQUEST-ID)%',
  },
  content_type: 'application/problem+json',
});
const localReplyConfig = {
  mappers: [
    {
      filter: {
        status_code_filter: {
          comparison: { op: 'EQ', value: { default_value: 404, runtime_key: 'routinely.local_reply.not_found' } },
        },
      },
      body_format_override: problem('not_found', 'Not found', 'No operation is served at this path'),
    },
  ],
  body_format: problem(
    'service_unavailable',
    'Service unavailable',
    'The service that answers this path is unavailable; retry shortly',
  ),
};

/**
 * A request that never reached a replica is sent to another, whatever its method, as nothing was received:
 * connection refused (a pod gone or restarting), or a pooled connection the replica had already closed when
 * the request went out (reset before the request; a replica killed between two requests of a keep-alive
 * connection). One that a replica received is never repeated. A rolling restart or a crashed replica therefore
 * costs the client nothing while another replica is up.
 */
const retryPolicy = { retry_on: 'connect-failure,reset-before-request', num_retries: 2 };

const UPSTREAMS: readonly UpstreamName[] = [...SERVICE_NAMES, CONSOLE_UPSTREAM];

export function renderEnvoyConfig(options: EnvoyOptions = {}): Record<string, unknown> {
  const host = options.upstreamHost ?? ((upstream: UpstreamName) => `routinely-${upstream}`);
  const entries = [...ROUTE_TABLE].sort((a, b) => b.prefix.length - a.prefix.length);
  const routes: unknown[] = [];
  for (const entry of entries) {
    if (entry.root) {
      routes.push({
        match: { path: entry.prefix },
        route: { cluster: entry.service, timeout: '30s', retry_policy: retryPolicy },
      });
      continue;
    }
    for (const mount of ['/api/v1', '/v1']) {
      const route: Record<string, unknown> = { cluster: entry.service, timeout: '30s', retry_policy: retryPolicy };
      if (mount === '/v1') route.regex_rewrite = { pattern: { regex: '^/v1/' }, substitution: '/api/v1/' };
      routes.push({ match: { path: `${mount}${entry.prefix}` }, route });
      routes.push({ match: { prefix: `${mount}${entry.prefix}/` }, route });
    }
  }
  // Last, as Envoy takes the first match: whatever no service claims is the console's.
  routes.push({
    match: { prefix: '/' },
    route: { cluster: CONSOLE_UPSTREAM, timeout: '30s', retry_policy: retryPolicy },
  });
  return {
    admin: { address: { socket_address: { address: '0.0.0.0', port_value: ENVOY_ADMIN_PORT } } },
    static_resources: {
      listeners: [
        {
          name: 'public',
          address: { socket_address: { address: '0.0.0.0', port_value: ENVOY_LISTENER_PORT } },
          filter_chains: [
            {
              filters: [
                {
                  name: 'envoy.filters.network.http_connection_manager',
                  typed_config: typed(
                    'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
                    {
                      stat_prefix: 'public',
                      use_remote_address: true,
                      xff_num_trusted_hops: options.xffNumTrustedHops ?? 0,
                      // `/api/v1/service/tasks/../admin/x` is routed as what the service will see.
                      normalize_path: true,
                      merge_slashes: true,
                      access_log: [accessLog],
                      local_reply_config: localReplyConfig,
                      route_config: {
                        name: 'routinely',
                        virtual_hosts: [
                          {
                            name: 'api',
                            domains: ['*'],
                            request_headers_to_add: [
                              {
                                header: { key: 'x-forwarded-for', value: '%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%' },
                                append_action: 'OVERWRITE_IF_EXISTS_OR_ADD',
                              },
                            ],
                            routes,
                          },
                        ],
                      },
                      http_filters: [
                        {
                          name: 'envoy.filters.http.router',
                          typed_config: typed('envoy.extensions.filters.http.router.v3.Router'),
                        },
                      ],
                    },
                  ),
                },
              ],
            },
          ],
        },
      ],
      clusters: UPSTREAMS.map((service) => ({
        name: service,
        type: 'STRICT_DNS',
        dns_refresh_rate: '5s',
        connect_timeout: '2s',
        lb_policy: 'ROUND_ROBIN',
        // Below Node's 72 s keep-alive, so Envoy never reuses a connection the service is closing.
        typed_extension_protocol_options: {
          'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': typed(
            'envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
            {
              common_http_protocol_options: { idle_timeout: '60s' },
              explicit_http_config: { http_protocol_options: {} },
            },
          ),
        },
        load_assignment: {
          cluster_name: service,
          endpoints: [
            {
              lb_endpoints: [
                {
                  endpoint: { address: { socket_address: { address: host(service), port_value: SERVICE_HTTP_PORT } } },
                },
              ],
            },
          ],
        },
        health_checks: [
          {
            timeout: '2s',
            interval: '10s',
            unhealthy_threshold: 3,
            healthy_threshold: 1,
            http_health_check: { path: '/readyz' },
          },
        ],
      })),
    },
  };
}
