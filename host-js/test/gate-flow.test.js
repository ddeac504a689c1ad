// The gate as a shell over the component's flow: how often a call crosses into
// the component, check-now / settle-later, answers the flow refuses, long
// waits, outputs of any JSON value, and one writer per audit chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPolicy, Gate, GateError, MemorySink, MemoryStore, WebStorageStore } from '../src/index.js';

const policy = await loadPolicy();
const DELETE = '{"sql":"DELETE FROM sessions WHERE expired","risk_level":"medium"}';
const KEY = 'a checkpoint key of 16+ bytes';

const crossings = () => policy.stats().crossings;
const nextRequest = (gate) =>
  new Promise((resolve) => gate.addEventListener('approval-requested', (e) => resolve(e.detail), { once: true }));

function counting() {
  const calls = [];
  return {
    calls,
    execute: async (args) => {
      calls.push(args);
      return `ran ${args}`;
    },
  };
}

// The gate interprets the component's driver (docs/gate-steps.md): each
// operation starts with its first batch of effects and crosses again only
// where an outcome decides the path (the chain's last line under the lock,
// the answer). A confirmed call: start; the write-ahead line, the
// checkpoint, the request and the wait; the answer taken at once (so an
// invalid one is refused to whoever answered); the claim, the record, the
// run; the outcome. The gate's own copy of the choreography crossed 3 times
// (begin, settle, finish); the driven one 5, and an allowed call 3 where it
// crossed 2. A crossing that does no policy work (an operation's start)
// measured about 40 µs in Node; docs/gate-steps.md gives the figures.
test('a confirmed call crosses into the component at most five times', async () => {
  const gate = new Gate(policy, { audit: [new MemorySink()], key: KEY });
  const figures = {};
  const answers = {
    approve: { answer: 'approve', by: 'alice' },
    edit: { answer: 'edit', args: { sql: 'DELETE FROM sessions WHERE expired AND id < 9' } },
    reject: { answer: 'reject', message: 'no' },
  };
  for (const [name, answer] of Object.entries(answers)) {
    const { calls, execute } = counting();
    const before = crossings();
    const asked = nextRequest(gate);
    const running = gate.run({ tool: 'execute_sql', args: DELETE }, execute);
    gate.respond((await asked).id, answer);
    const r = await running;
    figures[name] = crossings() - before;
    assert.equal(calls.length, name === 'reject' ? 0 : 1, name);
    assert.equal(r.status, name === 'reject' ? 'rejected' : 'executed', name);
  }
  // Expired: the wait ended, nothing runs.
  const quick = new Gate(policy, { timeoutMs: 30 });
  let before = crossings();
  assert.equal((await quick.run({ tool: 'execute_sql', args: DELETE }, () => 'never')).status, 'expired');
  figures.expire = crossings() - before;
  // Check now, settle later (in another gate on the same store).
  const store = new MemoryStore();
  const a = new Gate(policy, { store, key: KEY });
  const b = new Gate(policy, { store, key: KEY });
  before = crossings();
  const { pending } = await a.check({ tool: 'execute_sql', args: DELETE });
  const { calls, execute } = counting();
  assert.equal((await b.settle(pending.id, { answer: 'approve' }, execute)).status, 'executed');
  figures.checkSettle = crossings() - before;
  assert.equal(calls.length, 1);
  // Resumed after a restart: open, the answer, settle, execute.
  const left = await a.check({ tool: 'execute_sql', args: DELETE });
  const resumer = new Gate(policy, { store, key: KEY, approve: () => ({ answer: 'approve' }) });
  before = crossings();
  assert.equal((await resumer.resume(left.pending.id, execute)).status, 'executed');
  figures.resume = crossings() - before;
  // An allowed call: start, the run, the outcome.
  before = crossings();
  assert.equal((await gate.run({ tool: 'execute_sql', args: { sql: 'SELECT 1' } }, () => '1')).status, 'executed');
  figures.allow = crossings() - before;
  console.log(`crossings per call: ${JSON.stringify(figures)}`);
  assert.deepEqual(figures, { approve: 5, edit: 5, reject: 4, expire: 3, checkSettle: 7, resume: 6, allow: 3 });
});

