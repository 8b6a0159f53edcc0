import { describe, expect, it } from 'vitest';
import { BACKCHANNEL_LOGOUT_EVENT, checkLogoutClaims } from '../domain/sso/logout-claims.js';
import { signIdpEvent, verifyIdpSignature } from './provider-signals.js';

const NOW = Date.parse('2026-11-21T08:00:00Z');
const iat = NOW / 1000;
const valid = { iat, jti: 'j1', sub: 's1', events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } };

describe('checkLogoutClaims (Back-Channel Logout 1.0 §2.6)', () => {
  it('accepts sub, sid or both', () => {
    expect(checkLogoutClaims(valid, NOW)).toEqual({ jti: 'j1', sub: 's1', sid: undefined });
    expect(checkLogoutClaims({ ...valid, sub: undefined, sid: 'x' }, NOW)).toEqual({
      jti: 'j1',
      sub: undefined,
      sid: 'x',
    });
  });

  it.each([
    ['iat 301 s old', { ...valid, iat: iat - 301 }],
    ['iat 301 s ahead', { ...valid, iat: iat + 301 }],
    ['no events', { ...valid, events: undefined }],
    ['events an array', { ...valid, events: [BACKCHANNEL_LOGOUT_EVENT] }],
    ['member not an object', { ...valid, events: { [BACKCHANNEL_LOGOUT_EVENT]: true } }],
    ['nonce', { ...valid, nonce: 'n' }],
    ['no sub, no sid', { ...valid, sub: undefined }],
    ['no jti', { ...valid, jti: undefined }],
  ])('refuses %s', (_kind, claims) => {
    expect(typeof checkLogoutClaims(claims, NOW)).toBe('string');
  });
});

describe('verifyIdpSignature', () => {
  const body = '{"id":"e1"}';
  const secret = 'webhook-secret-0123456789';
  it('accepts a signature within 300 s either way, and any one of several v1 values', () => {
    expect(verifyIdpSignature(signIdpEvent(body, secret, iat - 300), body, secret, NOW)).toBe(true);
    expect(verifyIdpSignature(signIdpEvent(body, secret, iat + 300), body, secret, NOW)).toBe(true);
    const real = signIdpEvent(body, secret, iat).split(',')[1];
    expect(verifyIdpSignature(`t=${iat},v1=${'a'.repeat(64)},${real}`, body, secret, NOW)).toBe(true);
  });
  it('refuses stale, future, wrong-secret, altered-body, malformed and missing signatures', () => {
    expect(verifyIdpSignature(signIdpEvent(body, secret, iat - 301), body, secret, NOW)).toBe(false);
    expect(verifyIdpSignature(signIdpEvent(body, secret, iat + 301), body, secret, NOW)).toBe(false);
    expect(verifyIdpSignature(signIdpEvent(body, 'another-secret-0123456789', iat), body, secret, NOW)).toBe(false);
    expect(verifyIdpSignature(signIdpEvent(body, secret, iat), `${body} `, secret, NOW)).toBe(false);
    expect(verifyIdpSignature(`t=${iat},v1=zz`, body, secret, NOW)).toBe(false);
    expect(verifyIdpSignature(`v1=${'a'.repeat(64)}`, body, secret, NOW)).toBe(false);
    expect(verifyIdpSignature(undefined, body, secret, NOW)).toBe(false);
  });
});
