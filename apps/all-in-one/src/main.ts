#!/usr/bin/env node
// `npm start`: every service in one process behind one listener.
import { runUntilSignal } from '@routinely/runtime';
import { ALL_IN_ONE_ENV_DEFAULTS, SERVICE_MODULES } from './index.js';

await runUntilSignal('all-in-one', SERVICE_MODULES, { envDefaults: ALL_IN_ONE_ENV_DEFAULTS, console: true });
