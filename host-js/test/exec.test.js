// The Node command executor: Node has no confinement of its own, so it runs
// `toolgate exec --confine-only --json` (the Rust binary) and refuses,
// running nothing, when there is none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandExecutor, rightsFor, CONFINED_CONTEXT } from '../src/node.js';
import { rustCli } from './paths.js';

test('without the Rust binary the executor refuses and nothing runs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-exec-'));
  try {
    const run = commandExecutor({ bin: '', cwd: dir });
    await assert.rejects(run(JSON.stringify({ command: 'touch made' })), /install it and set TOOLGATE_BIN/);
    const missing = commandExecutor({ bin: join(dir, 'no-such-toolgate'), cwd: dir });
    await assert.rejects(missing({ command: 'touch made' }), /cannot run the toolgate binary/);
    assert.equal(existsSync(join(dir, 'made')), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rights follow the approval, and the context says the executor confines', () => {
  assert.equal(rightsFor({ source: 'whitelist' }), 'read');
  assert.equal(rightsFor({ source: 'llm' }), 'read');
  assert.equal(rightsFor({ source: 'rule' }), 'write');
  assert.equal(rightsFor({ source: 'default' }, true), 'write');
  assert.deepEqual(JSON.parse(CONFINED_CONTEXT), { confined: true });
});

test('the executor runs a call confined by the Rust binary: output back, secrets masked, writes refused', async () => {
  assert.ok(existsSync(rustCli), `the Rust CLI is not built at ${rustCli}: run cargo build --release first`);
  const dir = mkdtempSync(join(tmpdir(), 'tg-exec-'));
  chmodSync(dir, 0o755);
  try {
    writeFileSync(join(dir, 'README.md'), 'hello\n');
    writeFileSync(join(dir, '.env'), 'TOKEN=node-exec-canary\n');
    const run = commandExecutor({ bin: rustCli, cwd: dir });
    const out = JSON.parse(await run({ command: 'cat README.md .env; touch made' }));
    assert.equal(out.stdout, 'hello\n');
    assert.notEqual(out.exit_code, 0);
    assert.equal(existsSync(join(dir, 'made')), false);
    const argv = JSON.parse(await run({ command: ['printf', '%s|', 'a b', "it's"] }));
    assert.equal(argv.stdout, "a b|it's|");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
