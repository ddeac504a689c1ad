// Approvals that hold (issue 20), in the JavaScript host: a resumed approval
// is decided again under the current configuration; keys that are not keys
// fail loudly; an answer after the deadline never runs; an approval is claimed
// once across gates, tabs and processes, a settled checkpoint put back never
// runs again, and a failing store runs nothing; a torn audit log is repaired
// and recorded, a write-ahead record precedes every execution, and text JSON
// cannot carry is escaped; tool names never index a plain object; long
// timeouts wait; arguments that are not one clean object never reach a tool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPolicy, Gate, GateError, MemoryStore, WebStorageStore } from '../src/index.js';
import { FileStore, JsonlSink } from '../src/node.js';

const policy = await loadPolicy();
const scratch = () => mkdtempSync(join(tmpdir(), 'toolgate-approvals-'));
const KEY = 'a key of at least sixteen bytes';
const DELETE = '{"sql":"DELETE FROM sessions WHERE expired","risk_level":"medium"}';
const src = fileURLToPath(new URL('../src/', import.meta.url));
const bin = fileURLToPath(new URL('../bin/toolgate.js', import.meta.url));

function counting() {
  const calls = [];
  return { calls, execute: async (args) => (calls.push(args), `ran ${args}`) };
}

const nextRequest = (gate) =>
  new Promise((resolve) => gate.addEventListener('approval-requested', (e) => resolve(e.detail), { once: true }));

/** Leaves `call` pending in a file store at `dir`; the abandoned wait ends quietly. */
async function leavePending(dir, config, call, timeoutMs = 3000) {
  const gate = new Gate(policy, { config, store: new FileStore(dir), key: KEY, timeoutMs });
  const asked = nextRequest(gate);
  const running = gate.run(call, () => {
    throw new Error('the first gate never runs it');
  });
  running.catch(() => {});
  return { request: await asked, running };
}

const approving = (store, config = {}) => new Gate(policy, { config, store, key: KEY, approve: () => ({ answer: 'approve' }) });

test('a resumed approval is decided again under the current configuration', async () => {
  const dir = scratch();
  const { request } = await leavePending(dir, {}, { tool: 'drop_database', args: { name: 'prod' } });
  assert.ok(request.configHash.length === 64 && request.gate.length > 0);
  const { calls, execute } = counting();
  const r = await approving(new FileStore(dir), { denied_tools: ['drop_database'] }).resume(request.id, execute);
  assert.equal(r.status, 'denied');
  assert.equal(r.decision.action, 'deny');
  assert.equal(calls.length, 0);

  const same = scratch();
  const pending = await leavePending(same, { denied_tools: [] }, { tool: 'execute_sql', args: DELETE });
  const ok = await approving(new FileStore(same), { denied_tools: [] }).resume(pending.request.id, execute);
  assert.equal(ok.status, 'executed');
  assert.equal(calls.length, 1);
});

test('keys that are not keys fail loudly', () => {
  for (const key of ['', 'short', new Uint8Array(15)]) {
    assert.throws(() => new Gate(policy, { key }), (e) => e instanceof GateError && e.code === 'key');
  }
  assert.throws(() => new Gate(policy, { store: new MemoryStore() }), (e) => e instanceof GateError && e.code === 'key');
  assert.ok(new Gate(policy, { store: new MemoryStore(), unsigned: true }));
  assert.ok(new Gate(policy, { key: KEY }));
  assert.throws(
    () => policy.sealCheckpoint({ id: 'a', tool: 't', args: '{}', decision: { action: 'confirm', risk: 'high', source: 'default', llm_risk: null, findings: [], summary: 's' }, requested_at: 1, deadline: 2 }, ''),
    (e) => e.kind === 'weak-key',
  );
});

test('an answer after the deadline never runs', async () => {
  const { calls, execute } = counting();
  const zero = new Gate(policy, { timeoutMs: 0, approve: () => ({ answer: 'approve' }) });
  assert.equal((await zero.run({ tool: 'execute_sql', args: DELETE }, execute)).status, 'expired');

  const dir = scratch();
  const copy = scratch();
  const { request, running } = await leavePending(dir, {}, { tool: 'execute_sql', args: DELETE }, 300);
  copyFileSync(join(dir, `${request.id}.json`), join(copy, `${request.id}.json`));
  await running;
  const late = await approving(new FileStore(copy)).resume(request.id, execute);
  assert.equal(late.status, 'expired');
  assert.equal(calls.length, 0);
});

