#!/usr/bin/env node
// Reads a V8 .cpuprofile (node --cpu-prof, e.g. CPU_PROF_DIR with ratios.mjs) and prints the functions with
// the most self time, then the same summed by package (node_modules/<pkg>, node: internals, our own dist/).
//
//   node bench/profile-top.mjs <file.cpuprofile> [rows=40] [last-seconds[:until-seconds]]
// With last-seconds only the samples of that final window count (e.g. the measured figure, not the start-up);
// with :until-seconds the window ends that long before the profile's end (e.g. 2.2:1.0 for a burst followed by
// a second of something else).
import { readFileSync } from 'node:fs';

const [file, limit = '40', window = ''] = process.argv.slice(2);
const [lastSeconds, untilSeconds = '0'] = window.split(':');
if (!file) throw new Error('usage: profile-top.mjs <file.cpuprofile> [rows]');
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
// timeDeltas[i] is the gap (µs) before sample i; the window is measured back from the profile's end.
const times = [];
let clock = profile.startTime;
for (const delta of profile.timeDeltas) {
  clock += delta;
  times.push(clock);
}
const from = lastSeconds ? profile.endTime - Number(lastSeconds) * 1e6 : Number.NEGATIVE_INFINITY;
const to = profile.endTime - Number(untilSeconds) * 1e6;
const selfTicks = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  if (times[i] < from || times[i] > to) return;
  selfTicks.set(id, (selfTicks.get(id) ?? 0) + 1);
  total += 1;
});

/** Where a function lives: the package under node_modules, a node internal, or our own source. */
function packageOf(url) {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return 'node:internals';
  const match = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1];
  const own = /\/(packages|services)\/([^/]+)\//.exec(url);
  return own ? `${own[1]}/${own[2]}` : url;
}

const byFunction = new Map();
const byPackage = new Map();
for (const [id, ticks] of selfTicks) {
  const { callFrame } = byId.get(id);
  const where = callFrame.url ? `${callFrame.url.replace(/^.*node_modules\//, '')}:${callFrame.lineNumber + 1}` : '';
  const key = `${callFrame.functionName || '(anonymous)'} ${where}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + ticks);
  const pkg = packageOf(callFrame.url);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ticks);
}
const pct = (ticks) => `${((100 * ticks) / total).toFixed(1).padStart(5)} %`;
const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(`${total} samples\n\nself time by function:`);
for (const [key, ticks] of top(byFunction, Number(limit))) console.log(`${pct(ticks)}  ${key}`);
console.log('\nself time by package:');
for (const [key, ticks] of top(byPackage, 25)) console.log(`${pct(ticks)}  ${key}`);

// Who calls the costliest native functions (socket writes, etc.): the nearest JavaScript frames above them.
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const frameName = (node) =>
  `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*node_modules\//, '')}:${node.callFrame.lineNumber + 1}`;
const callers = new Map();
for (const [id, ticks] of selfTicks) {
  const node = byId.get(id);
  if (node.callFrame.url || ['(idle)', '(program)', '(garbage collector)'].includes(node.callFrame.functionName))
    continue;
  const chain = [];
  for (let up = parentOf.get(id); up !== undefined && chain.length < 6; up = parentOf.get(up)) {
    const parent = byId.get(up);
    if (parent.callFrame.url && !parent.callFrame.url.startsWith('node:')) chain.push(frameName(parent));
  }
  const key = `${node.callFrame.functionName} <- ${chain.slice(0, 3).join(' <- ')}`;
  callers.set(key, (callers.get(key) ?? 0) + ticks);
}
console.log('\nnative self time by its nearest non-internal callers:');
for (const [key, ticks] of top(callers, 15)) console.log(`${pct(ticks)}  ${key}`);
