import { grpcAddressesFromEnv, type ServiceName } from '@routinely/platform';

/** What the host needs of a module to wire it: its name and the services it calls over gRPC. */
export interface WiredModule {
  name: ServiceName;
  dependsOn: readonly ServiceName[];
}

/**
 * Fails before anything starts when the modules cannot be wired: a name twice, a module depending on
 * itself, or a dependency hosted in this process that would start after the module needing it (its gRPC
 * address is only known once it has started). Dependencies outside this process come from
 * `<SVC>_GRPC_ADDRESS`, checked by `grpcAddressesFromEnv`.
 */
export function checkStartOrder(modules: readonly WiredModule[]): void {
  const position = new Map<ServiceName, number>();
  modules.forEach((module, index) => {
    if (position.has(module.name)) throw new Error(`Service ${module.name} is listed twice in this process`);
    position.set(module.name, index);
  });
  modules.forEach((module, index) => {
    for (const dependency of module.dependsOn) {
      if (dependency === module.name) throw new Error(`Service ${module.name} cannot depend on itself`);
      const at = position.get(dependency);
      if (at !== undefined && at > index) {
        throw new Error(
          `Service ${module.name} depends on ${dependency}, which starts after it in this process: list ${dependency} before ${module.name}`,
        );
      }
    }
  });
}

/**
 * The gRPC address book of one host: addresses of services it started win over the configured ones.
 * A module may only ask for services it declared in `dependsOn`, so the declaration stays true.
 */
export class GrpcAddressBook {
  private readonly started = new Map<ServiceName, string>();
  private readonly configured: Record<ServiceName, string>;

  constructor(env: NodeJS.ProcessEnv) {
    this.configured = grpcAddressesFromEnv(env);
  }

  record(service: ServiceName, address: string): void {
    this.started.set(service, address);
  }

  address(service: ServiceName): string {
    return this.started.get(service) ?? this.configured[service];
  }

  /** The `grpcAddress` a module's context carries. */
  resolverFor(module: WiredModule): (service: ServiceName) => string {
    return (service) => {
      if (!module.dependsOn.includes(service)) {
        throw new Error(
          `Service ${module.name} asked for ${service}'s gRPC address without declaring dependsOn: ['${service}']`,
        );
      }
      return this.address(service);
    };
  }
}
