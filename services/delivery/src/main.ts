#!/usr/bin/env node
// Standalone entry of the delivery service (distributed mode).
import { runUntilSignal } from '@routinely/runtime';
import { deliveryModule } from './module.js';

await runUntilSignal('delivery', [deliveryModule]);