test('two gates, two tabs and two processes answering one approval run it once', async () => {
  // Two gates over one file store.
  const dir = scratch();
  const { request } = await leavePending(dir, {}, { tool: 'execute_sql', args: DELETE });
  const { calls, execute } = counting();
  const outcomes = await Promise.allSettled([1, 2].map(() => approving(new FileStore(dir)).resume(request.id, execute)));
  assert.equal(calls.length, 1);
  assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);

  // Two tabs over one Web Storage.
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
  const tab = new Gate(policy, { store: new WebStorageStore(storage), key: KEY, timeoutMs: 3000 });
  const asked = nextRequest(tab);
  tab.run({ tool: 'execute_sql', args: DELETE }, () => 'never').catch(() => {});
  const inTab = await asked;
  const tabs = await Promise.allSettled(
    ['reject', 'approve', 'approve'].map((answer) =>
      new Gate(policy, { store: new WebStorageStore(storage), key: KEY, approve: () => ({ answer }) }).resume(inTab.id, execute),
    ),
  );
  assert.equal(tabs.filter((o) => o.status === 'fulfilled').length, 1);
  assert.ok(calls.length <= 2);

  // Three processes over one directory.
  const race = scratch();
  const marks = scratch();
  const pending = await leavePending(race, {}, { tool: 'execute_sql', args: DELETE });
  const script = `
    import { loadPolicy, Gate } from ${JSON.stringify(join(src, 'index.js'))};
    import { FileStore } from ${JSON.stringify(join(src, 'node.js'))};
    import { writeFileSync } from 'node:fs';
    const policy = await loadPolicy();
    const gate = new Gate(policy, { store: new FileStore(${JSON.stringify(race)}), key: ${JSON.stringify(KEY)}, approve: () => ({ answer: 'approve' }) });
    try {
      const r = await gate.resume(${JSON.stringify(pending.request.id)}, () => {
        writeFileSync(${JSON.stringify(marks)} + '/ran-' + process.pid, '');
        return 'ran';
      });
      console.log('RACE ' + r.status);
    } catch (e) {
      console.log('RACE refused ' + e.code);
    }`;
  const children = [1, 2, 3].map(
    () =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', () => resolve(out));
      }),
  );
  const outs = await Promise.all(children);
  assert.equal(outs.filter((o) => o.includes('RACE executed')).length, 1, outs.join('|'));
  assert.equal(readdirSync(marks).length, 1);
});

test('a settled checkpoint put back never runs again; a failing store runs nothing', async () => {
  const dir = scratch();
  const { request } = await leavePending(dir, {}, { tool: 'execute_sql', args: DELETE });
  const file = join(dir, `${request.id}.json`);
  const saved = readFileSync(file, 'utf8');
  const { calls, execute } = counting();
  assert.equal((await approving(new FileStore(dir)).resume(request.id, execute)).status, 'executed');
  assert.ok(!existsSync(file));
  writeFileSync(file, saved);
  await assert.rejects(approving(new FileStore(dir)).resume(request.id, execute), (e) => e.code === 'already-answered');
  assert.equal(calls.length, 1);

  const sticky = new MemoryStore();
  sticky.remove = async () => {
    throw new Error('disk gone');
  };
  const gate = new Gate(policy, { store: sticky, key: KEY, approve: () => ({ answer: 'approve' }) });
  await assert.rejects(gate.run({ tool: 'execute_sql', args: DELETE }, execute), /disk gone/);
  assert.equal(calls.length, 1);
});

test('the audit: a torn tail is repaired and recorded, write-ahead, lone surrogates escaped', async () => {
  const dir = scratch();
  const log = join(dir, 'audit.jsonl');
  const select = { tool: 'execute_sql', args: { sql: 'SELECT 1' } };
  await new Gate(policy, { audit: [new JsonlSink(log)] }).run(select, () => '1');
  const text = readFileSync(log, 'utf8');
  const half = text.trim().split('\n').at(-1).slice(0, 40);
  writeFileSync(log, text + half);
  const gate = new Gate(policy, { audit: [new JsonlSink(log)] });
  const r = await gate.run(select, () => {
    // Write-ahead: the record is there before the tool runs.
    assert.match(readFileSync(log, 'utf8').trim().split('\n').at(-1), /"status":"executing"/);
    return 'lone \ud800 surrogate';
  });
  assert.equal(r.auditError, null);
  const repaired = readFileSync(log, 'utf8');
  assert.equal(policy.verifyAudit(repaired).records, 5);
  assert.match(repaired, /"status":"gap"/);
  assert.ok(repaired.includes('lone \\\\ud800 surrogate'), repaired);
  const aside = readdirSync(dir).filter((n) => n.includes('.torn-'));
  assert.equal(aside.length, 1);
  assert.equal(readFileSync(join(dir, aside[0]), 'utf8'), half);

  // `audit verify` never prints a tampered line's control characters.
  const evil = join(dir, 'evil.jsonl');
  writeFileSync(evil, '{"seq\u001b[2K\r ok": 1\n');
  for (const cli of [[process.execPath, bin]]) {
    const out = spawnSync(cli[0], [cli[1], 'audit', 'verify', evil], { encoding: 'utf8' });
    assert.equal(out.status, 4);
    assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f]/.test(out.stdout), JSON.stringify(out.stdout));
  }
});