test('an invalid edit is refused to whoever answered; the call keeps waiting', async () => {
  const sink = new MemorySink();
  const gate = new Gate(policy, { audit: [sink] });
  const { calls, execute } = counting();
  const asked = nextRequest(gate);
  const running = gate.run({ tool: 'execute_sql', args: DELETE }, execute);
  const { id } = await asked;
  for (const args of ['[1]', '{"sql":"SELECT 1","sql":"DROP TABLE users"}', 'not json']) {
    assert.throws(() => gate.respond(id, { answer: 'edit', args }), (e) => e instanceof GateError && e.code === 'invalid-edit', args);
  }
  assert.throws(() => gate.respond(id, { answer: 'maybe' }), (e) => e.code === 'invalid-edit');
  gate.respond(id, { answer: 'approve' });
  const r = await running;
  assert.equal(r.status, 'executed');
  assert.equal(calls.length, 1);
  // Write-ahead and outcome: nothing was recorded of the refused answers.
  assert.equal(policy.verifyAudit(sink.lines.map((l) => `${l}\n`).join('')).records, 2);
});

test('check now, settle later: deny, allow and confirm; a settled approval never runs again', async () => {
  const store = new MemoryStore();
  const sink = new MemorySink();
  const gate = new Gate(policy, { store, key: KEY, config: { denied_tools: ['drop_database'] }, audit: [sink] });
  const seen = [];
  for (const type of ['approval-requested', 'approval-responded', 'approval-processed']) {
    gate.addEventListener(type, (e) => seen.push([type, e.detail.status ?? e.detail.answer ?? e.detail.tool]));
  }
  const denied = await gate.check({ tool: 'drop_database', args: {} });
  assert.equal(denied.decision.action, 'deny');
  assert.equal(denied.pending, null);
  assert.equal(denied.result.status, 'denied');
  assert.match(denied.result.forModel(), /"status":"denied"/);

  const allowed = await gate.check({ tool: 'execute_sql', args: { sql: 'SELECT 1' } });
  assert.equal(allowed.decision.action, 'allow');
  const ran = await allowed.proceed(() => ({ rows: [1] }));
  assert.equal(ran.output, '{"rows":[1]}', 'any JSON value is an output');
  await assert.rejects(allowed.proceed(() => 'again'), (e) => e.code === 'already-answered');

  const asked = await gate.check({ tool: 'execute_sql', args: DELETE, callId: 'call_1' });
  assert.equal(asked.decision.action, 'confirm');
  assert.equal(asked.pending.callId, 'call_1');
  assert.equal((await store.list()).length, 1, 'the checkpoint is stored');
  const { calls, execute } = counting();
  await assert.rejects(gate.settle(asked.pending.id, { answer: 'edit', args: '[1]' }, execute), (e) => e.code === 'invalid-edit');
  assert.equal((await store.list()).length, 1, 'an invalid edit leaves it pending');
  const r = await gate.settle(asked.pending.id, { answer: 'edit', args: { sql: 'DELETE FROM sessions WHERE id = 1' } }, execute);
  assert.equal(r.status, 'executed');
  assert.deepEqual(calls, ['{"sql":"DELETE FROM sessions WHERE id = 1"}']);
  await assert.rejects(gate.settle(asked.pending.id, { answer: 'approve' }, execute), (e) => e.code === 'unknown');
  assert.equal(calls.length, 1);
  // The checkpoint key keys the chain (no audit key given): unkeyed, it does not verify.
  const log = sink.lines.map((l) => `${l}\n`).join('');
  assert.equal(policy.verifyAuditKeyed(log, KEY).records, 5);
  assert.throws(() => policy.verifyAudit(log));
  assert.deepEqual(seen, [
    ['approval-processed', 'denied'],
    ['approval-processed', 'executed'],
    ['approval-requested', 'execute_sql'],
    ['approval-responded', 'edit'],
    ['approval-processed', 'executed'],
  ]);
});

