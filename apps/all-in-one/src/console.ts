#!/usr/bin/env node
// The web console alone, where a gateway routes `/` to it (the distributed shape, the Helm chart; ADR 101):
// node apps/all-in-one/dist/console.js. It reads PORT, HOST, CONSOLE_DIR, SHUTDOWN_DRAIN_MS and LOG_LEVEL.
import { runConsoleUntilSignal } from '@routinely/runtime';

await runConsoleUntilSignal();
