// The approval gate in JavaScript: every path of a confirm, the executor never
// invoked when a call must not run, restart and resume (also across hosts),
// forged checkpoints, double answers, shadow mode, and an audit that verifies
// until a line is touched (also by the Rust CLI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicy, Gate, GateError, MemorySink, WebStorageStore, CallbackSink, AuditBrokenError } from '../src/index.js';
import { FileStore, JsonlSink } from '../src/node.js';
import { root, rustCli } from './paths.js';

const policy = await loadPolicy();
const scratch = () => mkdtempSync(join(tmpdir(), 'toolgate-gate-'));
const DELETE = '{"sql":"DELETE FROM sessions WHERE expired","risk_level":"medium"}';

/** An executor that counts its calls and echoes its arguments. */
function counting() {
  const calls = [];
  const execute = async (args) => {
    calls.push(args);
    return `ran ${args}`;
  };
  return { calls, execute };
}

const nextRequest = (gate) =>
  new Promise((resolve) => gate.addEventListener('approval-requested', (e) => resolve(e.detail), { once: true }));

/** Runs `call`, answers its request with `respond(gate, request)`, returns the result and the runs. */
async function runAnswered(gate, call, respond) {
  const { calls, execute } = counting();
  const requested = nextRequest(gate);
  const running = gate.run(call, execute);
  const request = await requested;
  await respond(gate, request);
  const result = await running;
  return { result, runs: calls.length, calls, request };
}

