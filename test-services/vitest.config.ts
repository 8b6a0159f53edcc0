import { defineProject } from '../vitest.shared.js';

export default defineProject();
