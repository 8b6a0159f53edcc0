import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { postWithDispatch } from './post-once.js';

/**
 * Posts one request to a throwaway loopback server, so that a process's first webhook does not pay for what
 * undici does once per process on its first connection: compiling its HTTP parser (WebAssembly) and loading the
 * code of its request path. In a process just started, that first send took about 20 ms longer than the next
 * (the first arrival of a burst due right after a start). Its own agent, not the sender's: the
 * sender's refuses loopback addresses.
 */
export async function warmUpHttpClient(): Promise<void> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  const agent = new Agent({ connections: 1 });
  try {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await postWithDispatch(agent, new URL(`http://127.0.0.1:${port}/`), {
      headers: { 'content-type': 'application/json' },
      body: '{}',
      timeoutMs: 5_000,
      previewBytes: 0,
    });
  } finally {
    await agent.close();
    server.close();
  }
}
