// The conformance and gate vectors and the demo page in headless Chromium (Debian's
// chromium, driven by playwright-core). Never skipped: a missing browser fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveDirectory } from '../scripts/static-server.js';
import { chromium } from 'playwright-core';
import { parseVectors } from './conformance-lib.js';
import { gateFiles, outDir, pkg, root, vectorFiles } from './paths.js';

const screenshotDir = join(root, 'target', 'screenshots');
const screenshotPath = join(screenshotDir, 'approval-demo.png');
const CHROMIUM = process.env.TOOLGATE_CHROMIUM ?? '/usr/bin/chromium';

let server;
let browser;
let base;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium)`);
  // Serves the package directory only: the page sees what a web app would ship.
  server = await serveDirectory(pkg);
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

test('gate vectors in Chromium', async () => {
  const { page, errors } = await demoPage();
  const result = await page.evaluate(async (files) => {
    const { runGateVectors } = await import('/test/gate-lib.js');
    return runGateVectors(window.toolgatePolicy, files);
  }, gateFiles());
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'gate-chromium.txt'), result.lines.map((l) => `${l}\n`).join(''));
  console.log(`chromium: ${result.count} gate vectors, ${result.lines.length} steps`);
  assert.ok(result.count >= 20);
  assert.deepEqual(result.failures, []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('two tabs racing for one approval: exactly one claim wins', async () => {
  const context = await browser.newContext();
  const [a, b] = [await context.newPage(), await context.newPage()];
  for (const page of [a, b]) await page.goto(`${base}/demo/index.html`);
  const claim = (page) =>
    page.evaluate(async () => {
      const { WebStorageStore } = await import('/src/index.js');
      return new WebStorageStore(window.localStorage, 'race.').claim('ap-1', Date.now() + 60_000);
    });
  for (let round = 0; round < 5; round++) {
    await a.evaluate(() => window.localStorage.clear());
    const won = await Promise.all([claim(a), claim(b)]);
    assert.equal(won.filter(Boolean).length <= 1, true, `round ${round}: ${won}`);
    assert.equal(won.filter(Boolean).length, 1, `round ${round}: neither tab won`);
  }
  await context.close();
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

test('the approval demo: allow, approve, reject, edit, deny, expire, resume; screenshot', async () => {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/demo/gate.html?timeout=6000`);
  await page.waitForSelector('#next:not([disabled])', { timeout: 30_000 });
  const statusOf = async (n) => {
    await page.waitForSelector(`#turn-${n}[data-status]`, { timeout: 15_000 });
    return page.getAttribute(`#turn-${n}`, 'data-status');
  };
  const dialogOpen = () => page.waitForSelector('#dialog[open]', { timeout: 10_000 });

  // 1. A read runs at once, no dialog.
  await page.click('#next');
  assert.equal(await statusOf(1), 'executed');
  assert.equal(await page.$('#dialog[open]'), null);

  // 2. A delete waits for a person: the dialog shows the decision and a countdown.
  await page.click('#next');
  await dialogOpen();
  assert.equal(await page.textContent('#d-tool'), 'execute_sql');
  assert.equal(await page.textContent('#d-risk'), 'high');
  assert.match(await page.textContent('#d-findings'), /sql\.destructive/);
  assert.match(await page.textContent('#countdown'), /^\d+ s left$/);
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: screenshotPath });
  console.log(`chromium: approval dialog screenshot at ${screenshotPath}`);
  await page.click('#d-approve');
  assert.equal(await statusOf(2), 'executed');

  // 3. Rejected with a message for the model: never run.
  await page.click('#next');
  await dialogOpen();
  await page.fill('#d-message', 'not the uploads folder');
  await page.click('#d-reject');
  assert.equal(await statusOf(3), 'rejected');
  assert.match(await page.textContent('#turn-3'), /not the uploads folder/);
  assert.doesNotMatch(await page.textContent('#turn-3'), /exited 0/);

  // 4. Edited into a read, with an instruction: the edit runs.
  await page.click('#next');
  await dialogOpen();
  await page.fill('#d-args', '{"sql": "SELECT plan FROM users WHERE id = 7"}');
  await page.fill('#d-instruction', 'check the plan before changing it');
  await page.click('#d-approve');
  assert.equal(await statusOf(4), 'executed');
  const fourth = await page.textContent('#turn-4');
  assert.match(fourth, /SELECT ran/);
  assert.match(fourth, /check the plan before changing it/);

  // 5. A tool configured off is denied without asking.
  await page.click('#next');
  assert.equal(await statusOf(5), 'denied');

  // 6. Nobody answers: it expires, never run.
  await page.click('#next');
  await dialogOpen();
  assert.equal(await statusOf(6), 'expired');
  // Six calls; the three that ran have a write-ahead `executing` record too.
  assert.match(await page.textContent('#audit-state'), /^9 records, chain verified/);

  // A reload while an approval is pending resumes it from localStorage.
  await page.click('#next'); // 7: a read
  assert.equal(await statusOf(7), 'executed');
  await page.click('#next'); // 8: the delete again
  await dialogOpen();
  await page.reload();
  await page.waitForSelector('.turn.resumed', { timeout: 30_000 });
  await dialogOpen();
  await page.click('#d-approve');
  await page.waitForSelector('.turn.resumed[data-status="executed"]', { timeout: 15_000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the approval demo remembers: npm test approved always, then allowed by rule; a chained command still asks', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/demo/gate.html?timeout=6000&script=grants`);
  await page.waitForSelector('#next:not([disabled])', { timeout: 30_000 });
  const statusOf = async (n) => {
    await page.waitForSelector(`#turn-${n}[data-status]`, { timeout: 15_000 });
    return page.getAttribute(`#turn-${n}`, 'data-status');
  };
  const dialogOpen = () => page.waitForSelector('#dialog[open]', { timeout: 10_000 });

  // 1. npm test is confirmed; the dialog shows the rule "always" would allow.
  await page.click('#next');
  await dialogOpen();
  assert.equal(await page.textContent('#d-tool'), 'execute_command');
  const proposed = (await page.textContent('#d-proposed')).split('\n').map((line) => JSON.parse(line));
  assert.ok(proposed.length > 0 && proposed.every((rule) => rule.effect === 'allow' && rule.tool === 'execute_command'));
  assert.equal(await page.isVisible('#d-always'), true);
  await page.click('#d-always');
  assert.equal(await statusOf(1), 'executed');

  // 2. The same call runs at once, allowed by the grant's rule.
  await page.click('#next');
  assert.equal(await statusOf(2), 'executed');
  assert.equal(await page.$('#dialog[open]'), null);
  assert.equal(await page.textContent('#turn-2 .source'), 'rule');
  const grants = await page.evaluate(() => window.toolgateGate.grants());
  assert.equal(grants.length, 1);
  assert.equal(grants[0].grant.scope, 'project');

  // 3. The bypass is never covered (needs the rule matchers): asked, and rejected.
  await page.click('#next');
  await dialogOpen();
  await page.click('#d-reject');
  assert.equal(await statusOf(3), 'rejected');
  assert.deepEqual(errors, []);
  await context.close();
});
