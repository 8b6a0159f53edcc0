import { defineProject } from '../../vitest.shared.js';

// The fault tier (`test:faults`): each file boots its own topology and breaks it, one file at a time.
export default defineProject({
  include: ['test/faults/**/*.test.ts'],
  testTimeout: 240_000,
  outputFile: 'test-results/vitest-faults.json',
  fileParallelism: false,
});
