// The central promise: every runtime gives the same decision on every
// conformance case, byte for byte. Each runner wrote its decisions, one line a
// case in vector order, to target/conformance/<runtime>.jsonl; this compares
// them. A missing file is a failure, never a skip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNTIMES = ['native', 'wasmtime', 'node', 'chromium', 'python'];
// Every runtime runs the gate vectors too (Python through its flow binding,
// host-py/tests/test_gate_vectors.py).
const GATE_RUNTIMES = RUNTIMES;

function caseNames() {
  const dir = join(root, 'tests', 'conformance');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => `${f} / ${JSON.parse(l).name}`),
    );
}

test('every runtime decides every conformance case identically', () => {
  const names = caseNames();
  assert.ok(names.length >= 80, `only ${names.length} cases`);
  const outputs = {};
  for (const runtime of RUNTIMES) {
    const file = join(root, 'target', 'conformance', `${runtime}.jsonl`);
    assert.ok(existsSync(file), `${runtime} did not run: ${file} is missing`);
    outputs[runtime] = readFileSync(file, 'utf8').split('\n').slice(0, -1);
    assert.equal(outputs[runtime].length, names.length, `${runtime} decided ${outputs[runtime].length} of ${names.length} cases`);
  }
  const divergences = [];
  for (const runtime of RUNTIMES.slice(1)) {
    outputs[runtime].forEach((line, i) => {
      if (line !== outputs.native[i]) {
        divergences.push(`${names[i]}\n  native:   ${outputs.native[i]}\n  ${runtime}: ${line}`);
      }
    });
  }
  assert.deepEqual(divergences, [], `decisions diverge:\n${divergences.join('\n')}`);
  console.log(`cross-runtime: ${names.length} cases identical in ${RUNTIMES.join(', ')}`);
});

// The approval flow: every runtime ran the gate vectors (tests/gate/*.jsonl)
// and wrote each step's output, one line a step, to
// target/conformance/gate-<runtime>.txt. All five must be present and
// byte-identical.
test('every runtime takes every gate step identically', () => {
  const texts = {};
  for (const runtime of GATE_RUNTIMES) {
    const file = join(root, 'target', 'conformance', `gate-${runtime}.txt`);
    assert.ok(existsSync(file), `${runtime} did not run the gate vectors: ${file} is missing`);
    texts[runtime] = readFileSync(file, 'utf8');
  }
  const steps = texts.native.split('\n').length - 1;
  assert.ok(steps >= 40, `only ${steps} gate steps`);
  const divergences = [];
  for (const runtime of GATE_RUNTIMES.slice(1)) {
    if (texts[runtime] === texts.native) continue;
    const ours = texts[runtime].split('\n');
    const theirs = texts.native.split('\n');
    const at = ours.findIndex((line, i) => line !== theirs[i]);
    const i = at < 0 ? Math.min(ours.length, theirs.length) : at;
    divergences.push(`${runtime}, step ${i + 1}\n  native:   ${theirs[i]}\n  ${runtime}: ${ours[i]}`);
  }
  assert.deepEqual(divergences, [], `gate steps diverge:\n${divergences.join('\n')}`);
  console.log(`cross-runtime: ${steps} gate steps identical in ${GATE_RUNTIMES.join(', ')}`);
});
