#!/usr/bin/env node
// Standalone entry of the integration service (distributed mode).
import { runUntilSignal } from '@routinely/runtime';
import { integrationModule } from './module.js';

await runUntilSignal('integration', [integrationModule]);
