import {
  type ChannelCredentials,
  credentials,
  type handleUnaryCall,
  Metadata,
  makeGenericClientConstructor,
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type ServiceError,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { AppError, ERROR_TABLE, type ErrorCode, type RpcServiceRegistry } from '@routinely/platform';
import type { CallerIdentity, InternalAuth } from './identity.js';
import { withClientSpan, withServerSpan } from './tracing.js';

type AnyMethod = {
  path: string;
  requestSerialize: (value: never) => Buffer;
  responseDeserialize: (b: Buffer) => unknown;
};
type Req<M> = M extends { requestSerialize: (value: infer R) => Buffer } ? R : never;
type Res<M> = M extends { responseDeserialize: (b: Buffer) => infer R } ? R : never;

export interface CallOptions {
  /** Acting user; omitted for calls a service makes on its own behalf. */
  actor?: { tenantId?: string | null; userId?: string | null; permissions?: string[] };
  deadlineMs?: number;
}

/** A promise-returning client of one generated service definition. */
export type RpcClient<D> = { [K in keyof D]: (request: Req<D[K]>, options?: CallOptions) => Promise<Res<D[K]>> } & {
  close(): void;
};

const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  [status.INVALID_ARGUMENT]: 'validation_failed',
  [status.UNAUTHENTICATED]: 'not_authenticated',
  [status.PERMISSION_DENIED]: 'forbidden',
  [status.NOT_FOUND]: 'not_found',
  [status.ALREADY_EXISTS]: 'conflict',
  [status.ABORTED]: 'conflict',
  [status.FAILED_PRECONDITION]: 'conflict',
  [status.RESOURCE_EXHAUSTED]: 'quota_exceeded',
  [status.UNAVAILABLE]: 'service_unavailable',
  [status.DEADLINE_EXCEEDED]: 'service_unavailable',
};

/**
 * Calls go round-robin over every address the name resolves to: in Kubernetes the peer is a headless Service
 * (one address per ready pod), so calls spread over its replicas instead of riding one pinned connection.
 */
const CLIENT_CHANNEL_OPTIONS = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};

/**
 * Servers close each connection after a few minutes (in-flight calls get a grace period), so clients
 * resolve the name again and find replicas added since they connected.
 */
export const RPC_SERVER_OPTIONS = {
  'grpc.max_connection_age_ms': 5 * 60_000,
  'grpc.max_connection_age_grace_ms': 30_000,
};

/** Trailer naming the error code a handler threw: its message is then the handler's own, safe to show. */
const ERROR_CODE_TRAILER = 'routinely-error-code';

/**
 * The caller's view of a failed call. A handler's typed error keeps its code and message; a failure of the
 * transport itself (peer down, connection refused, deadline) says which service did not answer and keeps
 * grpc-js's reason ("round_robin: No connection established ...") only on the cause, for the logs.
 */
function callError(error: ServiceError, peer: string): AppError {
  const thrown = String(error.metadata?.get(ERROR_CODE_TRAILER)[0] ?? '');
  if (thrown in ERROR_TABLE) return new AppError(thrown as ErrorCode, error.details, { cause: error });
  const code = CODE_BY_STATUS[error.code] ?? 'service_unavailable';
  const message =
    code === 'service_unavailable' ? `The ${peer} service is unavailable` : error.details || error.message;
  return new AppError(code, message, { cause: error });
}

