// `toolgate hook FORMAT`: each agent's documented example events, and
// malformed ones, replayed through the Rust and the JavaScript CLI. Both must
// print the same bytes and exit alike; the answer must be in the agent's
// documented shape with the expected decision; an unreadable event is
// answered "ask" with an error on standard error, never "allow".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsCli, root, rustCli } from './paths.js';

const dir = join(root, 'tests', 'hooks');

/**
 * The answer's decision and reason, read in the agent's documented shape;
 * `none` is an answer without a decision (exit 0 and `{}`: the agent goes on
 * as without the hook), `reason` is `null` where the shape carries none.
 */
const SHAPES = {
  'claude-code': (out) => {
    if (Object.keys(out).length === 0) return { decision: 'none', reason: null };
    assert.deepEqual(Object.keys(out), ['hookSpecificOutput']);
    const specific = out.hookSpecificOutput;
    assert.deepEqual(Object.keys(specific), ['hookEventName', 'permissionDecision', 'permissionDecisionReason']);
    assert.equal(specific.hookEventName, 'PreToolUse');
    return { decision: specific.permissionDecision, reason: specific.permissionDecisionReason };
  },
  'gemini-cli': (out) => {
    if (Object.keys(out).length === 0) return { decision: 'none', reason: null };
    // The reference's shapes: `allow` alone, `deny` with its reason; `ask`
    // also shows the reason to the person in `systemMessage`.
    const keys = { allow: ['decision'], deny: ['decision', 'reason'], ask: ['decision', 'reason', 'systemMessage'] };
    assert.deepEqual(Object.keys(out), keys[out.decision] ?? ['unknown decision']);
    if (out.decision === 'ask') assert.ok(out.systemMessage.includes(out.reason));
    return { decision: out.decision, reason: out.reason ?? null };
  },
  // Codex acts on `deny` only: every other answer is `{}`.
  codex: (out) => {
    if (Object.keys(out).length === 0) return { decision: 'none', reason: null };
    const specific = out.hookSpecificOutput;
    assert.equal(specific.permissionDecision, 'deny');
    return { decision: 'deny', reason: specific.permissionDecisionReason };
  },
};

const FILES = readdirSync(dir).filter((f) => f.endsWith('.json') && JSON.parse(readFileSync(join(dir, f), 'utf8')).cases);

function input(c) {
  if (c.event !== undefined) return Buffer.from(JSON.stringify(c.event));
  if (c.raw !== undefined) return Buffer.from(c.raw);
  if (c.raw_base64 !== undefined) return Buffer.from(c.raw_base64, 'base64');
  if (c.oversize !== undefined) return Buffer.alloc(c.oversize, 0x20);
  throw new Error(`case ${c.name} has no input`);
}

function run(command, args, stdin) {
  const r = spawnSync(command[0], [...command.slice(1), ...args], {
    input: stdin,
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    timeout: 60_000,
  });
  assert.equal(r.error, undefined, `${command.join(' ')}: ${r.error}`);
  return r;
}

for (const file of FILES) {
  const { format, cases } = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  test(`hook ${format}: documented and malformed events, both CLIs alike`, () => {
    assert.ok(existsSync(rustCli), `the Rust CLI is not built at ${rustCli}: run cargo build --release first`);
    const seen = new Set();
    for (const c of cases) {
      const args = ['hook', format, ...(c.config ? ['--config', join(dir, c.config)] : [])];
      const stdin = input(c);
      const rs = run([rustCli], args, stdin);
      const js = run([process.execPath, jsCli], args, stdin);
      const label = `${format}: ${c.name}`;
      assert.equal(js.stdout, rs.stdout, `${label}: standard output differs`);
      assert.equal(js.stderr, rs.stderr, `${label}: standard error differs`);
      assert.equal(js.status, rs.status, `${label}: exit code differs`);
      assert.equal(rs.status, c.exit ?? 0, `${label}: exit code (stderr: ${rs.stderr})`);
      assert.ok(rs.stdout.endsWith('}\n') && rs.stdout.indexOf('\n') === rs.stdout.length - 1, `${label}: one line`);
      const answer = SHAPES[format](JSON.parse(rs.stdout));
      assert.equal(answer.decision, c.decision, `${label}: ${answer.reason}`);
      if (answer.reason !== null) {
        assert.ok(answer.reason.includes(c.reason), `${label}: reason ${JSON.stringify(answer.reason)} lacks ${JSON.stringify(c.reason)}`);
      }
      if (c.stderr === undefined) {
        assert.equal(rs.stderr, '', `${label}: unexpected standard error`);
      } else {
        assert.match(rs.stderr, /^toolgate: hook: .*; answered (ask|deny)\n$/, label);
        assert.ok(rs.stderr.includes(c.stderr), `${label}: ${rs.stderr}`);
        assert.notEqual(answer.decision, 'allow', label);
      }
      seen.add(answer.decision);
    }
    // The table exercises more than one answer.
    assert.ok(seen.size >= 2, `${file}: only ${[...seen]}`);
  });
}
