// Answers mean what the person saw, in the JavaScript gate: a revoked grant
// never applies again under any key; a gate without a key applies no grant
// from its store; a settled approval put back is not listed as pending; the
// JSON Lines writer lock of a writer killed while holding it stalls nobody.
// Each class both ways: the stretched answer refused, its sibling working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPolicy, Gate, MemoryStore, WebStorageStore } from '../src/index.js';
import { FileStore, JsonlSink } from '../src/node.js';

const policy = await loadPolicy();
const KEY = 'answers-test-key-0123456789';
const NPM_TEST = { tool: 'execute_command', args: { command: 'npm test' } };
const NPM_LINT = { tool: 'execute_command', args: { command: 'npm run lint' } };
const exec = async (args) => `ran ${args}`;
const scratch = () => mkdtempSync(join(tmpdir(), 'toolgate-answers-'));

function storage() {
  const items = new Map();
  return {
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => items.set(k, String(v)),
    removeItem: (k) => items.delete(k),
    key: (i) => [...items.keys()][i] ?? null,
    get length() {
      return items.size;
    },
  };
}

const stores = () => [
  ['files', new FileStore(scratch())],
  ['web storage', new WebStorageStore(storage())],
  ['memory', new MemoryStore()],
];

const decided = async (gate, call) => {
  const checked = await gate.check(call);
  if (checked.pending !== null) return 'ask';
  return checked.proceed !== null ? 'run' : 'done';
};

test('a revoked grant copied back under another key never applies, in any store or gate', async () => {
  for (const [name, store] of stores()) {
    const gate = new Gate(policy, { key: KEY, store, approve: () => ({ answer: 'approve', remember: 'project' }) });
    assert.equal((await gate.run(NPM_TEST, exec)).status, 'executed', name);
    assert.equal((await gate.run(NPM_LINT, exec)).status, 'executed', name);
    const grants = (await store.list()).filter(([key]) => key.startsWith('grant-'));
    assert.equal(grants.length, 2, name);
    const [key, sealed] = grants.find(([, text]) => text.includes('"test"'));
    const id = key.slice('grant-'.length);
    assert.equal(await gate.revoke(id), true, name);
    await store.put('grant-copied-1', sealed);
    await store.put(`grant-${id}x`, sealed);
    assert.equal(await decided(gate, NPM_TEST), 'ask', `${name}: the revoking gate`);
    const fresh = new Gate(policy, { key: KEY, store });
    assert.equal(await decided(fresh, NPM_TEST), 'ask', `${name}: a gate that never saw it`);
    assert.ok((await fresh.grants()).every((g) => !g.ok || g.grant.id !== id), name);
    // The grant never revoked still applies.
    assert.equal(await decided(gate, NPM_LINT), 'run', name);
    assert.equal(await decided(fresh, NPM_LINT), 'run', name);
  }
});

test('revoking a copy revokes the grant under its own key too', async () => {
  const store = new FileStore(scratch());
  const gate = new Gate(policy, { key: KEY, store, approve: () => ({ answer: 'approve', remember: 'project' }) });
  await gate.run(NPM_TEST, exec);
  const [, sealed] = (await store.list()).find(([key]) => key.startsWith('grant-'));
  await store.put('grant-elsewhere', sealed);
  assert.equal(await gate.revoke('elsewhere'), true);
  assert.equal(await decided(new Gate(policy, { key: KEY, store }), NPM_TEST), 'ask');
});

function plantedSessionGrant(session) {
  const grant = {
    id: 'g-planted',
    scope: 'session',
    tool: 'execute_command',
    rules: [{ id: 'g-planted', effect: 'allow', tool: 'execute_command' }],
    created_at: 1,
    expires_at: null,
    approval_id: 'ap-planted',
    by: null,
    session_id: session,
    user_id: null,
    gate: 'elsewhere',
  };
  return JSON.stringify({ format: 'toolgate.grant/1', grant, mac: null });
}

