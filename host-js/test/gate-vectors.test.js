// The gate vectors (tests/gate/*.jsonl) in Node, through the component's
// `gate` interface: every step's text must equal the expected one, and the
// outputs go to target/conformance/gate-node.txt for the cross-runtime check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPolicy } from '../src/index.js';
import { runGateVectors } from './gate-lib.js';
import { gateFiles, outDir } from './paths.js';

test('gate vectors in Node', async () => {
  const policy = await loadPolicy();
  const { count, lines, failures } = runGateVectors(policy, gateFiles());
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'gate-node.txt'), lines.map((l) => `${l}\n`).join(''));
  console.log(`node: ${count} gate vectors, ${lines.length} steps`);
  assert.ok(count >= 20, `only ${count} gate vectors`);
  assert.deepEqual(failures, []);
  assert.equal(policy.stats().flows, 0, 'every flow is disposed');
});
