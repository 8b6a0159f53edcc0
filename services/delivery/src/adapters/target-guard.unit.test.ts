import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { assertPublicTarget, isPublicAddress, type TargetPolicy } from './target-guard.js';

/** Names resolve from this table only: no test traffic or DNS query leaves the machine. */
const DNS: Record<string, LookupAddress[]> = {
  'hooks.example.com': [{ address: '93.184.215.14', family: 4 }],
  'v6.example.com': [{ address: '2606:4700::6810:85e5', family: 6 }],
  'internal.example.com': [{ address: '10.0.0.1', family: 4 }],
  'mixed.example.com': [
    { address: '93.184.215.14', family: 4 },
    { address: '192.168.1.1', family: 4 },
  ],
  'rebind.example.com': [{ address: '::ffff:169.254.169.254', family: 6 }],
  localhost: [{ address: '127.0.0.1', family: 4 }],
};
const policy: TargetPolicy = {
  allowPrivate: false,
  resolve: async (host) => {
    const found = DNS[host];
    if (!found) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  },
};

describe('webhook target guard (SSRF)', () => {
  it.each([
    ['http://hooks.example.com/x', /https/],
    ['https://127.0.0.1/', /not public/],
    ['https://localhost/', /non-public/],
    ['https://0.0.0.0/', /not public/],
    ['https://[::1]/', /not public/],
    ['https://[::ffff:127.0.0.1]/', /not public/],
    ['https://169.254.169.254/latest/meta-data', /not public/],
    ['https://100.64.0.1/', /not public/],
    ['https://10.0.0.1/', /not public/],
    ['https://172.16.5.4/', /not public/],
    ['https://192.168.1.1/', /not public/],
    ['https://[fc00::1]/', /not public/],
    ['https://[fe80::1]/', /not public/],
    ['https://[64:ff9b::a00:1]/', /not public/],
    ['https://[64:ff9b::7f00:1]/', /not public/],
    ['https://2130706433/', /not public/],
    ['https://0177.0.0.1/', /not public/],
    ['https://0x7f.1/', /not public/],
    ['https://224.0.0.1/', /not public/],
    ['https://255.255.255.255/', /not public/],
    ['https://192.0.2.10/', /not public/],
    ['https://198.51.100.7/', /not public/],
    ['https://203.0.113.9/', /not public/],
    ['https://[2001:db8::1]/', /not public/],
    ['https://[ff02::1]/', /not public/],
    ['https://[::]/', /not public/],
    ['https://[2002:a00:1::1]/', /not public/],
    ['https://user:secret@hooks.example.com/', /credentials/],
    ['https://user@hooks.example.com/', /credentials/],
    ['https://internal.example.com/hook', /non-public address 10.0.0.1/],
    ['https://mixed.example.com/hook', /non-public address 192.168.1.1/],
    ['https://rebind.example.com/hook', /non-public/],
    ['https://nowhere.example.com/hook', /cannot resolve/],
    ['ftp://hooks.example.com/', /https/],
    ['not a url', /valid URL/],
  ])('refuses %s', async (url, message) => {
    await expect(assertPublicTarget(url, policy)).rejects.toThrow(message);
  });

  it.each([
    'https://hooks.example.com/x',
    'https://v6.example.com/',
    'https://93.184.215.14/',
    'https://[2606:4700::1]/',
    'https://[64:ff9b::5db8:d70e]/',
  ])('accepts %s', async (url) => {
    await expect(assertPublicTarget(url, policy)).resolves.toBeInstanceOf(URL);
  });

  // Every IPv6 form that carries an IPv4 address: judged by that address (mapped, NAT64 well-known prefix) or
  // refused outright (IPv4-compatible ::/96, SIIT-translated, local-use NAT64, 6to4, Teredo).
  it.each([
    ['https://[::127.0.0.1]/x', 'IPv4-compatible loopback'],
    ['https://[::7f00:1]/x', 'IPv4-compatible loopback, hex'],
    ['https://[::10.0.0.1]/x', 'IPv4-compatible private'],
    ['https://[::93.184.215.14]/x', 'IPv4-compatible, even of a public address'],
    ['https://[::ffff:10.0.0.1]/x', 'mapped private'],
    ['https://[::ffff:a9fe:a9fe]/x', 'mapped link-local, hex'],
    ['https://[::ffff:0:127.0.0.1]/x', 'SIIT-translated'],
    ['https://[64:ff9b::169.254.169.254]/x', 'NAT64 of the metadata address'],
    ['https://[64:ff9b:1::7f00:1]/x', 'local-use NAT64'],
    ['https://[2002:7f00:1::1]/x', '6to4 of loopback'],
    ['https://[2002:5db8:d70e::1]/x', '6to4, even of a public address'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x', 'Teredo'],
    ['https://[2001::7f00:1]/x', 'Teredo, short'],
  ])('refuses %s (%s)', async (url) => {
    await expect(assertPublicTarget(url, policy)).rejects.toThrow(/not public/);
  });

  it.each([
    ['https://hooks.example.com:80/x', '80'],
    ['https://hooks.example.com:22/x', '22'],
    ['https://hooks.example.com:1023/x', '1023'],
    ['https://93.184.215.14:8/x', '8'],
  ])('refuses %s (port %s)', async (url) => {
    await expect(assertPublicTarget(url, policy)).rejects.toThrow(/port/);
  });

  it.each([
    'https://hooks.example.com:443/x',
    'https://hooks.example.com:1024/x',
    'https://hooks.example.com:8443/x',
    'https://hooks.example.com:65535/x',
    'https://[::ffff:93.184.215.14]/x',
  ])('accepts %s', async (url) => {
    await expect(assertPublicTarget(url, policy)).resolves.toBeInstanceOf(URL);
  });

  it('refuses names that resolve to an IPv6 form embedding a private IPv4 address', async () => {
    const embedded: TargetPolicy = {
      ...policy,
      resolve: async (host) => [
        { address: host === 'compat.example.com' ? '::127.0.0.1' : '2002:a00:1::1', family: 6 },
      ],
    };
    await expect(assertPublicTarget('https://compat.example.com/', embedded)).rejects.toThrow(/non-public/);
    await expect(assertPublicTarget('https://sixtofour.example.com/', embedded)).rejects.toThrow(/non-public/);
  });

  it('allows http and private targets only when WEBHOOK_ALLOW_PRIVATE_TARGETS is on', async () => {
    await expect(
      assertPublicTarget('http://127.0.0.1:8080/x', { ...policy, allowPrivate: true }),
    ).resolves.toBeInstanceOf(URL);
    await expect(
      assertPublicTarget('http://127.0.0.1:80/x', { ...policy, allowPrivate: true }),
    ).resolves.toBeInstanceOf(URL);
    await expect(
      assertPublicTarget('https://[::127.0.0.1]/x', { ...policy, allowPrivate: true }),
    ).resolves.toBeInstanceOf(URL);
    await expect(assertPublicTarget('https://user:pw@127.0.0.1/', { ...policy, allowPrivate: true })).rejects.toThrow(
      /credentials/,
    );
  });

  it('lets an explicit CIDR through and nothing beside it', () => {
    expect(isPublicAddress('127.0.0.1', ['127.0.0.1/32'])).toBe(true);
    expect(isPublicAddress('::ffff:127.0.0.1', ['127.0.0.1/32'])).toBe(true);
    expect(isPublicAddress('127.0.0.2', ['127.0.0.1/32'])).toBe(false);
    expect(isPublicAddress('not-an-ip')).toBe(false);
  });
});
