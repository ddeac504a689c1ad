#!/usr/bin/env node
// The long run of the JavaScript host: a million calls over the shared call mix
// through one policy, sampling the process's resident memory, the JavaScript
// heap (after a collection) and the component's linear memory, to show none of
// them grows. Not a test: it prints figures. `npm run soak` (`-- CALLS`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPolicy } from '../src/index.js';
import { root } from '../test/paths.js';

const total = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 1_000_000);
const mix = JSON.parse(readFileSync(join(root, 'tests', 'bench', 'mix.json'), 'utf8'));
const calls = mix.calls.map((c) => [c.tool, JSON.stringify(c.args)]);
const policy = await loadPolicy();
const engine = policy.engine(mix.config);
const kib = (bytes) => Math.round(bytes / 1024);

console.log('| calls | resident memory (KiB) | JS heap after GC (KiB) | JS heap committed (KiB) | external (KiB) | component linear memory (KiB) | engines created and disposed |');
console.log('|---:|---:|---:|---:|---:|---:|---:|');
let disposed = 0;
const sample = (done) => {
  globalThis.gc?.();
  const m = process.memoryUsage();
  console.log(`| ${done} | ${kib(m.rss)} | ${kib(m.heapUsed)} | ${kib(m.heapTotal)} | ${kib(m.external)} | ${kib(policy.stats().memoryBytes)} | ${disposed} |`);
};
const step = Math.max(1, Math.floor(total / 10));
const start = performance.now();
sample(0);
for (let i = 0; i < total; i++) {
  const [tool, args] = calls[i % calls.length];
  const d = engine.assess(tool, args);
  if (d.findings.some((f) => f.code === 'policy.fault')) throw new Error(`fault: ${d.summary}`);
  if (i % 1000 === 0) {
    const temporary = policy.engine({ strict: true });
    temporary.assess(tool, args);
    temporary.dispose();
    disposed += 1;
  }
  if ((i + 1) % step === 0) sample(i + 1);
}
const seconds = (performance.now() - start) / 1000;
console.log(`\n${total} calls in ${seconds.toFixed(1)} s (${((seconds * 1e6) / total).toFixed(1)} µs per call).`);
