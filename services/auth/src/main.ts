#!/usr/bin/env node
// Standalone entry of the auth service (distributed mode).
import { runUntilSignal } from '@routinely/runtime';
import { authModule } from './module.js';

await runUntilSignal('auth', [authModule]);
