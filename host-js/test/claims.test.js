// Claim and record as one step, in the JavaScript host: an approval whose
// record cannot be written (a full disk) is refused without being used up; a
// claim a holder that died left without its record is taken back and the
// approval answered again, once; a claim with its record is never taken back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicy, Gate, GateError } from '../src/index.js';
import { FileStore, JsonlSink } from '../src/node.js';

const policy = await loadPolicy();
const KEY = 'a key of at least sixteen bytes';
const DELETE = { tool: 'execute_sql', args: { sql: 'DELETE FROM sessions WHERE expired' } };
const scratch = () => mkdtempSync(join(tmpdir(), 'toolgate-claims-'));

/** A JSON Lines log whose disk fills up while `full` is set. */
class FillingSink extends JsonlSink {
  full = false;
  async append(line) {
    if (this.full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    return super.append(line);
  }
}

const gateOn = (dir, sink) =>
  new Gate(policy, { store: new FileStore(join(dir, 'approvals')), audit: [sink], key: KEY, auditRequired: true, timeoutMs: 3_600_000 });

async function askOne(gate) {
  const { pending } = await gate.check(DELETE);
  assert.notEqual(pending, null);
  return pending.id;
}

test('a full log refuses an approval without using it up; with room again it runs once', async () => {
  const dir = scratch();
  const sink = new FillingSink(join(dir, 'audit.jsonl'));
  const gate = gateOn(dir, sink);
  const id = await askOne(gate);
  sink.full = true;
  let runs = 0;
  await assert.rejects(
    gate.settle(id, { answer: 'approve' }, () => (runs += 1)),
    (e) => e instanceof GateError && e.code === 'audit' && /stays pending/.test(e.message),
  );
  assert.equal(runs, 0);
  const store = new FileStore(join(dir, 'approvals'));
  assert.notEqual(await store.get(id), null, 'the checkpoint is still there');
  assert.equal(await store.claimed(id), false, 'the claim was taken back');
  assert.deepEqual((await gate.pending()).map((p) => p.request.id), [id]);
  sink.full = false;
  const result = await gateOn(dir, new JsonlSink(join(dir, 'audit.jsonl'))).settle(id, { answer: 'approve' }, () => (runs += 1));
  assert.equal(result.status, 'executed');
  assert.equal(runs, 1);
  assert.ok(policy.verifyAuditKeyed(readFileSync(join(dir, 'audit.jsonl'), 'utf8'), KEY).records >= 2);
});

test('a claim left without its record by a holder that died is taken back and answered once', async () => {
  const dir = scratch();
  const log = join(dir, 'audit.jsonl');
  const gate = gateOn(dir, new JsonlSink(log));
  const id = await askOne(gate);
  // A holder killed between its claim and its record.
  writeFileSync(join(dir, 'approvals', `${id}.claim`), String(Date.now() + 3_600_000));
  // Listed again (recovered), not silently lost.
  const fresh = gateOn(dir, new JsonlSink(log));
  assert.deepEqual((await fresh.pending()).map((p) => p.request.id), [id]);
  assert.equal(existsSync(join(dir, 'approvals', `${id}.claim`)), false);
  // Claimed again without recovery: the next answer takes the dead claim over.
  writeFileSync(join(dir, 'approvals', `${id}.claim`), String(Date.now() + 3_600_000));
  let runs = 0;
  const result = await fresh.settle(id, { answer: 'approve' }, () => (runs += 1));
  assert.equal(result.status, 'executed');
  assert.equal(runs, 1);
  // Recorded now: a checkpoint put back is never taken back or run.
  const saved = join(dir, 'approvals', `${id}.json`);
  assert.equal(existsSync(saved), false);
});

test('a claim with its record is never taken back; recovery removes the checkpoint left behind', async () => {
  const dir = scratch();
  const log = join(dir, 'audit.jsonl');
  const gate = gateOn(dir, new JsonlSink(log));
  const id = await askOne(gate);
  const file = join(dir, 'approvals', `${id}.json`);
  const saved = readFileSync(file, 'utf8');
  let runs = 0;
  assert.equal((await gate.settle(id, { answer: 'approve' }, () => (runs += 1))).status, 'executed');
  // A holder killed after its record, before the checkpoint's removal.
  writeFileSync(file, saved);
  const fresh = gateOn(dir, new JsonlSink(log));
  assert.equal(await fresh.recover(), 1);
  assert.equal(existsSync(file), false);
  assert.equal(existsSync(join(dir, 'approvals', `${id}.claim`)), true);
  writeFileSync(file, saved);
  await assert.rejects(fresh.settle(id, { answer: 'approve' }, () => (runs += 1)), (e) => e.code === 'already-answered');
  assert.equal(runs, 1);
});

test('toolgate/mcp with an audit log refuses a call it cannot record, and never forwards it', async () => {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const { z } = await import('zod');
  const { gatedMcp } = await import('toolgate/mcp');
  const seen = [];
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool('search', { description: 'search notes', inputSchema: { q: z.string() }, annotations: { readOnlyHint: true } }, async (args) => {
    seen.push(args);
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(a);
  const full = { append: async () => Promise.reject(new Error('ENOSPC: no space left on device')), last: async () => null };
  const mcp = await gatedMcp(policy, { servers: { notes: { client, trusted: true } }, gate: { audit: [full] } });
  const result = await mcp.callTool({ name: 'notes__search', arguments: { q: 'x' } });
  assert.equal(result.isError, true);
  assert.match(JSON.stringify(result.content), /no space left/);
  assert.deepEqual(seen, []);
  await mcp.close();
});