test('an unsigned gate applies no grant from its store; its own session grants apply', async () => {
  const store = new FileStore(scratch());
  await store.put('grant-g-planted', plantedSessionGrant('s1'));
  const gate = new Gate(policy, { store, unsigned: true, approve: () => ({ answer: 'approve', remember: 'session' }) });
  const rm = { tool: 'execute_command', args: { command: 'rm -rf /srv/data' }, sessionId: 's1', userId: 'u' };
  assert.equal(await decided(gate, rm), 'ask');
  assert.deepEqual(await gate.grants(), []);
  const test = { ...NPM_TEST, sessionId: 's1', userId: 'u' };
  assert.equal((await gate.run(test, exec)).status, 'executed');
  assert.equal(await decided(gate, test), 'run');
});

test('a settled checkpoint put back is not listed as pending, and never runs', async () => {
  for (const [name, store] of stores()) {
    const gate = new Gate(policy, { key: KEY, store, timeoutMs: 600_000 });
    const first = await gate.check(NPM_TEST);
    const id = first.pending.id;
    const saved = await store.get(id);
    await gate.settle(id, { answer: 'approve' }, exec);
    await store.put(id, saved);
    const live = await gate.check(NPM_LINT);
    const listed = (await gate.pending()).map((p) => p.request.id);
    assert.deepEqual(listed, [live.pending.id], name);
    const fresh = new Gate(policy, { key: KEY, store });
    await assert.rejects(fresh.settle(id, { answer: 'approve' }, () => assert.fail('never')), name);
  }
});

test('approval ids are not a counter: each carries 64 random bits', async () => {
  const gate = new Gate(policy, {});
  const a = (await gate.check(NPM_TEST)).pending.id;
  const b = (await gate.check(NPM_TEST)).pending.id;
  const tail = (id) => id.split('-').at(-1);
  assert.match(tail(a), /^[0-9a-f]{8,}$/);
  assert.notEqual(tail(a), tail(b));
});

const here = fileURLToPath(new URL('.', import.meta.url));

test('a JSON Lines writer killed while holding the lock stalls nobody; a live holder is waited for', async () => {
  const dir = scratch();
  const log = join(dir, 'audit.jsonl');
  const ready = `${log}.ready`;
  // The child takes the lock and blocks inside `seal` until it is killed.
  const holder = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { JsonlSink } from ${JSON.stringify(join(here, '..', 'src', 'node.js'))};
       import { writeFileSync } from 'node:fs';
       await new JsonlSink(${JSON.stringify(log)}).appendSealed(() => {
         writeFileSync(${JSON.stringify(ready)}, 'held');
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120000);
         return '{"hash":"late"}';
       });`,
    ],
    { stdio: 'ignore' },
  );
  const began = Date.now();
  while (!existsSync(ready)) {
    assert.ok(Date.now() - began < 30_000, 'the holder never took the lock');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  holder.kill('SIGKILL');
  await new Promise((resolve) => holder.once('exit', resolve));
  assert.ok(existsSync(`${log}.lock`), 'the dead writer left its lock');
  const started = Date.now();
  await new JsonlSink(log).appendSealed(() => '{"hash":"next"}');
  assert.ok(Date.now() - started < 2000, `the next writer waited ${Date.now() - started} ms`);
  assert.match(readFileSync(log, 'utf8'), /"next"/);

  // Benign: a live holder's lock (this process) is honoured.
  const self = readFileSync('/proc/self/stat', 'utf8');
  const start = self.slice(self.lastIndexOf(')') + 1).trim().split(/\s+/)[19];
  const { readlinkSync, unlinkSync } = await import('node:fs');
  writeFileSync(`${log}.lock`, `${process.pid} ${start} ${readlinkSync('/proc/self/ns/pid')}`);
  setTimeout(() => unlinkSync(`${log}.lock`), 600);
  const waited = Date.now();
  await new JsonlSink(log).appendSealed(() => '{"hash":"after"}');
  assert.ok(Date.now() - waited >= 500, 'a live lock was taken over');
});
