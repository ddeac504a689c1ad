// The JavaScript CLI against the Rust CLI: the same input gives the same
// standard output, standard error and exit code, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
    // Calls only: `check` decides tool calls; the arguments as the vector
    // holds them (text), so both CLIs read what the model sent.
    if (c.kind !== 'assess') continue;
    const key = c.config ?? '{}';
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(JSON.stringify({ tool: c.tool, args: c.text }));
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
  // Blank means JSON whitespace only (the component's rule), not JavaScript's trim.
  assert.equal(r.stdout.split('\n').filter(Boolean).length, lines.filter((l) => /[^ \t\r\n]/.test(l)).length);
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
  // It says what was proved: an unkeyed chain can be recomputed after an erase.
  assert.match(ok.stderr, /checked unkeyed: anyone who can write the log can erase a record/);
  const bad = join(scratch, 'audit-broken.jsonl');
  writeFileSync(bad, `${lines[0]}\n${lines[2]}\n`);
  const broken = assertSame(['audit', 'verify', bad]);
  assert.equal(broken.status, 4);
  assert.match(broken.stdout, /^broken: line 2: /);
});

// The parity table: argument lists and inputs on which the two CLIs must print
// the same standard output and standard error and exit alike, byte for byte
// (the program name is fixed to `toolgate` in both: nothing is normalised).
// Each row also names the exit code the specification gives, so a row fails
// when both CLIs drift the same way. An argument given as a Buffer is passed
// as those raw bytes (through sh, as spawn takes strings only).
const call = (tool, args) => JSON.stringify({ tool, args });
const badBytes = Buffer.from([0x53, 0x45, 0x4c, 0xff, 0xfe, 0x20, 0x31]);
const withBad = (before, after) => Buffer.concat([Buffer.from(before), badBytes, Buffer.from(after)]);
const dir = join(scratch, 'a-directory');
mkdirSync(dir, { recursive: true });
const deny = join(scratch, 'parity-deny.json');
writeFileSync(deny, '{"denied_tools":["execute_command"]}');
const grantKey = join(scratch, 'grant-key');
writeFileSync(grantKey, 'grants-cli-key-0123456789\n');
const forgedGrants = join(scratch, 'forged-grants');
mkdirSync(forgedGrants, { recursive: true });
writeFileSync(
  join(forgedGrants, 'grant-g-x.json'),
  `{"format":"toolgate.grant/1","grant":{"id":"g-x","scope":"project","tool":"execute_command","rules":[{"id":"g-x","effect":"allow","tool":"execute_command"}],"created_at":0,"expires_at":null,"approval_id":"x","by":null,"session_id":null,"user_id":null,"gate":"g"},"mac":"${'0'.repeat(64)}"}`,
);
const badConfig = join(scratch, 'parity-bad.json');
writeFileSync(badConfig, '{"strict":"yes"}');
// Over the component's memory cap (256 MiB, the same in both CLIs): the
// component aborts while taking the input in, a fault in both runtimes.
const huge = () => `${call('execute_sql', { sql: `SELECT '${'x'.repeat(300 * 1024 * 1024)}'` })}\n`;
// Arguments nested deeper than serde_json builds (128 levels): the tool name
// is still readable, so the call is decided, confirm with args.invalid.
const deep = `{"tool":"execute_sql","args":${'['.repeat(200)}${']'.repeat(200)}}\n`;

