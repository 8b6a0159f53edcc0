/**
 * A stand-in of type `T` for dependencies that must not be used yet. Reading a property gives a further
 * stand-in, so dependencies can be handed on and destructured; anything that uses a value throws, naming its
 * path: calling or constructing it, writing to it, listing or looking up its keys, turning it into a string or
 * number. The OpenAPI document is built by registering each service's routes over stand-ins (ADR 070): a route
 * that used a dependency while registering, rather than while answering, fails generation instead of
 * documenting something the running host might not serve. (Truthiness cannot be trapped: a stand-in is truthy.)
 */
export function neverUsed<T extends object>(what: string): T {
  return standIn(what) as T;
}

function standIn(path: string): object {
  const children = new Map<PropertyKey, object>();
  const refuse = (use: string) => (): never => {
    throw new Error(`${path} was ${use} while routes registered; dependencies may only be used while answering`);
  };
  // A plain function as the target, so that calling and constructing reach their traps too.
  return new Proxy(function dependency() {}, {
    get: (_target, key) => {
      let child = children.get(key);
      if (!child) {
        child = standIn(`${path}.${String(key)}`);
        children.set(key, child);
      }
      return child;
    },
    apply: refuse('called'),
    construct: refuse('constructed'),
    set: refuse('written'),
    defineProperty: refuse('written'),
    deleteProperty: refuse('written'),
    has: refuse('searched'),
    ownKeys: refuse('listed'),
    getOwnPropertyDescriptor: refuse('inspected'),
    getPrototypeOf: refuse('inspected'),
    setPrototypeOf: refuse('written'),
    isExtensible: refuse('inspected'),
    preventExtensions: refuse('written'),
  });
}
