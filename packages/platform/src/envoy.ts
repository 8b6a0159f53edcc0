import { ROUTE_TABLE, SERVICE_NAMES, type ServiceName } from './route-table.js';

/** Port every service's HTTP listener uses inside the cluster (distributed mode). */
export const SERVICE_HTTP_PORT = 8080;

/**
 * Envoy's static configuration, derived from ROUTE_TABLE: /v1/... is rewritten to /api/v1/..., each
 * prefix goes to the cluster of the service that owns it (longest prefix first, as Envoy takes the first match).
 */
export function renderEnvoyConfig(options: { namespaceSuffix?: string } = {}): Record<string, unknown> {
  const host = (service: ServiceName) => `routinely-${service}${options.namespaceSuffix ?? ''}`;
  const entries = [...ROUTE_TABLE].sort((a, b) => b.prefix.length - a.prefix.length);
  const routes: unknown[] = [];
  for (const entry of entries) {
    if (entry.root) {
      routes.push({ match: { path: entry.prefix }, route: { cluster: entry.service, timeout: '30s' } });
      continue;
    }
    for (const mount of ['/api/v1', '/v1']) {
      const route: Record<string, unknown> = { cluster: entry.service, timeout: '30s' };
      if (mount === '/v1') route.regex_rewrite = { pattern: { regex: '^/v1/' }, substitution: '/api/v1/' };
      routes.push({ match: { path: `${mount}${entry.prefix}` }, route });
      routes.push({ match: { prefix: `${mount}${entry.prefix}/` }, route });
    }
  }
  return {
    static_resources: {
      listeners: [
        {
          name: 'public',
          address: { socket_address: { address: '0.0.0.0', port_value: 8080 } },
          filter_chains: [
            {
              filters: [
                {
                  name: 'envoy.filters.network.http_connection_manager',
                  typed_config: {
                    '@type':
                      'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
                    stat_prefix: 'public',
                    use_remote_address: true,
                    xff_num_trusted_hops: 0,
                    route_config: { name: 'routinely', virtual_hosts: [{ name: 'api', domains: ['*'], routes }] },
                    http_filters: [
                      {
                        name: 'envoy.filters.http.router',
                        typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' },
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
      clusters: SERVICE_NAMES.map((service) => ({
        name: service,
        type: 'STRICT_DNS',
        connect_timeout: '2s',
        lb_policy: 'ROUND_ROBIN',
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
