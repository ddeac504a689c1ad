// The conformance vectors and the demo page in headless Chromium (Debian's
// chromium, driven by playwright-core). Never skipped: a missing browser fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';
import { parseVectors } from './conformance-lib.js';
import { outDir, pkg, vectorFiles } from './paths.js';

const CHROMIUM = process.env.TOOLGATE_CHROMIUM ?? '/usr/bin/chromium';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

let server;
let browser;
let base;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium)`);
  // Serves the package directory only: the page sees what a web app would ship.
  server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    try {
      const body = await readFile(join(pkg, path));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
    ],
  });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve) ?? resolve());
});

async function demoPage() {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const started = Date.now();
  await page.goto(`${base}/demo/index.html`);
  await page.waitForFunction(() => window.toolgatePolicy !== undefined, null, { timeout: 30_000 });
  return { page, errors, loadMs: Date.now() - started };
}

test('conformance vectors in Chromium', async () => {
  const { page, errors } = await demoPage();
  const files = vectorFiles();
  const expected = parseVectors(files).length;
  const result = await page.evaluate(async (files) => {
    const { parseVectors, runVectors } = await import('/test/conformance-lib.js');
    const cases = parseVectors(files);
    return { count: cases.length, ...runVectors(window.toolgatePolicy, cases) };
  }, files);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'chromium.jsonl'), result.lines.map((l) => `${l}\n`).join(''));
  console.log(`chromium: ${result.count} conformance cases run`);
  assert.equal(result.count, expected);
  assert.ok(result.count >= 80);
  assert.deepEqual(result.failures, []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the demo page assesses what the user types', async () => {
  const { page, errors, loadMs } = await demoPage();
  console.log(`chromium: demo page loaded the policy in ${loadMs} ms`);
  await page.fill('#tool', 'execute_command');
  await page.fill('#args', '{"command": "rm -rf /", "risk_level": "low"}');
  await page.click('#assess');
  assert.equal(await page.textContent('#verdict'), 'confirm · risk high · source floor');
  assert.match(await page.textContent('#summary'), /rm/);
  await page.fill('#config', '{"denied_tools": ["execute_command"]}');
  await page.click('#assess');
  assert.equal(await page.getAttribute('#verdict', 'class'), 'deny');
  await page.fill('#config', '{"denied_tool": []}');
  await page.click('#assess');
  assert.match(await page.textContent('#verdict'), /configuration error: .*denied_tool/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('no Node built-in is requested by the browser path', async () => {
  const page = await browser.newPage();
  const requested = [];
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  await page.goto(`${base}/demo/index.html`);
  await page.waitForFunction(() => window.toolgatePolicy !== undefined, null, { timeout: 30_000 });
  assert.ok(requested.includes('/gen/toolgate.wasm'), requested.join(', '));
  assert.ok(requested.every((p) => !p.startsWith('/node:')), requested.join(', '));
  await page.close();
});
