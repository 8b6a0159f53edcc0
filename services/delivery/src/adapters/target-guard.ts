import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: HostResolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export class BlockedTargetError extends Error {
  override readonly name = 'BlockedTargetError';
}

export interface TargetPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: allows http and every address range (development and tests). */
  allowPrivate: boolean;
  /** Accepts http URLs without opening private ranges (tests against a plain-HTTP loopback receiver). */
  allowHttp?: boolean;
  /** Extra CIDRs treated as public (tests that need exactly one loopback receiver but nothing else). */
  allowCidrs?: readonly string[];
  resolve?: HostResolver;
}

const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * IPv6 ranges whose addresses carry an IPv4 address that we do not unpack: the deprecated IPv4-compatible
 * ::/96 (which also holds :: and ::1), SIIT-translated ::ffff:0:0:0/96, local-use NAT64 64:ff9b:1::/48, 6to4
 * 2002::/16 and Teredo 2001::/32. A gateway may turn any of them into an IPv4 destination of its choosing, and
 * no legitimate webhook receiver needs them, so they are refused whatever address they carry.
 */
const REFUSED_EMBEDDING = ['::/96', '::ffff:0:0:0/96', '64:ff9b:1::/48', '2002::/16', '2001::/32'].map((cidr) =>
  ipaddr.parseCIDR(cidr),
);

/** The IPv4 address an IPv6 address carries in a form judged by it (mapped, NAT64 well-known prefix). */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (address.match(NAT64_WELL_KNOWN)) return new ipaddr.IPv4(address.toByteArray().slice(12, 16));
  return null;
}

/** Ports a production webhook may use: 443 and the unprivileged range, never a well-known service port. */
function isAllowedPort(url: URL): boolean {
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return port === 443 || (port >= 1024 && port <= 65_535);
}

/**
 * True only for globally routable unicast: ipaddr.js names every special range (loopback, private,
 * linkLocal, carrierGradeNat, multicast, reserved incl. documentation and benchmarking, uniqueLocal,
 * teredo, discard, ...), so anything it does not call `unicast` is refused. IPv6 forms that embed an IPv4
 * address are judged by that address.
 */
export function isPublicAddress(raw: string, allowCidrs: readonly string[] = []): boolean {
  if (!ipaddr.isValid(raw)) return false;
  const parsed = ipaddr.parse(raw);
  for (const cidr of allowCidrs) {
    const range = ipaddr.parseCIDR(cidr);
    const candidate =
      parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
        ? (parsed as ipaddr.IPv6).toIPv4Address()
        : parsed;
    if (candidate.kind() === range[0].kind() && candidate.match(range)) return true;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (REFUSED_EMBEDDING.some((range) => v6.match(range))) return false;
  const inner = embeddedIpv4(v6);
  if (inner) return inner.range() === 'unicast';
  return v6.range() === 'unicast';
}

function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Checks a webhook URL before anything is sent: scheme, embedded credentials, and (for IP literals) the
 * address. Parsing is WHATWG's, so `2130706433`, `0177.0.0.1` and `0x7f.1` already read as 127.0.0.1.
 * Names are checked when they resolve (see `checkedLookup`), so the address checked is the one dialled.
 */
export function checkUrlShape(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BlockedTargetError('not a valid URL');
  }
  if (url.protocol !== 'https:' && !((policy.allowPrivate || policy.allowHttp) && url.protocol === 'http:')) {
    throw new BlockedTargetError('the URL must use https');
  }
  if (url.username || url.password) throw new BlockedTargetError('credentials in the URL are not allowed');
  const host = hostOf(url);
  if (!host) throw new BlockedTargetError('the URL has no host');
  if (!policy.allowPrivate && ipaddr.isValid(host) && !isPublicAddress(host, policy.allowCidrs)) {
    throw new BlockedTargetError(`address ${host} is not public`);
  }
  if (!policy.allowPrivate && !isAllowedPort(url)) {
    throw new BlockedTargetError(`port ${url.port || 80} is not allowed (443 or 1024-65535)`);
  }
  return url;
}

/** Resolves a name and refuses it when any of its addresses is not public. */
async function resolvePublic(hostname: string, policy: TargetPolicy): Promise<LookupAddress[]> {
  if (ipaddr.isValid(hostname)) {
    return [{ address: hostname, family: ipaddr.parse(hostname).kind() === 'ipv6' ? 6 : 4 }];
  }
  let addresses: LookupAddress[];
  try {
    addresses = await (policy.resolve ?? systemResolver)(hostname);
  } catch (error) {
    throw new BlockedTargetError(`cannot resolve ${hostname}: ${(error as Error).message}`);
  }
  if (addresses.length === 0) throw new BlockedTargetError(`${hostname} has no addresses`);
  if (!policy.allowPrivate) {
    const bad = addresses.find((a) => !isPublicAddress(a.address, policy.allowCidrs));
    if (bad) throw new BlockedTargetError(`${hostname} resolves to non-public address ${bad.address}`);
  }
  return addresses;
}

/** Full check used at create and patch time: shape plus resolution. */
export async function assertPublicTarget(raw: string, policy: TargetPolicy): Promise<URL> {
  const url = checkUrlShape(raw, policy);
  await resolvePublic(hostOf(url), policy);
  return url;
}

/**
 * A `connect.lookup` for undici's Agent: the socket connects to exactly the address this function checked,
 * so a DNS answer that changes between check and connect (rebinding) cannot reach a private address.
 */
export function checkedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolvePublic(hostname, policy).then(
      (addresses) => {
        // resolvePublic never answers an empty list: it throws BlockedTargetError instead.
        const [first = { address: '', family: 0 }] = addresses;
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: Error) => callback(Object.assign(error, { code: 'EBLOCKEDTARGET' }), ''),
    );
  };
}
