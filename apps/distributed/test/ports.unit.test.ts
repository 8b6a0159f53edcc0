import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { bindable } from '../src/ports.js';

// `freePort` skips a port another program holds (RabbitMQ's 25672 on this machine): the check answers false
// instead of failing with EADDRINUSE, and true once the port is let go.
it('answers whether 127.0.0.1 takes a port, a held one included', async () => {
  const holder = createServer().listen(0, '127.0.0.1');
  await once(holder, 'listening');
  const { port } = holder.address() as AddressInfo;
  expect(await bindable(port)).toBe(false);
  holder.close();
  await once(holder, 'close');
  expect(await bindable(port)).toBe(true);
});
