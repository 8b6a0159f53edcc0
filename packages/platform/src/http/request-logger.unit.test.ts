import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.js';
import { requestLoggerFactory } from './request-logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level, destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  return { lines, logger: logger as unknown as FastifyBaseLogger };
}

describe('request logger', () => {
  it('builds no child for lines below the level, and the bound child for the first line written', () => {
    const { lines, logger } = capture('warn');
    const child = vi.spyOn(logger, 'child');
    const request = requestLoggerFactory(logger, { reqId: 'r-1' }, {});
    request.info({ route: '/x' }, 'request completed');
    request.debug('detail');
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    request.error({ token: 'abc', code: 'E1' }, 'unhandled error');
    request.warn('second');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toMatchObject([
      { level: 50, reqId: 'r-1', code: 'E1', token: '[redacted]', msg: 'unhandled error' },
      { level: 40, reqId: 'r-1', msg: 'second' },
    ]);
    expect(request.level).toBe('warn');
  });

  it('writes what the eager child wrote, and a level set on it holds from then on', () => {
    const { lines, logger } = capture('info');
    const request = requestLoggerFactory(logger, { reqId: 'r-2' }, {});
    request.info({ route: '/y' }, 'request completed');
    request.level = 'error';
    request.warn('dropped');
    request.child({ part: 'sub' }).error('from a grandchild');
    expect(lines).toMatchObject([
      { level: 30, reqId: 'r-2', route: '/y', msg: 'request completed' },
      { level: 50, reqId: 'r-2', part: 'sub', msg: 'from a grandchild' },
    ]);
    expect(lines).toHaveLength(2);
    expect(logger.level).toBe('info');
  });

  it('gives a route with its own log level pino child at once', () => {
    const { lines, logger } = capture('info');
    const request = requestLoggerFactory(logger, { reqId: 'r-3' }, { level: 'warn' });
    request.info('quiet route');
    request.warn('still written');
    expect(lines).toMatchObject([{ level: 40, reqId: 'r-3', msg: 'still written' }]);
    expect(lines).toHaveLength(1);
  });
});
