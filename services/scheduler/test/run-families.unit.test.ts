import { describe, expect, it } from 'vitest';
import { nextFamilies } from '../src/domain/runs/run-plan.js';

const task = (id: string, parentId?: string) => ({
  id,
  durationMin: 30,
  priority: 3,
  status: 'pending',
  sortOrder: 0,
  ...(parentId ? { parentId } : {}),
});

describe('batches of whole families', () => {
  it('never splits a parent and its descendants across two batches', () => {
    const remaining = [task('a'), task('p'), task('c1', 'p'), task('c2', 'p'), task('g', 'c1'), task('b')];
    const first = nextFamilies(remaining, [], 2).map((t) => t.id);
    expect(first).toEqual(['a', 'p', 'c1', 'c2', 'g']);
    expect(nextFamilies(remaining.slice(5), [], 2).map((t) => t.id)).toEqual(['b']);
  });

  it('takes the family a member depends on first', () => {
    const remaining = [task('p'), task('c', 'p'), task('x')];
    const deps = [{ taskId: 'c', dependsOnId: 'x', type: 'finish_to_start' as const, lagMin: 0 }];
    expect(nextFamilies(remaining, deps, 1).map((t) => t.id)).toEqual(['x']);
    expect(nextFamilies(remaining, deps, 2).map((t) => t.id)).toEqual(['x', 'p', 'c']);
  });
});
