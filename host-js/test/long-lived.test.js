// One Policy kept for a long time, as the MCP gateway or a server embedding
// the library keeps it: engines and gates made and dropped, many calls. Every
// operation must still work at the end, and the instance's memory must not
// grow with the calls (the Rust host's long_lived.rs is the same shape).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicy, Gate } from '../src/index.js';
import { FileStore, JsonlSink } from '../src/node.js';

const policy = await loadPolicy();
const KEY = 'long-lived-suite-key-0123456789ab';
const DELETE = '{"sql":"DELETE FROM sessions WHERE expired"}';
const SELECT = '{"sql":"SELECT 1"}';

test('a keyed gate with a file store and a JSON Lines log checks 300 calls; the policy still works after', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-long-'));
  try {
    for (const round of [1, 2]) {
      const gate = new Gate(policy, {
        store: new FileStore(join(dir, `store-${round}`)),
        key: KEY,
        audit: [new JsonlSink(join(dir, `audit-${round}.jsonl`))],
        auditRequired: true,
        timeoutMs: 3_600_000,
      });
      // The first gate makes the reported 300 checks, the second one more.
      for (let i = 0; i < (round === 1 ? 300 : 1); i++) {
        const checked = await gate.check({ tool: 'execute_sql', args: DELETE, callId: `call-${i}` });
        assert.ok(checked.pending, `check ${i} asks a person`);
      }
    }
    const engine = policy.engine('{}');
    assert.equal(engine.assess('execute_sql', SELECT).action, 'allow');
    engine.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('tens of thousands of calls with engines made and disposed: answers stay right, memory does not grow', () => {
  let settled = null;
  const before = policy.stats().crossings;
  for (let round = 0; round < 200; round++) {
    const engine = policy.engine('{}');
    for (let i = 0; i < 100; i++) {
      assert.equal(engine.assess('execute_sql', SELECT).action, 'allow');
      assert.equal(policy.assess('execute_sql', DELETE).action, 'confirm');
    }
    engine.dispose();
    const { memoryBytes } = policy.stats();
    if (round === 10) settled = memoryBytes;
    if (round > 10) assert.equal(memoryBytes, settled, `round ${round}: the instance's memory grew`);
  }
  const stats = policy.stats();
  console.log(`long-lived: ${stats.crossings - before} calls, memory ${stats.memoryBytes} bytes, engines ${stats.engines}, flows ${stats.flows}`);
  assert.ok(stats.crossings - before >= 40_000);
});
