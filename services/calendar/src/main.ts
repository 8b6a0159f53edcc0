#!/usr/bin/env node
// Standalone entry of the calendar service (distributed mode).
import { runUntilSignal } from '@routinely/runtime';
import { calendarModule } from './module.js';

await runUntilSignal('calendar', [calendarModule]);
