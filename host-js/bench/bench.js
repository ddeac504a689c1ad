#!/usr/bin/env node
// The benchmark of the JavaScript host: per-call time over the shared call mix
// (tests/bench/mix.json), the glue of a trivial call, the batch call, Node's
// import-to-first-decision in fresh processes, and page-load-to-first-decision
// in headless Chromium with the bytes the page downloads. Not a test: it prints
// figures for BENCHMARKS.md. `npm run bench` (`-- --quick` for a smoke run).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveDirectory } from '../scripts/static-server.js';
import { gzipSync } from 'node:zlib';
import { loadPolicy } from '../src/index.js';
import { pkg, root } from '../test/paths.js';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 7;
const ROUND_MS = quick ? 20 : 150;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (ns) => (ns / 1000).toFixed(1);

/** Nanoseconds per call of `f`: the median of ROUNDS rounds after a warm-up. */
function perCall(f) {
  for (let i = 0; i < 100; i++) f();
  const samples = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    let n = 0;
    while (Number(process.hrtime.bigint() - start) < ROUND_MS * 1e6) {
      for (let i = 0; i < 16; i++) f();
      n += 16;
    }
    samples.push(Number(process.hrtime.bigint() - start) / n);
  }
  return median(samples);
}

const mix = JSON.parse(readFileSync(join(root, 'tests', 'bench', 'mix.json'), 'utf8'));
const calls = mix.calls.map((c) => ({ name: c.name, tool: c.tool, args: JSON.stringify(c.args) }));

// Per call.
const policy = await loadPolicy();
const engine = policy.engine(mix.config);
// Warm up the whole mix first, so V8 has tiered the hot code up before any
// call is timed (a per-call warm-up of 100 is not enough for that).
for (let i = 0; i < (quick ? 200 : 2000); i++) for (const c of calls) engine.assess(c.tool, c.args);
console.log(`## Node ${process.version} (jco-transpiled component)\n`);
console.log(`| call | decision | µs per call |\n|---|---|---:|`);
let sum = 0;
for (const c of calls) {
  const action = engine.assess(c.tool, c.args).action;
  const ns = perCall(() => engine.assess(c.tool, c.args));
  sum += ns;
  console.log(`| ${c.name.replaceAll('|', '\\|')} | ${action} | ${us(ns)} |`);
}
console.log(`| **mean of the mix** | | **${us(sum / calls.length)}** |`);
const glue = perCall(() => policy.version());
const pairs = calls.map((c) => [c.tool, c.args]);
const batch = perCall(() => engine.assessMany(pairs));
console.log(`\nGlue of the cheapest export (\`version()\`): ${us(glue)} µs per call.`);
console.log(
  `\`assessMany\` over the whole mix: ${us(batch)} µs per batch, ${us(batch / calls.length)} µs per call ` +
    `(one by one: ${us(sum / calls.length)}).`,
);
const start = process.hrtime.bigint();
let n = 0;
while (Number(process.hrtime.bigint() - start) < (quick ? 2e8 : 2e9)) {
  for (const c of calls) engine.assess(c.tool, c.args);
  n += calls.length;
}
console.log(`Throughput, one thread: ${Math.round(n / (Number(process.hrtime.bigint() - start) / 1e9))} calls per second.`);

// Node cold start: fresh processes.
const snippet = `
const t0 = performance.now();
const { loadPolicy } = await import(${JSON.stringify(new URL('../src/index.js', import.meta.url).href)});
const policy = await loadPolicy();
const d = policy.assess('execute_sql', '{"sql":"SELECT 1"}');
const t1 = performance.now();
console.log(JSON.stringify({ sinceStart: t1, sinceImport: t1 - t0, action: d.action }));`;
const runs = [];
for (let i = 0; i < (quick ? 3 : 10); i++) {
  runs.push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', snippet], { encoding: 'utf8' })));
}
console.log(`\n## Cold start\n`);
console.log(`| measure | median |\n|---|---:|`);
console.log(`| Node: import to first decision | ${median(runs.map((r) => r.sinceImport)).toFixed(1)} ms |`);
console.log(`| Node: process start to first decision | ${median(runs.map((r) => r.sinceStart)).toFixed(1)} ms |`);

// The browser: page load to first decision, and what the page downloads.
const { chromium } = await import('playwright-core');
let served = [];
const server = await serveDirectory(pkg, {
  headers: { 'cache-control': 'no-store' },
  onServe: (path, body) => served.push({ path, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length }),
});
const browser = await chromium.launch({
  executablePath: process.env.TOOLGATE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const pageRuns = [];
for (let i = 0; i < (quick ? 2 : 7); i++) {
  served = [];
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/bench/page.html`);
  await page.waitForFunction(() => window.benchResult !== undefined, null, { timeout: 60_000 });
  pageRuns.push({ ...(await page.evaluate(() => window.benchResult)), served: [...served] });
  await context.close();
}
await browser.close();
server.close();
const payload = pageRuns[0].served.filter((s) => !s.path.includes('bench'));
console.log(`| Chromium: page load to first decision (fresh context, no HTTP cache) | ${median(pageRuns.map((r) => r.decided)).toFixed(1)} ms |`);
console.log(`| Chromium: of which loading the policy after the import | ${median(pageRuns.map((r) => r.loaded - r.imported)).toFixed(1)} ms |`);
console.log(`\n## Browser payload\n`);
console.log(`| file | bytes | gzip -9 |\n|---|---:|---:|`);
for (const s of payload) console.log(`| ${s.path} | ${s.bytes} | ${s.gzip} |`);
const total = (key) => payload.reduce((a, s) => a + s[key], 0);
console.log(`| **total** | **${total('bytes')}** | **${total('gzip')}** |`);
