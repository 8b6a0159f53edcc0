import { describe, expect, it } from 'vitest';
import { neverUsed } from '../src/never-used.js';

interface Deps {
  config: { PUBLIC_BASE_URL: string };
  tasks: { list(owner: string): string[] };
  Store: new () => object;
}

describe('neverUsed', () => {
  const deps = neverUsed<Deps>('the probe dependencies');

  it('can be handed on and destructured, as route factories do while registering', () => {
    const { config, tasks } = deps;
    expect(deps.config).toBe(config);
    expect(deps.tasks).toBe(tasks);
  });

  it('throws, naming the path, on every use', () => {
    const { config, tasks } = deps;
    const used = '; dependencies may only be used while answering';
    expect(() => tasks.list('me')).toThrow(
      `the probe dependencies.tasks.list was called while routes registered${used}`,
    );
    expect(() => new deps.Store()).toThrow('the probe dependencies.Store was constructed');
    expect(() => `${config.PUBLIC_BASE_URL}/x`).toThrow('the probe dependencies.config.PUBLIC_BASE_URL');
    expect(() => ({ ...config })).toThrow('the probe dependencies.config was listed');
    expect(() => 'PUBLIC_BASE_URL' in config).toThrow('the probe dependencies.config was searched');
    expect(() => {
      (config as { PUBLIC_BASE_URL: string }).PUBLIC_BASE_URL = 'x';
    }).toThrow('the probe dependencies.config was written');
    expect(() => JSON.stringify({ limit: config.PUBLIC_BASE_URL })).toThrow('the probe dependencies.config');
  });
});
