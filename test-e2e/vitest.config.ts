import { defineProject } from '../vitest.shared.js';

export default defineProject({ testTimeout: 60_000 });
