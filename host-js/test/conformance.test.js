// The conformance vectors, run through the component in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPolicy } from '../src/index.js';
import { parseVectors, runVectors } from './conformance-lib.js';
import { outDir, vectorFiles } from './paths.js';

test('conformance vectors in Node', async () => {
  const cases = parseVectors(vectorFiles());
  assert.ok(cases.length >= 80, `only ${cases.length} conformance cases found`);
  const policy = await loadPolicy();
  const { lines, failures } = runVectors(policy, cases);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'node.jsonl'), lines.map((l) => `${l}\n`).join(''));
  console.log(`node: ${cases.length} conformance cases run`);
  assert.equal(lines.length, cases.length);
  assert.deepEqual(failures, []);
});
