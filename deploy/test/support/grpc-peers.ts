import { SERVICE_NAMES } from '@routinely/platform';

/**
 * The services whose gRPC address the deploy files give every process (`<SVC>_GRPC_ADDRESS`): the scheduler
 * serves no gRPC (ADR 056), so no address of it is wired.
 */
export const GRPC_PEERS = SERVICE_NAMES.filter((service) => service !== 'scheduler');
