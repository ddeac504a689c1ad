// Seed 002's plans (§4.2) and argument completion (§4.3, §7.2) in the
// JavaScript host, played with the seed's own examples: the fixtures under
// tests/seeds/ are the Rust host's too (host-rs/tests/seeds_002.rs). Each
// host writes what it answered to target/seeds/NAME.HOST.jsonl, and this
// test holds the two byte-identical (cargo test runs before npm test in
// tests/run-all, so the Rust file is there; without it the test fails).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPolicy, Gate, runPlan, RequestError } from '../src/index.js';
import { root } from './paths.js';

const policy = await loadPolicy();
const fixture = (name) =>
  readFileSync(join(root, 'tests', 'seeds', name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

/** `expected` with "REASON" standing for any text (as the Rust test reads it). */
function matches(got, expected) {
  if (typeof got === 'string' && expected === 'REASON') return true;
  if (Array.isArray(expected)) return Array.isArray(got) && got.length === expected.length && got.every((g, i) => matches(g, expected[i]));
  if (expected !== null && typeof expected === 'object') {
    return got !== null && typeof got === 'object' && !Array.isArray(got) && Object.keys(got).length === Object.keys(expected).length && Object.entries(expected).every(([k, v]) => k in got && matches(got[k], v));
  }
  return got === expected;
}

/** Writes this host's answers and holds them byte-identical with the Rust host's. */
function compareWithRust(name, lines) {
  const dir = join(root, 'target', 'seeds');
  mkdirSync(dir, { recursive: true });
  const text = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
  writeFileSync(join(dir, `${name}.js.jsonl`), text);
  const rust = join(dir, `${name}.rust.jsonl`);
  assert.ok(existsSync(rust), `${rust} is missing: run cargo test --release -p toolgate --test seeds_002 first`);
  assert.equal(text, readFileSync(rust, 'utf8'), `${name}: the JavaScript host answered otherwise than the Rust host`);
}

test('seed 002 §4.2: plans decided and run, as in the Rust host', async () => {
  const cases = fixture('seed-002-plan.jsonl');
  assert.ok(cases.length >= 8);
  const answered = [];
  for (const c of cases) {
    if (c.kind === 'decide') {
      const engine = policy.engine(JSON.stringify(c.config));
      const decided = engine.assessPlan(JSON.stringify(c.plan), JSON.stringify(c.results), '');
      const expectedSteps = c.expect.steps ?? [];
      const got = {
        action: decided.action,
        steps: decided.steps.map((s, i) => {
          const wanted = expectedSteps[i]?.finding;
          const codes = s.decision.findings.map((f) => f.code);
          const finding = typeof wanted === 'string' && codes.includes(wanted) ? wanted : (codes[0] ?? null);
          return { step: s.step, action: s.decision.action, unresolved: s.unresolved, finding, args: s.args };
        }),
      };
      assert.deepEqual(got, c.expect, c.name);
      answered.push({ name: c.name, decided: got });
      engine.dispose?.();
      continue;
    }
    const asked = [];
    const approve = c.answer === 'approve';
    const gate = new Gate(policy, {
      config: c.config,
      approve: (request) => {
        asked.push(request.args);
        return approve ? { answer: 'approve' } : { answer: 'reject', message: 'not now' };
      },
    });
    const runs = await runPlan(gate, JSON.stringify(c.plan), (step) => c.outputs[step.tool]);
    const got = runs.map((r) => r.summary);
    assert.ok(matches(got, c.expect), `${c.name}: ${JSON.stringify(got)}`);
    assert.deepEqual(asked, c.asked, c.name);
    answered.push({ name: c.name, runs: got, asked });
    gate.dispose?.();
  }
  compareWithRust('seed-002-plan', answered);
});

test('seed 002 §4.3 and §7.2: argument completion and the seed\'s request, as in the Rust host', () => {
  const cases = fixture('seed-002-completion.jsonl');
  assert.ok(cases.length >= 5);
  const answered = [];
  for (const c of cases) {
    const engine = policy.engine(JSON.stringify(c.config));
    let completed;
    try {
      completed = engine.completeArgs(c.tool, JSON.stringify(c.args), JSON.stringify(c.context), c.now_ms);
    } catch (e) {
      assert.ok(e instanceof RequestError, `${c.name}: ${e}`);
      assert.ok(c.expect_error !== undefined, `${c.name}: refused (${e.message})`);
      const got = e.findings.map((f) => f.code);
      assert.deepEqual(got, c.expect_error, c.name);
      answered.push({ name: c.name, error: got });
      continue;
    }
    assert.equal(c.expect_error, undefined, `${c.name}: completed, the case expects a refusal`);
    assert.deepEqual(JSON.parse(completed), c.expect_args, c.name);
    let request = null;
    try {
      request = engine.buildRequest(c.tool, completed);
    } catch (e) {
      if (!(e instanceof RequestError)) throw e;
    }
    answered.push({
      name: c.name,
      args: completed,
      request: request === null ? null : { method: request.method, path: request.path, query: request.query, url: request.url, body: request.body },
    });
    if (c.expect_request !== undefined) {
      assert.equal(request.method, c.expect_request.method, c.name);
      assert.equal(request.path, c.expect_request.path, c.name);
      // JSON equal, key order aside (seed 002 §7.2's body).
      assert.deepEqual(JSON.parse(request.body), c.expect_request.body, c.name);
    }
  }
  compareWithRust('seed-002-completion', answered);
});