test('a restarted gate continues a log larger than a string can hold, reading only its end', async () => {
  const dir = scratch();
  const log = join(dir, 'audit.jsonl');
  const select = { tool: 'execute_sql', args: { sql: 'SELECT 1' } };
  await new Gate(policy, { audit: [new JsonlSink(log)] }).run(select, () => '1');
  const last = readFileSync(log, 'utf8').trim().split('\n').at(-1);
  // 600 MiB of earlier history (a sparse hole: no disk used, no line in it
  // valid), then the chain's last sealed record. Reading the whole file would
  // pass the largest string Node can make (~512 MiB) and fail.
  const big = 600 * 1024 * 1024;
  writeFileSync(log, '');
  truncateSync(log, big);
  appendFileSync(log, `\n${last}\n`);
  const r = await new Gate(policy, { audit: [new JsonlSink(log)] }).run(select, () => '1');
  assert.equal(r.auditError, null);
  assert.equal(statSync(log).size > big, true);
  // The two new lines continue the old head: write-ahead, then the outcome.
  const handle = await import('node:fs/promises').then((fs) => fs.open(log, 'r'));
  const end = Buffer.alloc(64 * 1024);
  const { bytesRead } = await handle.read(end, 0, end.length, statSync(log).size - end.length);
  await handle.close();
  const lines = end.subarray(0, bytesRead).toString('utf8').trim().split('\n').slice(-3);
  assert.equal(lines[0], last);
  const [a, b, c] = lines.map((l) => JSON.parse(l));
  assert.deepEqual([b.seq, b.prev, b.status], [a.seq + 1, a.hash, 'executing']);
  assert.deepEqual([c.seq, c.prev, c.status], [b.seq + 1, b.hash, 'executed']);
});

test('tool names never index a plain object; long timeouts wait; unclean arguments never run', async () => {
  const gate = new Gate(policy, { toolTimeouts: { execute_sql: 1000 }, approve: () => ({ answer: 'reject' }) });
  for (const tool of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const r = await gate.run({ tool, args: {} }, () => 'ran');
    assert.ok(['denied', 'rejected', 'executed'].includes(r.status), `${tool}: ${r.status}`);
  }

  const long = new Gate(policy, {
    timeoutMs: 2 ** 31 + 1000,
    approve: () => new Promise((resolve) => setTimeout(() => resolve({ answer: 'approve' }), 50)),
  });
  const { calls, execute } = counting();
  assert.equal((await long.run({ tool: 'execute_sql', args: DELETE }, execute)).status, 'executed');

  const approver = new Gate(policy, { approve: () => ({ answer: 'approve' }) });
  for (const args of ['{"sql":"SELECT count(*) FROM users","sql":"DROP TABLE users"}', '{"sql":"SELECT 1"']) {
    const r = await approver.run({ tool: 'execute_sql', args }, execute);
    assert.notEqual(r.status, 'executed', args);
  }
  assert.equal(calls.length, 1);
});

test('stale checkpoints and tombstones are swept', async () => {
  const dir = scratch();
  const stale = scratch();
  const { request, running } = await leavePending(dir, {}, { tool: 'execute_sql', args: DELETE }, 200);
  const name = `${request.id}.json`;
  copyFileSync(join(dir, name), join(stale, name));
  const saved = readFileSync(join(stale, name), 'utf8');
  await running;
  assert.ok(existsSync(join(dir, `${request.id}.claim`)), 'a tombstone until the deadline');
  assert.equal(await approving(new FileStore(stale)).sweep(), 1);
  assert.deepEqual(readdirSync(stale), []);
  assert.equal(await approving(new FileStore(dir)).sweep(), 0);
  assert.deepEqual(readdirSync(dir), []);
  // A swept checkpoint put back expires unrun.
  writeFileSync(join(stale, name), saved);
  const { calls, execute } = counting();
  assert.equal((await approving(new FileStore(stale)).resume(request.id, execute)).status, 'expired');
  assert.equal(calls.length, 0);
});

test('a gate that requires its audit runs nothing it cannot record', async () => {
  const full = { append: async () => Promise.reject(new Error('disk full')), last: async () => null };
  const select = { tool: 'execute_sql', args: { sql: 'SELECT 1' } };
  const { calls, execute } = counting();
  const strict = await new Gate(policy, { audit: [full], auditRequired: true }).run(select, execute);
  assert.equal(strict.status, 'denied');
  assert.match(strict.auditError, /disk full/);
  assert.equal(calls.length, 0);
  const lenient = await new Gate(policy, { audit: [full] }).run(select, execute);
  assert.equal(lenient.status, 'executed');
  assert.equal(calls.length, 1);
});

