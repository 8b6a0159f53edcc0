#!/usr/bin/env node
// Standalone entry of the scheduler service (distributed mode).
import { runUntilSignal } from '@routinely/runtime';
import { schedulerModule } from './module.js';

await runUntilSignal('scheduler', [schedulerModule]);