test('a settled checkpoint put back is refused by its tombstone', async () => {
  const store = new MemoryStore();
  const gate = new Gate(policy, { store, key: KEY });
  const { pending } = await gate.check({ tool: 'execute_sql', args: DELETE });
  const checkpoint = await store.get(pending.id);
  const { calls, execute } = counting();
  assert.equal((await gate.settle(pending.id, { answer: 'approve' }, execute)).status, 'executed');
  await store.put(pending.id, checkpoint);
  await assert.rejects(gate.settle(pending.id, { answer: 'approve' }, execute), (e) => e.code === 'already-answered');
  assert.equal(calls.length, 1);
});

test('waits longer than a timer holds do not expire at once', async () => {
  const gate = new Gate(policy, { timeoutMs: 30 * 24 * 3600 * 1000 });
  const asked = nextRequest(gate);
  const running = gate.run({ tool: 'execute_sql', args: DELETE }, () => 'ran');
  const request = await asked;
  assert.ok(request.deadline - request.requestedAt > 2 ** 31);
  await new Promise((resolve) => setTimeout(resolve, 50));
  gate.respond(request.id, { answer: 'approve' });
  assert.equal((await running).status, 'executed');
});

test('outputs: any JSON value, lone surrogates escaped and recorded', async () => {
  const sink = new MemorySink();
  const gate = new Gate(policy, { audit: [sink] });
  const select = { tool: 'execute_sql', args: { sql: 'SELECT 1' } };
  const outputs = [];
  for (const value of [42, null, { a: [true] }, 'plain', 'lone \ud800 end', new Error('x').message]) {
    outputs.push((await gate.run(select, () => value)).output);
  }
  assert.deepEqual(outputs, ['42', 'null', '{"a":[true]}', 'plain', 'lone \\ud800 end', 'x']);
  const failed = await gate.run(select, () => {
    throw new Error('broke \udfff');
  });
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error, 'broke \\udfff');
  assert.equal(policy.verifyAudit(sink.lines.map((l) => `${l}\n`).join('')).records, 14);
});

test('one writer: concurrent calls on one gate chain their lines in order', async () => {
  const sink = new MemorySink();
  const gate = new Gate(policy, { audit: [sink, new MemorySink()], approve: () => ({ answer: 'approve' }) });
  const calls = [];
  const before = crossings();
  for (let i = 0; i < 6; i++) {
    const args = i % 2 === 0 ? { sql: `SELECT ${i}` } : DELETE;
    calls.push(gate.run({ tool: 'execute_sql', args }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5 * (6 - i)));
      return `${i}`;
    }));
  }
  const results = await Promise.all(calls);
  const crossed = crossings() - before;
  // 3 per allowed call, 5 per approved one: lines are sealed under the
  // chain's lock, so a call that waited for it never seals twice.
  console.log(`crossings for 3 allowed and 3 approved concurrent calls: ${crossed}`);
  assert.equal(crossed, 24);
  assert.ok(results.every((r) => r.status === 'executed' && r.auditError === null));
  assert.equal(policy.verifyAudit(sink.lines.map((l) => `${l}\n`).join('')).records, 12);
});

test('tool names and timeouts never touch a prototype', async () => {
  const gate = new Gate(policy, {
    toolTimeouts: new Map([['__proto__', 20], ['constructor', 20]]),
    timeoutMs: 60_000,
  });
  for (const tool of ['__proto__', 'constructor']) {
    const asked = nextRequest(gate);
    const running = gate.run({ tool, args: { x: 1 } }, () => 'ran');
    const request = await asked;
    assert.equal(request.deadline - request.requestedAt, 20, tool);
    assert.equal((await running).status, 'expired', tool);
  }
});

test('a Web Storage claim is a compare-and-set: one of two wins', async () => {
  const items = new Map();
  const storage = {
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => items.set(k, String(v)),
    removeItem: (k) => items.delete(k),
    key: (i) => [...items.keys()][i] ?? null,
    get length() {
      return items.size;
    },
  };
  const a = new WebStorageStore(storage);
  const b = new WebStorageStore(storage);
  const won = await Promise.all([a.claim('x1', Date.now() + 1000), b.claim('x1', Date.now() + 1000)]);
  assert.equal(won.filter(Boolean).length, 1);
  assert.equal(await a.sweep(Date.now() + 2000), 1);
});
