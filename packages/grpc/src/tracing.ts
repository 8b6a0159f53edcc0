import type { Metadata } from '@grpc/grpc-js';
import { contextFromCarrier, inSpan, SpanKind, traceCarrier } from '@routinely/platform';

/** `/routinely.auth.v1.AuthService/LookupUser` -> the span name and the rpc.* attributes of that method. */
function describe(path: string) {
  const name = path.replace(/^\//, '');
  const [service = '', method = ''] = name.split('/');
  return { name, attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method } };
}

/** Runs an outgoing call in a client span and puts that span's `traceparent` into the call's metadata. */
export function withClientSpan<T>(path: string, metadata: Metadata, call: () => Promise<T>): Promise<T> {
  const { name, attributes } = describe(path);
  return inSpan(name, { kind: SpanKind.CLIENT, attributes }, () => {
    const carrier = traceCarrier();
    if (carrier.traceparent) metadata.set('traceparent', carrier.traceparent);
    if (carrier.tracestate) metadata.set('tracestate', carrier.tracestate);
    return call();
  });
}

/** Runs an incoming call's handler in a server span, a child of the caller's span when it sent one. */
export function withServerSpan<T>(path: string, metadata: Metadata, handle: () => Promise<T>): Promise<T> {
  const { name, attributes } = describe(path);
  const first = (key: string) => {
    const value = metadata.get(key)[0];
    return typeof value === 'string' ? value : undefined;
  };
  const parent = contextFromCarrier({ traceparent: first('traceparent'), tracestate: first('tracestate') });
  return inSpan(name, { kind: SpanKind.SERVER, parent, attributes }, handle);
}
