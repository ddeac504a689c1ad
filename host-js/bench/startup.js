#!/usr/bin/env node
// Start-up of two builds of this package, compared in one run: Node import to
// first decision in fresh processes and Chromium page load to first decision in
// fresh contexts, the two builds interleaved so that the load of a shared
// machine falls on both alike. Not a test: it prints medians for BENCHMARKS.md.
//
//   node bench/startup.js BEFORE_DIR AFTER_DIR [ROUNDS]
//
// Each directory is a built copy of host-js (src/, gen/, bench/page.html).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serveDirectory } from '../scripts/static-server.js';

const [a, b, rounds] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node bench/startup.js BEFORE_DIR AFTER_DIR [ROUNDS]');
  process.exit(2);
}
const N = Number(rounds ?? 11);
const dirs = { before: resolve(a), after: resolve(b) };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const snippet = (dir) => `
const t0 = performance.now();
const { loadPolicy } = await import(${JSON.stringify(pathToFileURL(join(dir, 'src', 'index.js')).href)});
const t1 = performance.now();
const policy = await loadPolicy();
const t2 = performance.now();
const d = policy.assess('execute_sql', '{"sql":"SELECT 1"}');
const t3 = performance.now();
console.log(JSON.stringify({ sinceImport: t3 - t0, load: t2 - t1, first: t3 - t2, action: d.action }));`;
const node = { before: [], after: [] };
for (let i = 0; i < N; i++) for (const k of i % 2 ? ['after', 'before'] : ['before', 'after']) {
  node[k].push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', snippet(dirs[k])], { encoding: 'utf8' })));
}
for (const k of ['before', 'after']) {
  const r = node[k];
  console.log(`node ${k}: import->first ${median(r.map((x) => x.sinceImport)).toFixed(1)} ms (loadPolicy ${median(r.map((x) => x.load)).toFixed(1)}, first assess ${median(r.map((x) => x.first)).toFixed(1)})`);
}
const { chromium } = await import('playwright-core');
// One server for both builds, each under its own name.
const both = mkdtempSync(join(tmpdir(), 'toolgate-startup-'));
for (const [name, dir] of Object.entries(dirs)) symlinkSync(dir, join(both, name));
const server = await serveDirectory(both, { headers: { 'cache-control': 'no-store' } });
const browser = await chromium.launch({
  executablePath: process.env.TOOLGATE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = { before: [], after: [] };
for (let i = 0; i < N; i++) for (const k of i % 2 ? ['after', 'before'] : ['before', 'after']) {
  const context = await browser.newContext();
  const p = await context.newPage();
  await p.goto(`http://127.0.0.1:${server.address().port}/${k}/bench/page.html`);
  await p.waitForFunction(() => window.benchResult !== undefined, null, { timeout: 60_000 });
  page[k].push(await p.evaluate(() => window.benchResult));
  await context.close();
}
await browser.close();
server.close();
rmSync(both, { recursive: true, force: true });
for (const k of ['before', 'after']) {
  const r = page[k];
  console.log(`chromium ${k}: page load->first ${median(r.map((x) => x.decided)).toFixed(1)} ms (import ${median(r.map((x) => x.imported)).toFixed(1)}, loadPolicy ${median(r.map((x) => x.loaded - x.imported)).toFixed(1)}, first assess ${median(r.map((x) => x.decided - x.loaded)).toFixed(1)})`);
}
