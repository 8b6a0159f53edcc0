import { WebhookReceiver } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostOnce, postWithDispatch, postWithRequest } from '../src/adapters/post-once.js';
import type { TargetPolicy } from '../src/adapters/target-guard.js';
import { WebhookSender } from '../src/adapters/webhook-sender.js';
import { newWebhookSecret } from '../src/domain/webhook-secret.js';

// Only the loopback receiver is "public" here; every other private address must be refused before any
// connection is made (no traffic ever leaves loopback).
const secret = newWebhookSecret();
let receiver: WebhookReceiver;
let sender: WebhookSender;
const policy: TargetPolicy = {
  allowPrivate: false,
  allowHttp: true,
  allowCidrs: ['127.0.0.1/32'],
  resolve: async (host) => {
    if (host === 'receiver.test') return [{ address: '127.0.0.1', family: 4 }];
    if (host === 'metadata.test') return [{ address: '169.254.169.254', family: 4 }];
    if (host === 'loopback6.test') return [{ address: '::1', family: 6 }];
    if (host === 'compat6.test') return [{ address: '::7f00:1', family: 6 }];
    if (host === 'sixtofour.test') return [{ address: '2002:7f00:1::1', family: 6 }];
    throw new Error('ENOTFOUND');
  },
};

beforeAll(async () => {
  receiver = await WebhookReceiver.start({ secrets: () => [secret] });
});
afterAll(async () => {
  await receiver?.close();
});

const send = (url: string) =>
  sender.send({
    url,
    secret,
    event: 'reminder.fired',
    eventId: '01900000-0000-7000-8000-0000000000cc',
    deliveryId: '01900000-0000-7000-8000-0000000000aa',
    endpointId: '01900000-0000-7000-8000-0000000000bb',
    body: { hello: 'world' },
    timestamp: Math.floor(Date.now() / 1000),
  });

// Both ways of posting (post-once.ts) keep every rule: the one the sender uses and the plain one.
const posts: [string, PostOnce][] = [
  ['dispatch handler', postWithDispatch],
  ['undici.request', postWithRequest],
];

describe.each(posts)('webhook sender (%s): connection pinning and redirects', (_name, post) => {
  beforeAll(() => {
    sender = new WebhookSender(policy, 2_000, post);
  });
  afterAll(async () => {
    await sender?.close();
  });

  it('connects to the address the guard checked (a name only our resolver knows)', async () => {
    const port = new URL(receiver.url).port;
    const result = await send(`http://receiver.test:${port}/pinned`);
    expect(result).toMatchObject({ outcome: 'sent', statusCode: 200 });
    expect(receiver.received.at(-1)).toMatchObject({ path: '/pinned', verified: true });
  });

  it('refuses at send time a name that resolves to a private address, without connecting', async () => {
    const before = receiver.received.length;
    for (const host of ['metadata.test', 'loopback6.test', 'compat6.test', 'sixtofour.test', 'localhost']) {
      const result = await send(`http://${host}:${new URL(receiver.url).port}/x`);
      expect(result.outcome, host).toBe('dead');
      expect(result.error).toMatch(/blocked target/);
    }
    expect(receiver.received.length).toBe(before);
  });

  it('re-checks the target of a redirect: a 3xx to a private address is refused', async () => {
    for (const location of [
      'http://10.0.0.1/steal',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:80/',
      'http://metadata.test/',
      'https://user:pw@receiver.test/',
      'http://[::127.0.0.1]:8080/',
      'http://[64:ff9b::a9fe:a9fe]:8080/',
      'http://receiver.test:22/',
    ]) {
      receiver.setResponder(() => ({ status: 302, headers: { location } }));
      const result = await send(`${receiver.url}/redirect`);
      expect(result.outcome, location).toBe('dead');
      expect(result.error, location).toMatch(/blocked target/);
    }
    receiver.setResponder(() => ({ status: 200 }));
  });

  it('keeps the first 512 bytes of an answer and stops reading there; a kill abandons a send in flight', async () => {
    receiver.setResponder(() => ({ status: 200, body: 'x'.repeat(64 * 1024) }));
    const long = await send(`${receiver.url}/long`);
    expect(long).toMatchObject({ outcome: 'sent', statusCode: 200 });
    expect(long.responsePreview).toBe('x'.repeat(512));
    receiver.setResponder(() => ({ status: 200, delayMs: 1_000 }));
    const kill = new AbortController();
    const message = {
      url: `${receiver.url}/abandoned`,
      secret,
      event: 'reminder.fired',
      eventId: '01900000-0000-7000-8000-0000000000dd',
      deliveryId: '01900000-0000-7000-8000-0000000000ee',
      endpointId: '01900000-0000-7000-8000-0000000000bb',
      body: { hello: 'world' },
      timestamp: Math.floor(Date.now() / 1000),
    };
    const before = receiver.received.length;
    const abandoned = sender.send(message, kill.signal);
    await receiver.waitFor(before + 1);
    kill.abort(new Error('worker killed'));
    await expect(abandoned).rejects.toThrow('worker killed');
    receiver.setResponder(() => ({ status: 200 }));
  });

  it('fails an answer slower than the timeout as a timeout, to be retried', async () => {
    receiver.setResponder(() => ({ status: 200, delayMs: 2_500 }));
    const slow = await send(`${receiver.url}/slow`);
    receiver.setResponder(() => ({ status: 200 }));
    expect(slow).toMatchObject({ outcome: 'retry', statusCode: null, error: 'timeout' });
  });
});
