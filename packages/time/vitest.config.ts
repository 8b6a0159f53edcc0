import { defineProject, FAST_CHECK_SEED_SETUP } from '../../vitest.shared.js';

export default defineProject({ setupFiles: [FAST_CHECK_SEED_SETUP] });