test('allow runs without asking; deny never runs', async () => {
  const gate = new Gate(policy, { config: { denied_tools: ['drop_database'] } });
  const { calls, execute } = counting();
  const r = await gate.run({ tool: 'execute_sql', args: { sql: 'SELECT 1', risk_level: 'low' } }, execute);
  assert.equal(r.status, 'executed');
  assert.equal(r.output, 'ran {"sql":"SELECT 1"}', 'risk_level is stripped');
  assert.match(r.forModel(), /^\{"status":"executed","output":"ran /);
  const d = await gate.run({ tool: 'drop_database', args: {} }, execute);
  assert.equal(d.status, 'denied');
  assert.match(d.forModel(), /"status":"denied"/);
  assert.equal(calls.length, 1);
});

test('approve runs once, the events come in order, a second answer is refused', async () => {
  const gate = new Gate(policy);
  const seen = [];
  for (const type of ['approval-requested', 'approval-responded', 'approval-processed']) {
    gate.addEventListener(type, () => seen.push(type));
  }
  const call = { tool: 'execute_sql', args: DELETE, description: 'runs SQL', callId: 'call_7' };
  const { result, runs } = await runAnswered(gate, call, (g, request) => {
    assert.equal(request.tool, 'execute_sql');
    assert.equal(request.description, 'runs SQL');
    assert.equal(request.callId, 'call_7');
    assert.equal(request.decision.action, 'confirm');
    assert.ok(request.deadline >= request.requestedAt + 29_000);
    g.respond(request.id, { answer: 'approve', by: 'alice' });
    assert.throws(() => g.respond(request.id, { answer: 'approve' }), (e) => e instanceof GateError && e.code === 'already-answered');
  });
  assert.equal(result.status, 'executed');
  assert.equal(runs, 1);
  assert.equal(result.executedArgs, '{"sql":"DELETE FROM sessions WHERE expired"}');
  assert.deepEqual(seen, ['approval-requested', 'approval-responded', 'approval-processed']);
  assert.throws(() => gate.respond(result.approvalId, { answer: 'approve' }), (e) => e.code === 'already-answered');
  assert.throws(() => gate.respond('nope', { answer: 'approve' }), (e) => e.code === 'unknown');
});

test('reject never runs and tells the model; the instruction comes back', async () => {
  const gate = new Gate(policy);
  const { result, runs } = await runAnswered(gate, { tool: 'execute_sql', args: DELETE }, (g, request) =>
    g.respond(request.id, {
      answer: 'reject',
      message: 'only delete sessions older than a week',
      instruction: 'ask before deleting anything',
    }),
  );
  assert.equal(runs, 0);
  assert.equal(result.status, 'rejected');
  assert.equal(result.instruction, 'ask before deleting anything');
  assert.match(result.forModel(), /"status":"rejected"/);
  assert.match(result.forModel(), /only delete sessions older than a week/);
});

test('an edit that stays allowed runs the edited arguments', async () => {
  const gate = new Gate(policy);
  const { result, runs, calls } = await runAnswered(gate, { tool: 'execute_sql', args: DELETE }, (g, request) => {
    assert.throws(() => g.respond(request.id, { answer: 'edit', args: '[1]' }), (e) => e.code === 'invalid-edit');
    g.respond(request.id, {
      answer: 'edit',
      args: { sql: 'SELECT count(*) FROM sessions WHERE expired' },
      instruction: 'count first',
    });
  });
  assert.equal(result.status, 'executed');
  assert.equal(runs, 1);
  assert.equal(result.decision.action, 'allow', 'the edit was decided afresh');
  assert.deepEqual(calls, ['{"sql":"SELECT count(*) FROM sessions WHERE expired"}']);
  assert.equal(result.instruction, 'count first');
});

test('an edit to a denied operation stays denied and never runs', async () => {
  const gate = new Gate(policy, { config: { tools: { http_request: { deny_hosts: ['evil.example'] } } } });
  const call = { tool: 'http_request', args: { method: 'POST', url: 'https://api.example.com/items' } };
  const { result, runs } = await runAnswered(gate, call, (g, request) => {
    assert.equal(request.decision.action, 'confirm');
    g.respond(request.id, { answer: 'edit', args: { method: 'POST', url: 'https://evil.example/items' } });
  });
  assert.equal(result.status, 'denied');
  assert.equal(runs, 0);
  assert.ok(result.decision.findings.some((f) => f.code === 'http.denied-host'));
});

test('timeouts expire without running; per-tool timeouts apply; late answers are refused', async () => {
  const gate = new Gate(policy, { timeoutMs: 150, toolTimeouts: { execute_command: 50 } });
  const { calls, execute } = counting();
  const started = Date.now();
  const r = await gate.run({ tool: 'execute_command', args: { command: 'rm -rf build' } }, execute);
  assert.equal(r.status, 'expired');
  assert.ok(Date.now() - started < 1500);
  assert.match(r.forModel(), /in time/);
  const s = await gate.run({ tool: 'execute_sql', args: DELETE }, execute);
  assert.equal(s.status, 'expired');
  assert.equal(calls.length, 0);
  assert.throws(() => gate.respond(s.approvalId, { answer: 'approve' }), (e) => e.code === 'already-answered');
});

test('cancel, and the approve callback', async () => {
  const gate = new Gate(policy);
  const { result, runs } = await runAnswered(gate, { tool: 'execute_sql', args: DELETE }, (g, request) => g.cancel(request.id));
  assert.equal(result.status, 'cancelled');
  assert.equal(runs, 0);

  let asked = 0;
  const auto = new Gate(policy, {
    approve: async (request) => {
      asked += 1;
      return request.args.includes('DELETE') ? { answer: 'reject', message: 'no deletes today' } : { answer: 'approve' };
    },
  });
  const { calls, execute } = counting();
  assert.equal((await auto.run({ tool: 'execute_sql', args: DELETE }, execute)).status, 'rejected');
  assert.equal((await auto.run({ tool: 'execute_sql', args: { sql: 'UPDATE t SET a = 1' } }, execute)).status, 'executed');
  assert.equal(asked, 2);
  assert.equal(calls.length, 1);
});

test('a restart resumes pending approvals from a file store; forged ones are refused', async () => {
  const dir = scratch();
  const key = 'checkpoint key, 16+ bytes';
  const first = new Gate(policy, { store: new FileStore(dir), key, timeoutMs: 5000 });
  const requested = nextRequest(first);
  // The first process asks, then is abandoned while the request is pending.
  // Its wait ends refused (the second gate claimed the approval).
  first
    .run({ tool: 'execute_sql', args: DELETE, sessionId: 's1', userId: 'u1' }, () => {
      throw new Error('the first process must never run it');
    })
    .catch(() => {});
  const request = await requested;
  assert.ok(existsSync(join(dir, `${request.id}.json`)));

  const second = new Gate(policy, { store: new FileStore(dir), key });
  const pending = await second.pending();
  assert.equal(pending.length, 1);
  assert.equal(pending[0].ok, true);
  assert.equal(pending[0].request.sessionId, 's1');
  assert.equal(pending[0].request.args, DELETE);
  const { calls, execute } = counting();
  const again = nextRequest(second);
  const resumed = second.resume(request.id, execute);
  const shown = await again;
  assert.equal(shown.id, request.id);
  second.respond(request.id, { answer: 'approve' });
  const r = await resumed;
  assert.equal(r.status, 'executed');
  assert.equal(calls.length, 1);
  assert.deepEqual(await second.pending(), [], 'the checkpoint is removed');
  await assert.rejects(second.resume(request.id, execute), (e) => e.code === 'unknown');

  // A forged checkpoint (the arguments changed while it waited) is refused.
  const forgedDir = scratch();
  const third = new Gate(policy, { store: new FileStore(forgedDir), key, timeoutMs: 5000 });
  const asked = nextRequest(third);
  third.run({ tool: 'execute_sql', args: DELETE }, () => {
    throw new Error('never');
  });
  const victim = await asked;
  const file = join(forgedDir, `${victim.id}.json`);
  writeFileSync(file, readFileSync(file, 'utf8').replace('DELETE FROM sessions WHERE expired', 'DROP TABLE sessions'));
  const reader = new Gate(policy, { store: new FileStore(forgedDir), key });
  const listed = await reader.pending();
  assert.equal(listed[0].ok, false);
  assert.equal(listed[0].error.cause.kind, 'forged');
  await assert.rejects(
    reader.resume(victim.id, () => {
      throw new Error('a forged checkpoint must never run');
    }),
    (e) => e.code === 'checkpoint' && e.cause.kind === 'forged',
  );
  // An unsigned checkpoint is refused by a gate with a key.
  const unsignedDir = scratch();
  const plain = new Gate(policy, { store: new FileStore(unsignedDir), unsigned: true, timeoutMs: 5000 });
  const waiting = nextRequest(plain);
  plain.run({ tool: 'execute_sql', args: DELETE }, () => {
    throw new Error('never');
  });
  await waiting;
  const keyed = new Gate(policy, { store: new FileStore(unsignedDir), key });
  assert.equal((await keyed.pending())[0].error.cause.kind, 'unsigned');
});

test('across hosts: a pending approval the Rust host left is resumed here, and the Rust CLI reads ours', async () => {
  const left = join(root, 'target', 'cross-host', 'from-rust');
  assert.ok(existsSync(left), `run the Rust tests first: ${left} is missing`);
  // A copy, so the Rust host's checkpoint stays for the next run.
  const fromRust = join(scratch(), 'from-rust');
  cpSync(left, fromRust, { recursive: true });
  const gate = new Gate(policy, { store: new FileStore(fromRust), key: 'cross-host key of 16+ bytes' });
  const pending = await gate.pending();
  assert.equal(pending.length, 1, JSON.stringify(pending));
  assert.equal(pending[0].ok, true, String(pending[0].error));
  const request = pending[0].request;
  assert.equal(request.sessionId, 'cross-host');
  assert.equal(request.callId, 'call_rs');
  const { calls, execute } = counting();
  const shown = nextRequest(gate);
  const resumed = gate.resume(request.id, execute);
  await shown;
  gate.respond(request.id, { answer: 'edit', args: { sql: 'DELETE FROM sessions WHERE expired AND id < 100' } });
  const r = await resumed;
  assert.equal(r.status, 'executed');
  assert.deepEqual(calls, ['{"sql":"DELETE FROM sessions WHERE expired AND id < 100"}']);
  assert.deepEqual(readdirSync(fromRust).filter((f) => f.endsWith('.json')), []);

  // The other way: checkpoints written here, listed and verified by the Rust CLI.
  const dir = scratch();
  const keyFile = join(dir, 'key');
  writeFileSync(keyFile, 'cross-host key of 16+ bytes\n');
  const store = join(dir, 'store');
  const js = new Gate(policy, { store: new FileStore(store), key: 'cross-host key of 16+ bytes', timeoutMs: 5000 });
  const asked = nextRequest(js);
  js.run({ tool: 'execute_command', args: { command: 'rm -rf /tmp/build' }, sessionId: 'js' }, () => {
    throw new Error('never');
  });
  const mine = await asked;
  const listed = spawnSync(rustCli, ['approvals', 'list', store, '--key-file', keyFile], { encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  const fromCli = JSON.parse(listed.stdout.trim());
  assert.equal(fromCli.id, mine.id);
  assert.equal(fromCli.args, '{"command":"rm -rf /tmp/build"}');
  assert.equal(fromCli.session_id, 'js');
  const wrongKey = join(dir, 'wrong');
  writeFileSync(wrongKey, 'another key of 16+ bytes');
  const refused = spawnSync(rustCli, ['approvals', 'list', store, '--key-file', wrongKey], { encoding: 'utf8' });
  assert.equal(refused.status, 4);
  assert.match(refused.stdout, /forged or changed/);
});

test('a Web Storage store keeps pending approvals across page loads', async () => {
  const items = new Map();
  const storage = {
    get length() {
      return items.size;
    },
    key: (i) => [...items.keys()][i] ?? null,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => items.set(k, String(v)),
    removeItem: (k) => items.delete(k),
  };
  storage.setItem('unrelated', 'x');
  const gate = new Gate(policy, { store: new WebStorageStore(storage), unsigned: true, timeoutMs: 5000 });
  const asked = nextRequest(gate);
  gate.run({ tool: 'execute_sql', args: DELETE }, () => 'never');
  const request = await asked;
  const reloaded = new Gate(policy, { store: new WebStorageStore(storage), unsigned: true });
  const pending = await reloaded.pending();
  assert.equal(pending.length, 1);
  assert.equal(pending[0].request.id, request.id);
});

test('shadow mode never blocks and records what it would have done', async () => {
  const lines = [];
  const gate = new Gate(policy, {
    config: { denied_tools: ['drop_database'] },
    shadow: true,
    audit: [new CallbackSink((line) => lines.push(line))],
  });
  const { calls, execute } = counting();
  const confirm = await gate.run({ tool: 'execute_sql', args: DELETE }, execute);
  const deny = await gate.run({ tool: 'drop_database', args: {} }, execute);
  assert.equal(calls.length, 2, 'shadow mode runs everything');
  assert.deepEqual([confirm.status, confirm.decision.action], ['executed', 'confirm']);
  assert.deepEqual([deny.status, deny.decision.action], ['executed', 'deny']);
  // Each execution has a write-ahead `executing` record before its outcome.
  assert.equal(lines.length, 4);
  const outcomes = lines.filter((l) => !l.includes('"status":"executing"'));
  assert.equal(outcomes.length, 2);
  assert.match(outcomes[1], /"action":"deny"/);
  assert.match(outcomes[1], /"shadow":true/);
});

test('the audit of a session verifies, breaks when touched, and the Rust CLI agrees', async () => {
  const dir = scratch();
  const log = join(dir, 'audit.jsonl');
  const memory = new MemorySink();
  const build = () =>
    new Gate(policy, {
      config: { denied_tools: ['drop_database'] },
      timeoutMs: 100,
      audit: [new JsonlSink(log), memory],
    });
  const gate = build();
  const { execute } = counting();
  await gate.run({ tool: 'execute_sql', args: { sql: 'SELECT 1' }, sessionId: 's1', userId: '42' }, execute);
  await gate.run({ tool: 'drop_database', args: {} }, execute);
  await gate.run({ tool: 'execute_sql', args: DELETE }, execute); // expires
  await runAnswered(gate, { tool: 'execute_sql', args: DELETE }, (g, request) =>
    g.respond(request.id, { answer: 'edit', args: { sql: 'DELETE FROM sessions WHERE id = 1' }, by: 'alice' }),
  );
  await gate.run({ tool: 'execute_command', args: { command: 'ls /nope' } }, async () => {
    throw new Error('boom');
  });
  // A new gate on the same log continues the chain.
  await build().run({ tool: 'execute_sql', args: { sql: 'SELECT 2' } }, execute);

  const text = readFileSync(log, 'utf8');
  const summary = policy.verifyAudit(text);
  // Six calls; the four that ran have a write-ahead `executing` record too.
  assert.equal(summary.records, 10);
  const all = text.trim().split('\n');
  assert.match(all[0], /"status":"executing"/);
  const lines = all.filter((l) => !l.includes('"status":"executing"'));
  assert.match(lines[0], /"session_id":"s1","user_id":"42"/);
  assert.match(lines[1], /"status":"denied"/);
  assert.match(lines[2], /"outcome":"expired"/);
  assert.match(lines[3], /"outcome":"edited","by":"alice"/);
  assert.ok(
    lines[3].includes(
      '"diff":[{"path":"/sql","before":"DELETE FROM sessions WHERE expired","after":"DELETE FROM sessions WHERE id = 1"},{"path":"/risk_level","before":"medium","after":null}]',
    ),
    lines[3],
  );
  assert.match(lines[4], /"status":"failed","success":false,"result":null,"error":"boom"/);
  assert.equal(memory.lines.join('\n'), all.join('\n'), 'every sink holds the same chain');

  const changed = text.replace('"tool":"drop_database"', '"tool":"drop_databases"');
  assert.throws(() => policy.verifyAudit(changed), (e) => e instanceof AuditBrokenError && e.line === 3);
  const removed = all.filter((_, i) => i !== 2).join('\n');
  assert.throws(() => policy.verifyAudit(removed), (e) => e instanceof AuditBrokenError && e.line === 3);

  // The Rust CLI verifies the log this host wrote, and finds the same break.
  const ok = spawnSync(rustCli, ['audit', 'verify', log], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, `ok: 10 records, head ${summary.head}\n`);
  const brokenFile = join(dir, 'broken.jsonl');
  writeFileSync(brokenFile, changed);
  const broken = spawnSync(rustCli, ['audit', 'verify', brokenFile], { encoding: 'utf8' });
  assert.equal(broken.status, 4);
  assert.match(broken.stdout, /^broken: line 3:/);
  // A sample record, for the record.
  writeFileSync(join(root, 'target', 'cross-host', 'sample-audit.jsonl'), text);
});

test('an audit sink that fails is reported on the result, and the call still counts', async () => {
  const broken = {
    last: async () => {
      throw new Error('cannot read the log');
    },
    append: async () => {
      throw new Error('disk full');
    },
  };
  const gate = new Gate(policy, { audit: [broken] });
  const { calls, execute } = counting();
  const r = await gate.run({ tool: 'execute_sql', args: { sql: 'SELECT 1' } }, execute);
  assert.equal(r.status, 'executed');
  assert.equal(calls.length, 1);
  assert.match(r.auditError, /cannot read the log/);
});
