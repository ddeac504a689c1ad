// The JavaScript CLI against the Rust CLI: the same input gives the same
// standard output, standard error and exit code, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseVectors } from './conformance-lib.js';
import { jsCli, root, rustCli, vectorFiles } from './paths.js';

const scratch = mkdtempSync(join(tmpdir(), 'toolgate-cli-'));

function both(args, input = '') {
  assert.ok(existsSync(rustCli), `the Rust CLI is not built at ${rustCli}: run cargo build --release first`);
  const opts = { input, encoding: 'utf8', cwd: root, maxBuffer: 64 * 1024 * 1024 };
  const rs = spawnSync(rustCli, args, opts);
  const js = spawnSync(process.execPath, [jsCli, ...args], opts);
  return { rs, js };
}

function assertSame(args, input) {
  const { rs, js } = both(args, input);
  const label = `toolgate ${args.join(' ')}`;
  assert.equal(js.stdout, rs.stdout, `${label}: standard output differs`);
  assert.equal(js.stderr, rs.stderr, `${label}: standard error differs`);
  assert.equal(js.status, rs.status, `${label}: exit code differs`);
  return rs;
}

test('check on the example file, with and without the example configuration', () => {
  const r = assertSame(['check', 'examples/tool-calls.jsonl']);
  assert.equal(r.status, 10);
  const configured = assertSame(['check', '--config', 'examples/config.json', 'examples/tool-calls.jsonl']);
  assert.equal(configured.status, 10, configured.stderr);
});

test('check on every conformance vector, grouped by configuration', () => {
  const groups = new Map();
  for (const c of parseVectors(vectorFiles())) {
    const key = c.config ?? '{}';
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(JSON.stringify({ tool: c.tool, args: c.args }));
  }
  let n = 0;
  for (const [config, lines] of groups) {
    const file = join(scratch, `config-${n}.json`);
    writeFileSync(file, config);
    const r = assertSame(['check', '--config', file, '-'], `${lines.join('\n')}\n`);
    assert.equal(r.stdout.split('\n').filter(Boolean).length, lines.length);
    n += 1;
  }
  assert.ok(n >= 5, `only ${n} configurations`);
});

test('check with malformed lines', () => {
  const input = [
    '{"tool":"execute_sql","args":{"sql":"SELECT 1"}}',
    '',
    'not json',
    '{"args":{}}',
    '[1]',
    '{"tool":5}',
    '{"tool":"http_request","args":[1]}',
    '{"tool":"x","args":null}',
    '{"tool":"execute_command","args":"{\\"command\\":\\"pwd\\"}"}\r',
    '{"id":"call_1","type":"function","function":{"name":"execute_sql","arguments":"{\\"sql\\": "}}',
    '{"type":"function_call","call_id":"c2","name":"execute_command","arguments":"{\\"command\\":\\"ls\\"}"}',
    '{"type":"tool_use","id":"toolu_1","name":"file_operations","input":{"operation":"read","path":"a.md"}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"http_request","arguments":{"url":"https://example.com"}}}',
    '{"functionCall":{"name":"execute_sql","args":{"sql":"SHOW TABLES"}}}',
  ].join('\n');
  const r = assertSame(['check'], input);
  assert.equal(r.status, 3);
});

test('assess, human-readable and JSON', () => {
  const calls = [
    ['execute_sql', '{"sql":"SELECT 1; DROP TABLE t"}'],
    ['execute_command', '{"command":"ls -la","risk_level":"high"}'],
    ['execute_sql', '{"sql": '],
    ['execute_sql', '{"sql":"DROP TABLE users","risk_level":"low"}'],
    ['file_operations', '{"operation":"read","path":"a.txt"}'],
    ['unknown_tool'],
  ];
  for (const call of calls) {
    assertSame(['assess', ...call]);
    assertSame(['assess', '--json', ...call]);
  }
  assertSame(['assess', 'execute_sql', '-'], '{"sql":"SHOW TABLES"}');
  const config = join(scratch, 'deny.json');
  writeFileSync(config, '{"denied_tools":["execute_command"]}');
  const r = assertSame(['assess', '--config', config, 'execute_command', '{"command":"ls"}']);
  assert.equal(r.status, 11);
});

test('augment and guidance', () => {
  assertSame(['augment', 'examples/tools.json']);
  for (const format of ['openai-chat', 'openai-responses', 'anthropic', 'mcp', 'gemini']) {
    assertSame(['augment', `examples/formats/${format}.json`]);
    assertSame(['augment', '--format', format, `examples/formats/${format}.json`]);
  }
  assertSame(['augment', '--format', 'anthropic'], '[{"name":"a","parameters":{"type":"object"}}]');
  assertSame(['augment', '--format', 'cobol'], '[]');
  assertSame(['augment'], '[{"name":"own","input_schema":{"type":"object","properties":{"risk_level":{"type":"integer"}}}}, 7]');
  assertSame(['augment'], '{"model":"m","tools":[{"name":"a","input_schema":{"type":"object"}}]}');
  assertSame(['guidance']);
  assertSame(['guidance', '--lang', 'zh']);
});

