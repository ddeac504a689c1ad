// The seeds' commands in both CLIs: the caller's context (`--context` and
// its flags) and seed 002's discovery, tool prompt, request building and
// response templates, played with the seeds' own examples. The rows live in
// tests/seeds/cli-parity.json, which the Python CLI's test plays too; each
// gives the exit code the specification says, so a row fails when the CLIs
// drift the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsCli, root, rustCli } from './paths.js';

const rows = JSON.parse(readFileSync(join(root, 'tests', 'seeds', 'cli-parity.json'), 'utf8'));

test(`the seeds' commands: ${rows.length} rows, the same bytes and exit codes in both CLIs`, () => {
  assert.ok(existsSync(rustCli), `the Rust CLI is not built at ${rustCli}: run cargo build --release first`);
  const opts = { cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 };
  for (const [what, args, input, status] of rows) {
    const rs = spawnSync(rustCli, args, { ...opts, input });
    const js = spawnSync(process.execPath, [jsCli, ...args], { ...opts, input });
    const label = `${what}: toolgate ${args.join(' ')}`;
    assert.equal(js.stderr, rs.stderr, `${label}: standard error differs`);
    assert.equal(js.stdout, rs.stdout, `${label}: standard output differs`);
    assert.equal(js.status, rs.status, `${label}: exit codes differ`);
    assert.equal(rs.status, status, `${label}: exit code ${rs.status}, the row says ${status}\n${rs.stderr}`);
  }
});

test("the rows say what the seeds' examples give", () => {
  const out = new Map();
  for (const [what, args, input] of rows) {
    out.set(what, spawnSync(rustCli, args, { cwd: root, encoding: 'utf8', input }));
  }
  const request = (what) => JSON.parse(out.get(what).stdout);
  // §7.1: the seed's GET, byte for byte.
  assert.equal(request("seed 002 §7.1: the AI call becomes the seed's GET").url, '/api/n9e/alert-cur-events/list?limit=20&stime=1704067200&etime=1704153600');
  // §7.2: the seed's method, path and body (JSON equal, key order aside).
  const seedBody = { prod: 'host', note: '数据库维护', cate: 0, btime: 1704153600, etime: 1704164400, tags: [{ key: 'ident', func: '==', value: 'db-master-01' }], disabled: 0, mute_time_type: 0 };
  for (const what of ["seed 002 §7.2: the AI call becomes the seed's POST (cause mapped to note, defaults filled)", "seed 002 §4.3: a duration from --now, the group from the context's defaults"]) {
    const r = request(what);
    assert.equal(r.method, 'POST', what);
    assert.equal(r.path, '/api/n9e/busi-group/1/alert-mutes', what);
    assert.deepEqual(JSON.parse(r.body), seedBody, what);
  }
  assert.match(out.get('seed 002 §3.2 GenerateToolPrompt, zh').stdout, /^你可以使用以下工具来完成用户的请求：\n\n1\. \*\*查询告警事件\*\* \(alert_event_list\)\n/);
  assert.match(out.get('seed 002 §6.1: the same call as a Guest').stdout, /permission\.missing/);
  assert.match(out.get('seed 002 §6.1: a business group the user does not own').stdout, /"code":"permission\.not-owner"/);
  const plan = JSON.parse(out.get("check in the context: seed 002 §4.2's plan, the reference unresolved").stdout);
  assert.deepEqual(plan.steps.map((s) => s.decision.action), ['allow', 'confirm']);
  assert.equal(out.get('read-response: §7.1\'s events through the response_template').stdout, '- cpu high (2) on web-01\ntotal: 1\n');
});
