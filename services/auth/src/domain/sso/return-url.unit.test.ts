import { describe, expect, it } from 'vitest';
import { checkReturnUrl, withError } from './return-url.js';

const BASE = 'https://app.example.test';
const ALLOWED = ['https://web.example.test'];
const check = (value: string | undefined) => checkReturnUrl(value, BASE, ALLOWED);

describe('checkReturnUrl', () => {
  it('accepts relative paths, the public origin and allowed origins', () => {
    // No return URL: the console's home page, which shows the outcome (contract, "Web console").
    expect(check(undefined)).toBe('/home');
    expect(check('')).toBe('/home');
    expect(check('/dashboard?x=1#top')).toBe('/dashboard?x=1#top');
    expect(check('https://app.example.test/a')).toBe('https://app.example.test/a');
    expect(check('https://web.example.test/after')).toBe('https://web.example.test/after');
    // Percent-encoded characters that stay inside this site's path once decoded.
    expect(check('/t%C3%A2ches/%E3%80%82x')).toBe('/t%C3%A2ches/%E3%80%82x');
  });
  it.each([
    '//evil.test',
    '/\\evil.test',
    '\\\\evil.test',
    '/x\ny',
    'javascript:alert(1)',
    'data:text/html,hi',
    'https://evil.test/',
    'https://web.example.test.evil.test/',
    'https://user:pw@web.example.test/',
    'http://web.example.test/',
    'evil.test',
    // Not ASCII: a Location header cannot carry it; U+FF0F reads as "/" after NFKC, U+3002 as "." in a host.
    '/。evil.test',
    '/／evil.test',
    '/a\u2028b',
    '/\u3000x',
    '/\u0130x',
    'https://web.example.test/\u00e9',
    '/a b',
    // Percent-decoded (once or twice), these read as another origin or hold control characters.
    '/%2F%2Fevil.test',
    '/%5Cevil.test',
    '/%252F%252Fevil.test',
    '/%EF%BC%8Fevil.test',
    '/%09/evil.test',
    '/%zz',
  ])('refuses %s', (value) => {
    expect(() => check(value)).toThrow(/relative path or a URL of an allowed origin/);
  });
});

describe('withError', () => {
  it('adds error= to relative and absolute return URLs', () => {
    expect(withError('/home?tab=1', 'invalid_state')).toBe('/home?tab=1&error=invalid_state');
    expect(withError('https://web.example.test/a', 'email_taken')).toBe('https://web.example.test/a?error=email_taken');
  });
});
