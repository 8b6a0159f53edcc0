import { defineProject } from '../vitest.shared.js';

// One distributed topology (six processes behind the envoy.yaml-driven gateway) for the whole run.
export default defineProject({
  testTimeout: 60_000,
  globalSetup: [new URL('./src/distributed-setup.ts', import.meta.url).pathname],
});