const PARITY = [
  // [what, arguments, standard input, exit code]
  ['no arguments', [], '', 2],
  ['--help', ['--help'], '', 0],
  ['-h after a command, before a bad option', ['assess', '-h', '--bogus'], '', 0],
  ['a bad option before --help', ['--bogus', '--help'], '', 2],
  ['--help after -- is an operand', ['assess', '--', '--help'], '', 10],
  ['--version', ['--version'], '', 0],
  ['-V with a command', ['check', '-V'], '', 0],
  ['--version twice', ['--version', '-V'], '', 2],
  ['unknown command', ['frobnicate'], '', 2],
  ['unknown command with a control character', ['x\u0007y'], '', 2],
  ['unknown option', ['check', '--bogus'], '', 2],
  ['unknown option with a value', ['check', '--bogus=1'], '', 2],
  ['unknown short option', ['-x'], '', 2],
  ['an option of another command', ['check', '--json'], '', 2],
  ['a flag given a value', ['assess', '--json=yes', 'x'], '', 2],
  ['--json twice', ['assess', '--json', '--json', 'execute_sql', '{}'], '', 2],
  ['--config twice, two spellings', ['check', '--config', 'examples/config.json', '--config=examples/config.json'], '', 2],
  ['--config= (empty value)', ['check', '--config='], '', 2],
  ['--config "" (empty value)', ['check', '--config', ''], '', 2],
  ['--config without a value', ['check', '--config'], '', 2],
  ['--no-cache twice', ['--no-cache', 'guidance', '--no-cache'], '', 2],
  ['assess without TOOL', ['assess'], '', 2],
  ['assess with an extra operand', ['assess', 'a', '{}', 'b'], '', 2],
  ['assess -- TOOL ARGS', ['assess', '--', 'execute_sql', '{"sql":"SELECT 1"}'], '', 0],
  ['assess --json -- with operands that look like options', ['assess', '--json', '--', '-rm', '--json'], '', 10],
  ['options before the command', ['--json', 'assess', 'execute_sql', '{"sql":"SELECT 1"}'], '', 0],
  ['--config=FILE', ['assess', `--config=${deny}`, 'execute_command', '{"command":"ls"}'], '', 11],
  ['--no-cache and --json', ['assess', '--no-cache', '--json', 'execute_sql', '{"sql":"DROP TABLE t"}'], '', 10],
  ['ARGS_JSON not an object', ['assess', 'execute_sql', '[1]'], '', 10],
  ['ARGS_JSON holding U+FFFD', ['assess', 'execute_sql', '{"sql":"SELECT \ufffd"}'], '', 2],
  ['ARGS_JSON that is not UTF-8', ['assess', 'execute_sql', withBad('{"sql":"', '"}')], '', 2],
  ['ARGS_JSON from standard input, not UTF-8', ['assess', 'execute_sql', '-'], withBad('{"sql":"', '"}'), 1],
  ['a TOOL that is not UTF-8', ['assess', withBad('x', ''), '{}'], '', 2],
  ['a check input that is not UTF-8', ['check'], withBad(`${call('execute_command', { command: 'ls' })}\n{"tool":"`, '"}\n'), 3],
  ['audit without a subcommand', ['audit'], '', 2],
  ['audit with an unknown subcommand', ['audit', 'list'], '', 2],
  ['audit verify without FILE', ['audit', 'verify'], '', 2],
  ['audit verify with a missing file', ['audit', 'verify', '/nonexistent/audit.jsonl'], '', 1],
  ['config check without FILE', ['config', 'check'], '', 2],
  ['config check, a valid file', ['config', 'check', 'examples/config.json'], '', 0],
  ['config check, seed 004 TOML', ['config', 'check', 'tests/config/seed-004-workflow.toml'], '', 0],
  ['config check, seed 002 definition as written: its contradictions are warnings', ['config', 'check', 'tests/config/seed-002-definition.json'], '', 0],
  ['config check, seed 002 table rows as JSON', ['config', 'check', 'tests/config/seed-002-rows.json'], '', 0],
  ['config explain, seed 002 table rows as JSON', ['config', 'explain', 'tests/config/seed-002-rows.json'], '', 0],
  ['config explain, no layers', ['config', 'explain'], '', 0],
  ['config explain, three layers', ['config', 'explain', '--managed', 'tests/config/seed-004-workflow.toml', '--user', 'examples/config.json', 'examples/monitoring/registry.json'], '', 0],
  ['config explain, a refused layer', ['config', 'explain', '--user', 'host-js/package.json'], '', 1],
  ['config explain, a managed layer locks what a user layer loosens', ['config', 'explain', '--managed', 'tests/config/managed-locks.toml', '--user', 'tests/config/user-loosens.json'], '', 0],
  ['config without a subcommand', ['config'], '', 2],
  ['config with an unknown subcommand', ['config', 'show'], '', 2],
  ['config check, a refused file', ['config', 'check', 'host-js/package.json'], '', 1],
  ['import-openapi, the Petstore (YAML)', ['import-openapi', 'tests/openapi/petstore-openapi.yaml'], '', 0],
  ['import-openapi, the monitoring API', ['import-openapi', 'tests/openapi/monitoring.yaml'], '', 0],
  ['import-openapi --only and --category', ['import-openapi', '--only', 'pet,store', '--category=animals', 'tests/openapi/petstore-openapi.yaml'], '', 0],
  ['import-openapi --exclude', ['import-openapi', '--exclude', 'pet', 'tests/openapi/petstore-openapi.yaml'], '', 0],
  ['import-openapi --only that keeps nothing', ['import-openapi', '--only', 'nothing', 'tests/openapi/petstore-openapi.yaml'], '', 1],
  ['import-openapi from standard input (JSON)', ['import-openapi', '-'], '{"openapi":"3.0.0","paths":{"/a/{id}":{"get":{"operationId":"getA","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer","minimum":1.5}}]}}}}', 0],
  ['import-openapi of a document that is not one', ['import-openapi', '-'], '{"info": {}}', 1],
  ['import-openapi of text that is neither JSON nor YAML', ['import-openapi', '-'], 'openapi: [unclosed', 1],
  ['import-openapi --category without a value', ['import-openapi', '--category'], '', 2],
  ['approvals list without a key or --unsigned', ['approvals', 'list', dir], '', 2],
  ['approvals list with both', ['approvals', 'list', '--unsigned', '--key-file', 'k', dir], '', 2],
  ['mcp-proxy without COMMAND', ['mcp-proxy', '--augment', '--'], '', 2],
  ['mcp-proxy with an option of another command', ['mcp-proxy', '--json', '--', 'node'], '', 2],
  ['mcp-proxy --name without a value', ['mcp-proxy', '--name'], '', 2],
  ['exec without COMMAND_LINE', ['exec', '--json', '--'], '', 2],
  ['exec --writable without --confine-only', ['exec', '--writable', '--', 'make'], '', 2],
  ['exec with an option of another command', ['exec', '--format', 'x', '--', 'ls'], '', 2],
  ['mcp without a subcommand', ['mcp'], '', 2],
  ['mcp with an unknown subcommand', ['mcp', 'tools'], '', 2],
  ['mcp pins without a subcommand', ['mcp', 'pins'], '', 2],
  ['mcp pins with an unknown subcommand', ['mcp', 'pins', 'show'], '', 2],
  ['mcp pins approve without TOOL', ['mcp', 'pins', 'approve', 'fs'], '', 2],
  ['mcp pins list with an extra operand', ['mcp', 'pins', 'list', 'fs'], '', 2],
  ['mcp pins list --augment', ['mcp', 'pins', 'list', '--augment'], '', 2],
  ['grants without a subcommand', ['grants'], '', 2],
  ['grants with an unknown subcommand', ['grants', 'show'], '', 2],
  ['grants list without a key', ['grants', 'list', dir], '', 2],
  ['grants list with --unsigned', ['grants', 'list', '--unsigned', '--key-file', grantKey, dir], '', 2],
  ['grants revoke without ID', ['grants', 'revoke', '--key-file', grantKey, dir], '', 2],
  ['grants list --audit', ['grants', 'list', '--audit', 'a.jsonl', '--key-file', grantKey, dir], '', 2],
  ['grants list of a directory without grants', ['grants', 'list', '--key-file', grantKey, dir], '', 0],
  ['grants list with a forged grant', ['grants', 'list', '--key-file', grantKey, forgedGrants], '', 4],
  ['grants revoke of an unknown grant', ['grants', 'revoke', '--key-file', grantKey, dir, 'g-none'], '', 1],
  ['grants revoke --audit-key-file without --audit', ['grants', 'revoke', '--key-file', grantKey, '--audit-key-file', grantKey, dir, 'g-1'], '', 2],
  ['grants list --audit-key-file', ['grants', 'list', '--audit-key-file', grantKey, '--key-file', grantKey, dir], '', 2],
  ['guidance with an operand', ['guidance', 'zh'], '', 2],
  ['hook without a format', ['hook'], '', 2],
  ['hook with two formats', ['hook', 'claude-code', 'gemini-cli'], '', 2],
  ['hook --config without a value', ['hook', 'claude-code', '--config'], '', 2],
  ['hook --config= empty', ['hook', '--config=', 'claude-code'], '', 2],
  ['hook --json', ['hook', '--json', 'claude-code'], '', 2],
  ['hook --config twice', ['hook', '--config', 'a', '--config', 'b', 'claude-code'], '', 2],
  ['hook of an unknown format', ['hook', 'cursor'], '{}', 2],
  ['hook with a missing configuration', ['hook', '--config', '/nonexistent/config.json', 'claude-code'], '{}', 0],
  ['hook with a configuration the policy refuses', ['hook', '--config', badConfig, 'gemini-cli'], '{}', 0],
  ['hook, empty input', ['hook', 'claude-code'], '', 0],
  ['guidance in an unknown language', ['guidance', '--lang=xx'], '', 0],
  ['check a missing file', ['check', '/nonexistent/calls.jsonl'], '', 1],
  ['check a directory', ['check', dir], '', 1],
  ['a missing configuration', ['assess', '--config', '/nonexistent/config.json', 'x'], '', 1],
  ['a configuration the policy refuses', ['check', '--config', badConfig], '', 1],
  ['augment a missing file', ['augment', '/nonexistent/tools.json'], '', 1],
  ['check, empty input', ['check'], '', 0],
  ['check, blank lines (space, tab, CR, CRLF)', ['check', '-'], '\n \t\r\n\r\n\n', 0],
  ['check, a line holding only U+0085', ['check'], '\u0085\n', 3],
  ['check, a line holding only a byte-order mark', ['check'], '\ufeff\n', 3],
  ['check, a byte-order mark before a call', ['check'], `\ufeff${call('execute_command', { command: 'ls' })}\n`, 3],
  ['check, U+00A0, U+2028, U+3000, VT and FF lines', ['check'], '\u00a0\n\u2028\n\u3000\n\u000b\n\u000c\n', 3],
  ['check, a NUL line', ['check'], '\u0000\n', 3],
  ['check, calls around blank and malformed lines, no final newline', ['check'],
    `${call('execute_sql', { sql: 'SELECT 1' })}\r\n\u0085\n\n{"args":{}}\n${call('execute_command', { command: 'rm -rf /' })}`, 3],
  ['check, a denied call', ['check', '--config', deny], `${call('execute_command', { command: 'ls' })}\n`, 11],
  ['a policy fault in check', ['check'], huge, 10],
  ['check, a call whose arguments nest 200 deep', ['check'], deep, 10],
  ['a policy fault in check, then a denied call: both lines answered', ['check', '--config', deny], () => `${huge()}${call('execute_command', { command: 'ls' })}\n`, 11],
  ['a policy fault in assess', ['assess', '--json', 'execute_sql', '-'], () => JSON.stringify({ sql: `SELECT '${'x'.repeat(300 * 1024 * 1024)}'` }), 10],
];