test('errors exit alike', () => {
  const bad = join(scratch, 'bad.json');
  writeFileSync(bad, '{"strict":"yes"}');
  const { rs, js } = both(['assess', '--config', bad, 'execute_sql']);
  assert.equal(rs.status, 1);
  assert.equal(js.status, 1);
  assert.match(js.stderr, /strict/);
  const usage = both(['assess']);
  assert.equal(usage.rs.status, 2);
  assert.equal(usage.js.status, 2);
  const missing = both(['check', '/nonexistent/calls.jsonl']);
  assert.equal(missing.rs.status, 1);
  assert.equal(missing.js.status, 1);
});

test('input that is not UTF-8: a malformed line in check, an error elsewhere', () => {
  const bad = Buffer.from([0x53, 0x45, 0x4c, 0xff, 0xfe, 0x20, 0x31]);
  const input = Buffer.concat([
    Buffer.from('{"tool":"execute_command","args":{"command":"ls"}}\n{"tool":"execute_sql","args":{"sql":"'),
    bad,
    Buffer.from('"}}\r\n\n{"tool":"execute_command","args":{"command":"rm -rf /"}}'),
  ]);
  const r = assertSame(['check'], input);
  assert.equal(r.status, 3);
  assert.equal(r.stdout.split('\n').filter(Boolean).length, 3);
  assert.match(r.stdout, /"line":2,"error":"the line is not valid UTF-8"/);

  const args = Buffer.concat([Buffer.from('{"sql":"'), bad, Buffer.from('"}')]);
  assert.equal(assertSame(['assess', 'execute_sql', '-'], args).status, 1);
  const config = join(scratch, 'latin1.json');
  writeFileSync(config, Buffer.concat([Buffer.from('{"denied_tools":["'), bad, Buffer.from('"]}')]));
  assert.equal(assertSame(['assess', '--config', config, 'x', '{}'], '').status, 1);
});

test('mutated input lines, lone surrogates included, decide alike in both CLIs', () => {
  // A seeded generator: the same lines on every run (TOOLGATE_FUZZ_SEED varies them).
  let state = BigInt(process.env.TOOLGATE_FUZZ_SEED ?? 0x7001) | 1n;
  const next = () => {
    state ^= state >> 12n;
    state ^= (state << 25n) & 0xffffffffffffffffn;
    state ^= state >> 27n;
    return Number(((state * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn) >> 33n);
  };
  const below = (n) => next() % Math.max(n, 1);
  const splices = ['\ud800', '\udfff', '\\ud800', '\u0000', '\\u0000', '😀', '\u2028', '"', '\\', ';', '$(', '|', '{', '[', ']', '}', 'risk_level'];
  const cases = parseVectors(vectorFiles()).filter((c) => c.kind === 'assess');
  const lines = [];
  for (let i = 0; i < 1500; i++) {
    const c = cases[below(cases.length)];
    let line = JSON.stringify({ tool: c.tool, args: c.text });
    for (let k = below(4); k > 0; k--) {
      const at = below(line.length + 1);
      line = below(3) === 0 ? line.slice(0, at) : line.slice(0, at) + splices[below(splices.length)] + line.slice(at);
    }
    // Lone surrogates cannot be written as UTF-8; what reaches the CLIs is what
    // a Node program would write (U+FFFD), the same bytes for both.
    lines.push(line.replaceAll('\n', ' '));
  }
  const r = assertSame(['check', '-'], `${lines.join('\n')}\n`);
  assert.ok([3, 10, 11].includes(r.status), r.stderr);
  assert.equal(r.stdout.split('\n').filter(Boolean).length, lines.filter((l) => l.trim() !== '').length);
});

test('audit verify: the same verdict, output and exit code', async () => {
  const { loadPolicy } = await import('../src/index.js');
  const policy = await loadPolicy();
  const entry = (tool) => ({
    time: 1,
    tool,
    parameters: '{}',
    decision: { action: 'allow', risk: 'low', source: 'whitelist', findings: [], policy_version: '0.1.0' },
    status: 'executed',
    success: true,
  });
  const lines = [];
  for (const tool of ['a', 'b', 'c']) lines.push(policy.sealAudit(entry(tool), lines.at(-1) ?? null));
  const good = join(scratch, 'audit.jsonl');
  writeFileSync(good, `${lines.join('\n')}\n`);
  const ok = assertSame(['audit', 'verify', good]);
  assert.equal(ok.status, 0);
  assert.match(ok.stdout, /^ok: 3 records, head [0-9a-f]{64}\n$/);
  const bad = join(scratch, 'audit-broken.jsonl');
  writeFileSync(bad, `${lines[0]}\n${lines[2]}\n`);
  const broken = assertSame(['audit', 'verify', bad]);
  assert.equal(broken.status, 4);
  assert.match(broken.stdout, /^broken: line 2: /);
});
