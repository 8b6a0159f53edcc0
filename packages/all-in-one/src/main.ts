#!/usr/bin/env node
// `npm start`: every service in one process behind one listener.
import { runUntilSignal } from '@routinely/runtime';
import { SERVICE_MODULES } from './modules.js';

await runUntilSignal('all-in-one', SERVICE_MODULES);