/** Runs a CLI (`command` and its leading arguments) with `args`, raw bytes included. */
function runCli(command, args, input) {
  const opts = { input, cwd: root, maxBuffer: 64 * 1024 * 1024 };
  if (!args.some((a) => Buffer.isBuffer(a))) return spawnSync(command[0], [...command.slice(1), ...args], opts);
  const files = args.map((a, i) => {
    const file = join(scratch, `arg-${i}`);
    writeFileSync(file, a);
    return file;
  });
  // sh keeps every byte of a command substitution but trailing newlines.
  const script = `exec "$@" ${files.map((f) => `"$(cat '${f}')"`).join(' ')}`;
  return spawnSync('/bin/sh', ['-c', script, 'sh', ...command], opts);
}

test(`the parity table: ${PARITY.length} argument lists and inputs, the same bytes and exit codes in both CLIs`, () => {
  assert.ok(existsSync(rustCli), `the Rust CLI is not built at ${rustCli}: run cargo build --release first`);
  for (const [what, args, stdin, status] of PARITY) {
    const input = typeof stdin === 'function' ? stdin() : stdin;
    const rs = runCli([rustCli], args, input);
    const js = runCli([process.execPath, jsCli], args, input);
    const label = `${what}: toolgate ${args.map(String).join(' ')}`;
    assert.equal(js.stderr.toString(), rs.stderr.toString(), `${label}: standard error differs`);
    assert.equal(js.stdout.toString(), rs.stdout.toString(), `${label}: standard output differs`);
    assert.equal(js.status, rs.status, `${label}: exit codes differ`);
    assert.equal(rs.status, status, `${label}: exit code ${rs.status}, the specification says ${status}\n${rs.stderr}`);
    // No runtime's own text leaks: no backtrace, no stack, no errno names.
    assert.doesNotMatch(rs.stdout.toString() + rs.stderr.toString(), /wasm backtrace|at .*\.js:\d|ENOENT|os error/, label);
    if (what.startsWith('a policy fault')) {
      // The fault is named by its kind, in the same words in both runtimes.
      assert.match(rs.stdout.toString(), /"code":"policy.fault","message":"the policy faulted \(the component aborted\); a person must decide"/, label);
    }
    if (what.endsWith('both lines answered')) {
      // A fault is that line's confirm, not an error that stops the command.
      const lines = rs.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((l) => l.action), ['confirm', 'deny'], label);
    }
  }
});

