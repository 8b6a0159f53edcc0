import { describe, expect, it } from 'vitest';
import { createLogger, logLevelFrom } from './logger.js';

describe('LOG_LEVEL', () => {
  it('is validated before a logger exists, naming the variable and the allowed values', () => {
    expect(logLevelFrom({})).toBe('info');
    expect(logLevelFrom({ LOG_LEVEL: 'warn' })).toBe('warn');
    expect(() => logLevelFrom({ LOG_LEVEL: 'verbose' })).toThrow(/LOG_LEVEL: .*"info"/s);
    expect(createLogger({ level: 'error' }).level).toBe('error');
  });
});
