import { SERVICE_NAMES, type ServiceName } from './route-table.js';

/**
 * Where each service's gRPC server answers, one convention for every host: `<SVC>_GRPC_ADDRESS`
 * (AUTH_GRPC_ADDRESS, ...), defaulting to the service's in-cluster name on the chart's gRPC port. The
 * all-in-one prefers the address it started a service on; the Helm chart sets all six for every pod.
 */
export const GRPC_PORT_DEFAULT = 50051;

export function grpcAddressVariable(service: ServiceName): string {
  return `${service.toUpperCase()}_GRPC_ADDRESS`;
}

export function defaultGrpcAddress(service: ServiceName): string {
  return `routinely-${service}:${GRPC_PORT_DEFAULT}`;
}

const HOST_PORT = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;
/**
 * Or a gRPC target listing the replicas' addresses (`ipv4:10.0.0.7:50051,10.0.0.8:50051`), which clients balance
 * round robin as they do the addresses of a headless Service: replicas on one machine have no DNS name.
 */
const ADDRESS_LIST = /^ipv4:(?:\d{1,3}(?:\.\d{1,3}){3}:\d{1,5})(?:,\d{1,3}(?:\.\d{1,3}){3}:\d{1,5})*$/;

/**
 * Every service's configured address (the variable, else the default). A malformed value fails here,
 * naming the variable, rather than at the first call.
 */
export function grpcAddressesFromEnv(env: NodeJS.ProcessEnv): Record<ServiceName, string> {
  const out = {} as Record<ServiceName, string>;
  const bad: string[] = [];
  for (const service of SERVICE_NAMES) {
    const variable = grpcAddressVariable(service);
    const value = env[variable]?.trim() || defaultGrpcAddress(service);
    if (!HOST_PORT.test(value) && !ADDRESS_LIST.test(value)) {
      bad.push(`${variable}=${JSON.stringify(value)} is not host:port`);
    }
    out[service] = value;
  }
  if (bad.length) throw new Error(`Invalid gRPC addresses: ${bad.join('; ')}`);
  return out;
}
