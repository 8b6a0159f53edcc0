#!/usr/bin/env node
// Standalone entry of the task service (distributed mode).
import { runUntilSignal } from '@routinely/runtime';
import { taskModule } from './module.js';

await runUntilSignal('task', [taskModule]);