test('a keyed chain and an anchored head catch rewrites and cuts, in this CLI and the Rust one', async () => {
  const dir = scratch();
  const log = join(dir, 'audit.jsonl');
  const keyFile = join(dir, 'audit.key');
  writeFileSync(keyFile, `${KEY}\n`);
  const gate = new Gate(policy, { audit: [new JsonlSink(log)], auditKey: KEY });
  for (const sql of ['SELECT 1', 'SELECT 2']) await gate.run({ tool: 'execute_sql', args: { sql } }, () => '1');
  const text = readFileSync(log, 'utf8');
  const { head } = policy.verifyAuditKeyed(text, KEY);
  assert.throws(() => policy.verifyAudit(text));
  // Rewritten with the public seal: verifies unkeyed, never keyed.
  const forged = [];
  for (const line of text.trim().split('\n')) {
    const { seq, prev, hash, ...entry } = JSON.parse(line);
    forged.push(policy.sealAudit({ ...entry, result: 'rewritten' }, forged.at(-1) ?? null));
  }
  const forgedText = `${forged.join('\n')}\n`;
  policy.verifyAudit(forgedText);
  assert.throws(() => policy.verifyAuditKeyed(forgedText, KEY));
  const forgedFile = join(dir, 'forged.jsonl');
  writeFileSync(forgedFile, forgedText);
  const cutFile = join(dir, 'cut.jsonl');
  writeFileSync(cutFile, `${text.split('\n')[0]}\n`);
  const { rustCli } = await import('./paths.js');
  for (const cli of [[process.execPath, bin], [rustCli]]) {
    const run = (...args) => spawnSync(cli[0], [...cli.slice(1), 'audit', 'verify', ...args], { encoding: 'utf8' });
    assert.equal(run('--key-file', keyFile, '--head', head, log).status, 0, cli.join(' '));
    assert.equal(run('--key-file', keyFile, forgedFile).status, 4, cli.join(' '));
    assert.equal(run('--key-file', keyFile, cutFile).status, 0, cli.join(' '));
    const cut = run('--key-file', keyFile, '--head', head, cutFile);
    assert.equal(cut.status, 4, cli.join(' '));
    assert.match(cut.stdout, /cut or rewritten/);
    const empty = join(dir, 'empty.key');
    writeFileSync(empty, '');
    const refused = run('--key-file', empty, log);
    assert.equal(refused.status, 1, cli.join(' '));
    assert.match(refused.stderr, /0 bytes/);
  }
  assert.throws(() => new Gate(policy, { auditKey: 'short' }), (e) => e.code === 'key');
});

test('two gates taking turns on one log never fork the chain', async () => {
  const log = join(scratch(), 'audit.jsonl');
  const a = new Gate(policy, { audit: [new JsonlSink(log)] });
  const b = new Gate(policy, { audit: [new JsonlSink(log)] });
  const select = { tool: 'execute_sql', args: { sql: 'SELECT 1' } };
  for (let i = 0; i < 2; i++) {
    assert.equal((await a.run(select, () => '1')).auditError, null);
    assert.equal((await b.run(select, () => '1')).auditError, null);
  }
  assert.equal(policy.verifyAudit(readFileSync(log, 'utf8')).records, 8);
});

test('processes writing one log at once never fork the chain: the writer lock', async () => {
  const log = join(scratch(), 'audit.jsonl');
  const script = `
    import { loadPolicy, Gate } from ${JSON.stringify(join(src, 'index.js'))};
    import { JsonlSink } from ${JSON.stringify(join(src, 'node.js'))};
    const gate = new Gate(await loadPolicy(), { audit: [new JsonlSink(${JSON.stringify(log)})] });
    let errors = 0;
    for (let i = 0; i < 15; i++) {
      const r = await gate.run({ tool: 'execute_sql', args: { sql: 'SELECT ' + i } }, () => String(i));
      if (r.auditError !== null) errors++;
    }
    console.log('ERRORS ' + errors);`;
  const outs = await Promise.all(
    [1, 2, 3].map(
      () =>
        new Promise((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          child.stderr.on('data', (d) => (out += d));
          child.on('close', () => resolve(out));
        }),
    ),
  );
  assert.deepEqual(outs.map((o) => o.trim()), ['ERRORS 0', 'ERRORS 0', 'ERRORS 0'], outs.join('|'));
  // 3 processes × 15 calls × (write-ahead + outcome), one unbroken chain.
  assert.equal(policy.verifyAudit(readFileSync(log, 'utf8')).records, 90);
  assert.ok(!existsSync(`${log}.lock`), 'the writer lock is released');
});
