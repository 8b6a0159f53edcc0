import { defineProject } from '../vitest.shared.js';

// helm runs and the first compile of the Kubernetes models take seconds each on a busy machine.
export default defineProject({ testTimeout: 120_000 });
