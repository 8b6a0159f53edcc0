import { defaultGrpcAddress, grpcAddressVariable, SERVICE_NAMES } from '@routinely/platform';
import { quietLogger } from '@routinely/testkit';
import { describe, expect, it } from 'vitest';
import { checkStartOrder, GrpcAddressBook, type ServiceModule, startHost } from '../src/index.js';

const calendar = { name: 'calendar', dependsOn: ['auth'] } as const;
const auth = { name: 'auth', dependsOn: [] } as const;

describe('start order', () => {
  it('accepts a dependency started earlier in the process, or one outside it', () => {
    expect(() => checkStartOrder([auth, calendar])).not.toThrow();
    expect(() => checkStartOrder([calendar])).not.toThrow();
  });

  it('refuses a dependency that would start later, naming both services and the fix', () => {
    expect(() => checkStartOrder([calendar, auth])).toThrow(
      'Service calendar depends on auth, which starts after it in this process: list auth before calendar',
    );
  });

  it('refuses a service listed twice or depending on itself', () => {
    expect(() => checkStartOrder([auth, auth])).toThrow('Service auth is listed twice in this process');
    expect(() => checkStartOrder([{ name: 'task', dependsOn: ['task'] }])).toThrow(
      'Service task cannot depend on itself',
    );
  });

  it('fails the host at start, before any infrastructure, when the order is wrong', async () => {
    const module = (name: 'auth' | 'calendar', dependsOn: ('auth' | 'calendar')[]) =>
      ({ name, dependsOn, build: () => Promise.reject(new Error('must not build')) }) as unknown as ServiceModule;
    await expect(
      startHost({
        modules: [module('calendar', ['auth']), module('auth', [])],
        // An unreachable database: reaching it would fail differently.
        env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
        logger: quietLogger(),
      }),
    ).rejects.toThrow('Service calendar depends on auth, which starts after it in this process');
  });
});

describe('gRPC addresses', () => {
  it('defaults every service to routinely-<svc>:50051 under <SVC>_GRPC_ADDRESS', () => {
    const book = new GrpcAddressBook({});
    for (const service of SERVICE_NAMES) {
      expect(book.address(service)).toBe(`routinely-${service}:50051`);
      expect(defaultGrpcAddress(service)).toBe(`routinely-${service}:50051`);
    }
    expect(SERVICE_NAMES.map(grpcAddressVariable)).toEqual([
      'AUTH_GRPC_ADDRESS',
      'CALENDAR_GRPC_ADDRESS',
      'TASK_GRPC_ADDRESS',
      'SCHEDULER_GRPC_ADDRESS',
      'INTEGRATION_GRPC_ADDRESS',
      'DELIVERY_GRPC_ADDRESS',
    ]);
  });

  it('takes the configured address, and prefers the one this host started the service on', () => {
    const book = new GrpcAddressBook({ AUTH_GRPC_ADDRESS: 'auth.internal:6000', TASK_GRPC_ADDRESS: '10.0.0.7:50051' });
    expect(book.address('auth')).toBe('auth.internal:6000');
    book.record('auth', '127.0.0.1:41234');
    expect(book.address('auth')).toBe('127.0.0.1:41234');
    expect(book.address('task')).toBe('10.0.0.7:50051');
  });

  it('answers a module only for the services it declared in dependsOn', () => {
    const book = new GrpcAddressBook({});
    book.record('auth', '127.0.0.1:41234');
    const resolve = book.resolverFor(calendar);
    expect(resolve('auth')).toBe('127.0.0.1:41234');
    expect(() => resolve('task')).toThrow(
      "Service calendar asked for task's gRPC address without declaring dependsOn: ['task']",
    );
  });

  it('refuses two modules that call each other: one of them would start before the other it needs', () => {
    const scheduler = { name: 'scheduler', dependsOn: ['task'] } as const;
    const task = { name: 'task', dependsOn: ['scheduler'] } as const;
    expect(() => checkStartOrder([task, scheduler])).toThrow(
      'Service task depends on scheduler, which starts after it',
    );
    expect(() => checkStartOrder([scheduler, task])).toThrow(
      'Service scheduler depends on task, which starts after it',
    );
  });

  it('takes a list of replica addresses as a gRPC ipv4: target', () => {
    const replicas = 'ipv4:127.0.0.1:50051,127.0.0.1:50052';
    expect(new GrpcAddressBook({ DELIVERY_GRPC_ADDRESS: replicas }).address('delivery')).toBe(replicas);
    expect(() => new GrpcAddressBook({ DELIVERY_GRPC_ADDRESS: 'ipv4:127.0.0.1:50051,calendar' })).toThrow(
      'is not host:port',
    );
  });

  it('refuses a malformed address, naming the variable', () => {
    expect(() => new GrpcAddressBook({ CALENDAR_GRPC_ADDRESS: 'http://calendar' })).toThrow(
      'CALENDAR_GRPC_ADDRESS="http://calendar" is not host:port',
    );
  });
});
