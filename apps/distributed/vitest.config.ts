import { defineProject } from '../../vitest.shared.js';

// The fault tests are their own tier (vitest.faults.config.ts).
export default defineProject({ include: ['src/**/*.test.ts', 'test/*.test.ts'] });