test('the parity table holds every exit code the grammar declares', () => {
  const grammar = JSON.parse(readFileSync(join(root, 'shapes', 'cli.json'), 'utf8'));
  const held = new Set(PARITY.map((row) => row[3]));
  for (const exit of grammar.exits) assert.ok(held.has(exit.code), `no parity row exits ${exit.code} (${exit.name}: ${exit.help})`);
});

test('the parity table covers what it claims', () => {
  const outputs = new Map();
  for (const [what, args, stdin] of PARITY) {
    if (typeof stdin === 'function') continue;
    const r = runCli([rustCli], args, stdin);
    outputs.set(what, { stdout: r.stdout.toString(), stderr: r.stderr.toString() });
  }
  assert.match(outputs.get('--version').stdout, /^toolgate \d+\.\d+\.\d+\n$/);
  assert.match(outputs.get('--help').stdout, /^toolgate: one risk policy/);
  assert.equal(outputs.get('no arguments').stderr, "toolgate: usage error: a command is required\nTry 'toolgate --help'.\n");
  assert.match(outputs.get('ARGS_JSON that is not UTF-8').stderr, /argument 3 is not valid UTF-8/);
  assert.match(outputs.get('check, a call whose arguments nest 200 deep').stdout, /^\{"action":"confirm".*"code":"args.invalid".*"summary":"execute_sql — /);
  assert.match(outputs.get('check, a line holding only U+0085').stdout, /^\{"line":1,"error":"the call is not valid JSON"\}\n$/);
  assert.equal(outputs.get('check, blank lines (space, tab, CR, CRLF)').stdout, '');
  assert.match(outputs.get('check a directory').stderr, /cannot read .*: is a directory\n$/);
  assert.match(outputs.get('check a missing file').stderr, /cannot read \/nonexistent\/calls.jsonl: no such file or directory\n$/);
});

test('the Rust-only command is refused by the JavaScript CLI with one message', () => {
  const r = spawnSync(process.execPath, [jsCli, 'approvals', 'list', '--unsigned', dir], { input: '', encoding: 'utf8', cwd: root });
  assert.equal(r.stderr, "toolgate: error: 'approvals list' is in the Rust CLI only\n");
  assert.equal(r.status, 1);
});

test('the MCP gateway commands are refused by the JavaScript CLI as the Rust-only command is', () => {
  for (const args of [['mcp-proxy', '--name', 'fs', '--', 'node', 'server.js', '--flag'], ['mcp', 'pins', 'list'], ['mcp', 'pins', 'approve', 'fs', 'write_file']]) {
    const r = spawnSync(process.execPath, [jsCli, ...args], { input: '', encoding: 'utf8', cwd: root });
    const name = args[0] === 'mcp' ? args.slice(0, 3).join(' ') : 'mcp-proxy';
    assert.equal(r.stderr, `toolgate: error: '${name}' is in the Rust CLI only\n`);
    assert.equal(r.status, 1);
  }
});

test('exec: the JavaScript CLI runs nothing itself; it names the Rust binary, or runs the one TOOLGATE_BIN names', () => {
  const env = { ...process.env };
  delete env.TOOLGATE_BIN;
  const refused = spawnSync(process.execPath, [jsCli, 'exec', '--', 'ls'], { input: '', encoding: 'utf8', cwd: root, env });
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, /^toolgate: error: 'exec' runs commands confined, which only the Rust CLI does: install the Rust toolgate binary and set TOOLGATE_BIN to its path\n$/);
  assert.equal(refused.status, 1);
  // A line to confirm: decided by the Rust binary, nothing runs, exit 10 in both.
  const args = ['exec', '--json', '--', 'rm -rf /'];
  const rs = spawnSync(rustCli, args, { input: '', encoding: 'utf8', cwd: root });
  const js = spawnSync(process.execPath, [jsCli, ...args], { input: '', encoding: 'utf8', cwd: root, env: { ...env, TOOLGATE_BIN: rustCli } });
  assert.equal(rs.status, 10, rs.stderr);
  assert.equal(JSON.parse(rs.stdout).action, 'confirm');
  assert.deepEqual([js.status, js.stdout, js.stderr], [rs.status, rs.stdout, rs.stderr]);
});

test('import-openapi: the JavaScript CLI imports the Petstore exactly as the Rust CLI, summary and notes included', () => {
  const r = spawnSync(process.execPath, [jsCli, 'import-openapi', 'tests/openapi/petstore-openapi.yaml'], { encoding: 'utf8', cwd: root });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(Object.keys(out.tools).length, 19);
  assert.equal(out.tools.addPet.category, 'pet');
  assert.equal(out.definitions[0].function.parameters.properties.body, undefined, 'an object body is spread into arguments');
  assert.match(r.stderr, /^toolgate: imported 19 operations: 8 level 1 \(query\), 8 level 2 \(modify\), 3 level 3 \(delete\)\n/);
  assert.match(r.stderr, /the header parameter `api_key` is left to the host/);
});

test('grants made by a JavaScript gate are listed and revoked by both CLIs, the revocation audited', async () => {
  const { loadPolicy, Gate } = await import('../src/index.js');
  const { FileStore } = await import('../src/node.js');
  const policy = await loadPolicy();
  const store = join(scratch, 'grants-store');
  const key = 'grants-cli-key-0123456789';
  const gate = new Gate(policy, { key, store: new FileStore(store), approve: () => ({ answer: 'approve', remember: 'project' }) });
  const first = await gate.run({ tool: 'execute_command', args: { command: 'npm test' } }, async () => 'ok');
  assert.equal(first.status, 'executed');
  const listed = (cli) => runCli(cli, ['grants', 'list', '--key-file', grantKey, store], '');
  const [rs, js] = [listed([rustCli]), listed([process.execPath, jsCli])];
  assert.equal(rs.status, 0, rs.stderr.toString());
  assert.equal(js.stdout.toString(), rs.stdout.toString());
  const line = JSON.parse(rs.stdout.toString());
  assert.equal(line.grant.scope, 'project');
  assert.equal(line.grant.tool, 'execute_command');
  const audit = join(scratch, 'grants-audit.jsonl');
  const revoked = runCli([rustCli], ['grants', 'revoke', '--key-file', grantKey, '--audit', audit, store, line.id], '');
  assert.equal(revoked.stdout.toString(), `revoked ${line.id}\n`, revoked.stderr.toString());
  assert.equal(listed([process.execPath, jsCli]).stdout.toString(), '');
  assert.match(readFileSync(audit, 'utf8'), /"status":"revoked"/);
  const again = runCli([process.execPath, jsCli], ['grants', 'revoke', '--key-file', grantKey, store, line.id], '');
  assert.equal(again.status, 1);
  const asked = await gate.check({ tool: 'execute_command', args: { command: 'npm test' } });
  assert.notEqual(asked.pending, null, 'a revoked grant no longer applies');
});

test('grants revoke continues a keyed audit chain with --audit-key-file, in both CLIs', async () => {
  const { loadPolicy, Gate } = await import('../src/index.js');
  const { FileStore, JsonlSink } = await import('../src/node.js');
  const policy = await loadPolicy();
  const store = join(scratch, 'keyed-grants-store');
  const audit = join(scratch, 'keyed-grants-audit.jsonl');
  const auditKeyFile = join(scratch, 'audit.key');
  const auditKey = 'an audit key of 16+ bytes';
  writeFileSync(auditKeyFile, `${auditKey}\n`);
  const key = readFileSync(grantKey);
  const gate = new Gate(policy, { key, store: new FileStore(store), audit: [new JsonlSink(audit)], auditKey, approve: () => ({ answer: 'approve', remember: 'project' }) });
  for (const command of ['npm test', 'npm run build']) {
    assert.equal((await gate.run({ tool: 'execute_command', args: { command } }, async () => 'ok')).status, 'executed');
  }
  const ids = (await gate.grants()).map((g) => g.id);
  assert.equal(ids.length, 2);
  // Without the audit key the keyed chain is not continued, and nothing is revoked.
  for (const cli of [[rustCli], [process.execPath, jsCli]]) {
    const refused = runCli(cli, ['grants', 'revoke', '--key-file', grantKey, '--audit', audit, store, ids[0]], '');
    assert.equal(refused.status, 1, refused.stderr.toString());
  }
  assert.equal((await gate.grants()).length, 2);
  const clis = [[rustCli], [process.execPath, jsCli]];
  for (const [i, cli] of clis.entries()) {
    const done = runCli(cli, ['grants', 'revoke', '--key-file', grantKey, '--audit', audit, '--audit-key-file', auditKeyFile, store, ids[i]], '');
    assert.equal(done.stdout.toString(), `revoked ${ids[i]}\n`, done.stderr.toString());
  }
  assert.deepEqual(await gate.grants(), []);
  for (const cli of clis) {
    const verified = runCli(cli, ['audit', 'verify', '--key-file', auditKeyFile, audit], '');
    assert.equal(verified.status, 0, verified.stdout.toString() + verified.stderr.toString());
  }
  assert.equal((readFileSync(audit, 'utf8').match(/"status":"revoked"/g) ?? []).length, 2);
});