export function createRpcClient<D extends Record<string, AnyMethod>>(
  definition: D,
  address: string,
  auth: InternalAuth,
  options: { defaultDeadlineMs?: number; channelCredentials?: ChannelCredentials } = {},
): RpcClient<D> {
  const Ctor = makeGenericClientConstructor(definition as unknown as ServiceDefinition, 'routinely');
  const raw = new Ctor(
    address,
    options.channelCredentials ?? credentials.createInsecure(),
    CLIENT_CHANNEL_OPTIONS,
  ) as unknown as Record<
    string,
    (
      req: unknown,
      md: Metadata,
      opts: { deadline: number },
      cb: (err: ServiceError | null, res: unknown) => void,
    ) => void
  > & { close(): void };
  const client: Record<string, unknown> = { close: () => raw.close() };
  for (const [name, method] of Object.entries(definition)) {
    client[name] = async (request: unknown, call: CallOptions = {}) => {
      const metadata = new Metadata();
      metadata.set('authorization', `Bearer ${await auth.sign(call.actor)}`);
      const deadline = Date.now() + (call.deadlineMs ?? options.defaultDeadlineMs ?? 5_000);
      return withClientSpan(
        method.path,
        metadata,
        () =>
          new Promise((resolve, reject) => {
            raw[name]?.call(raw, request, metadata, { deadline }, (error, response) => {
              if (!error) return resolve(response);
              reject(callError(error, method.path.replace(/^\//, '').split('.')[0] ?? 'peer'));
            });
          }),
      );
    };
  }
  return client as RpcClient<D>;
}

/**
 * A client whose channel opens on its first call and again on the first call after `close`: an adapter that a
 * service closes in `stop` keeps working when the same instance is started again (a host's restart, tests).
 */
export function reopeningRpcClient<D extends Record<string, AnyMethod>>(
  definition: D,
  address: string,
  auth: InternalAuth,
  options: { defaultDeadlineMs?: number } = {},
): { rpc(): RpcClient<D>; close(): void } {
  let client: RpcClient<D> | undefined;
  return {
    rpc: () => {
      client ??= createRpcClient(definition, address, auth, options);
      return client;
    },
    close: () => {
      client?.close();
      client = undefined;
    },
  };
}

export type RpcHandlers<D> = {
  [K in keyof D]: (request: Req<D[K]>, caller: CallerIdentity) => Promise<Res<D[K]>>;
};

/** Adds a service whose handlers see the verified caller; typed AppErrors become their gRPC status. */
export function addRpcService<D extends Record<string, AnyMethod>>(
  server: RpcServiceRegistry,
  definition: D,
  auth: InternalAuth,
  handlers: RpcHandlers<D>,
): void {
  const impl: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers) as [
    string,
    (r: unknown, c: CallerIdentity) => Promise<unknown>,
  ][]) {
    const path = definition[name]?.path ?? name;
    const unary: handleUnaryCall<unknown, unknown> = (call, callback) => {
      const header = String(call.metadata.get('authorization')[0] ?? '');
      withServerSpan(path, call.metadata, () =>
        auth.verify(header.replace(/^Bearer /, '')).then(
          (caller) => handler(call.request, caller),
          () => {
            throw new AppError('not_authenticated', 'Missing or invalid service credentials');
          },
        ),
      ).then(
        (response) => callback(null, response),
        (error: unknown) => {
          if (!(error instanceof AppError)) {
            serverLoggers.get(server)?.error({ err: error, rpc: path }, 'unhandled error in a gRPC handler');
            return callback({ code: status.INTERNAL, details: 'internal error' });
          }
          const metadata = new Metadata();
          metadata.set(ERROR_CODE_TRAILER, error.code);
          callback({ code: ERROR_TABLE[error.code].grpc, details: error.message, metadata });
        },
      );
    };
    impl[name] = unary;
  }
  // The registry is a grpc-js Server (the platform declares it without depending on grpc-js).
  (server as Server).addService(definition as unknown as ServiceDefinition, impl);
}

/** What a server logs a handler's unexpected failure to (a pino logger is one). */
export interface RpcFailureLog {
  error(fields: { err: unknown; rpc: string }, message: string): void;
}

/** Where each server made by `createRpcServer` logs a handler's unexpected failure. */
const serverLoggers = new WeakMap<RpcServiceRegistry, RpcFailureLog>();

/**
 * A gRPC server whose handlers' unexpected failures (anything but an AppError) are logged like an HTTP 5xx:
 * the caller only sees INTERNAL, so the log line is where the cause is found.
 */
export function createRpcServer(logger: RpcFailureLog): Server {
  const server = new Server(RPC_SERVER_OPTIONS);
  serverLoggers.set(server, logger);
  return server;
}

/** Binds a gRPC server; port 0 picks a free one. Resolves with the bound address. */
export async function startRpcServer(server: Server, host: string, port: number): Promise<string> {
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (error, p) =>
      error ? reject(error) : resolve(p),
    ),
  );
  return `${host}:${bound}`;
}

export async function stopRpcServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, 5_000);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export { Server };
