// The approval demo with the seeds as written (`demo/gate.html?script=seeds`),
// in headless Chromium: seed 002's registry tools under the seed-faithful
// profile (§7.1's query runs; §7.2's mute, level 2, runs and informs, an allow
// with `registry.inform`; §7.4's kill, level 3, waits for a person) and seed
// 004's vocabulary in the dialog and the event log (USER_INTERACTION_*,
// TOOL_APPROVAL, the approval prompt in Chinese and English, the registry
// tool's description). Never skipped: a missing browser fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { serveDirectory } from '../scripts/static-server.js';
import { chromium } from 'playwright-core';
import { pkg } from './paths.js';

const CHROMIUM = process.env.TOOLGATE_CHROMIUM ?? '/usr/bin/chromium';

let server;
let browser;
let base;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium)`);
  server = await serveDirectory(pkg);
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve) ?? resolve());
});

test('the seeds demo: level 1 runs, level 2 runs and informs, level 3 asks in seed 004\'s words', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/demo/gate.html?timeout=6000&script=seeds`);
  await page.waitForSelector('#next:not([disabled])', { timeout: 30_000 });
  const statusOf = async (n) => {
    await page.waitForSelector(`#turn-${n}[data-status]`, { timeout: 15_000 });
    return page.getAttribute(`#turn-${n}`, 'data-status');
  };

  // §7.1: level 1 runs at once; the request is the seed's GET, the response
  // read through the tool's response_template.
  await page.click('#next');
  assert.equal(await statusOf(1), 'executed');
  const first = await page.textContent('#turn-1');
  assert.match(first, /GET \/api\/n9e\/alert-cur-events\/list\?limit=20&stime=1704067200&etime=1704153600 → cpu high on web-01; total 1/);
  assert.doesNotMatch(first, /informed/);

  // §7.2: level 2 under the seed-faithful profile runs without a dialog and
  // informs: an allow with registry.inform, shown in the turn and the events.
  await page.click('#next');
  assert.equal(await statusOf(2), 'executed');
  assert.equal(await page.$('#dialog[open]'), null);
  const second = await page.textContent('#turn-2');
  assert.match(second, /informed: registry\.inform registry level 2: modifies; runs, and the user is informed/);
  assert.match(second, /POST \/api\/n9e\/busi-group\/1\/alert-mutes/);
  assert.equal(await page.textContent('#turn-2 .source'), 'registry');
  assert.match(await page.textContent('#events'), /^registry\.inform alert_mute_create: POST/m);

  // §7.4: level 3 waits for a person; the dialog asks in seed 004's words,
  // with the registry tool's description from its definition.
  await page.click('#next');
  await page.waitForSelector('#dialog[open]', { timeout: 10_000 });
  assert.equal(await page.textContent('#d-prompt'), '是否批准调用工具 "dbm_kill_sessions"? / Approve the call of the tool "dbm_kill_sessions"?');
  assert.equal(await page.textContent('#d-description'), '终止数据库实例上的会话（高风险：正在执行的事务会回滚）。');
  await page.click('#d-approve');
  assert.equal(await statusOf(3), 'executed');

  const events = (await page.textContent('#events')).split('\n');
  const requested = events.find((l) => l.startsWith('USER_INTERACTION_REQUESTED'));
  assert.match(requested, / TOOL_APPROVAL 是否批准调用工具 "dbm_kill_sessions"\? \/ Approve the call of the tool "dbm_kill_sessions"\? — 终止数据库实例上的会话/);
  assert.ok(events.some((l) => /^USER_INTERACTION_RESPONDED \S+ approved: true$/.test(l)), events.join('\n'));
  assert.ok(events.some((l) => /^USER_INTERACTION_PROCESSED \S+ TOOL_APPROVAL executed$/.test(l)), events.join('\n'));
  // The calls that ran unasked have no seed 004 interaction.
  assert.equal(events.filter((l) => l.startsWith('USER_INTERACTION_REQUESTED')).length, 1);
  assert.deepEqual(errors, []);
  await context.close();
});
