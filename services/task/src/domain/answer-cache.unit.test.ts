import { describe, expect, it } from 'vitest';
import { AnswerCache } from './answer-cache.js';

const answer = (version: string, bytes: number) => ({ version, body: Buffer.alloc(bytes, 'x') });

describe('AnswerCache', () => {
  it('keeps answers within its byte budget, dropping the least recently used first', () => {
    const cache = new AnswerCache(300, 300);
    cache.set('a', answer('1', 100));
    cache.set('b', answer('1', 100));
    cache.set('c', answer('1', 100));
    expect(cache.get('a')?.version).toBe('1'); // a is now the most recently used
    cache.set('d', answer('1', 100));
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')].every(Boolean)).toBe(true);
    expect(cache.size).toEqual({ entries: 3, bytes: 300 });
  });

  it('replaces an entry of the same key and counts only the new body', () => {
    const cache = new AnswerCache(1_000);
    cache.set('a', answer('1', 100));
    cache.set('a', answer('2', 50));
    expect(cache.get('a')?.version).toBe('2');
    expect(cache.size).toEqual({ entries: 1, bytes: 50 });
    cache.delete('a');
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('does not keep an answer larger than its entry limit, nor anything with no budget', () => {
    const cache = new AnswerCache(1_000, 200);
    cache.set('big', answer('1', 201));
    expect(cache.get('big')).toBeUndefined();
    const none = new AnswerCache(0);
    none.set('a', answer('1', 1));
    expect(none.get('a')).toBeUndefined();
  });
});
