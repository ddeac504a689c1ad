// The JavaScript host: loading sources, errors, faults and recovery, helpers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  loadPolicy,
  decisionJson,
  toolCallJson,
  DEFAULT_COMPONENT_URL,
  LoadError,
  RejectedError,
  ToolgateError,
  POLICY_FAULT,
} from '../src/index.js';
import { pkg } from './paths.js';

const componentPath = join(pkg, 'gen', 'toolgate.wasm');

test('the done-when examples', async () => {
  const policy = await loadPolicy();
  let d = policy.assess('execute_sql', '{"sql":"SELECT 1; DROP TABLE t"}');
  assert.equal(d.action, 'confirm');
  assert.ok(d.findings.some((f) => f.code === 'sql.destructive'));
  d = policy.assess('execute_command', { command: 'ls -la', risk_level: 'high' });
  assert.deepEqual([d.action, d.source, d.llmRisk], ['confirm', 'llm', 'high']);
  d = policy.assess('execute_sql', '{"sql": ');
  assert.equal(d.findings[0].code, 'args.invalid');
  assert.match(d.findings[0].message, /not valid JSON/);
});

test('loads from bytes, a file URL, a Response and a promise of one', async () => {
  const bytes = readFileSync(componentPath);
  const sources = [
    bytes,
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    pathToFileURL(componentPath),
    pathToFileURL(componentPath).href,
    new Response(bytes, { headers: { 'content-type': 'application/wasm' } }),
    Promise.resolve(new Response(bytes)),
  ];
  for (const source of sources) {
    const policy = await loadPolicy(source);
    assert.equal(policy.assess('execute_sql', '{"sql":"SELECT 1"}').action, 'allow');
  }
  assert.equal(DEFAULT_COMPONENT_URL.protocol, 'file:');
});

test('the shipped core modules are the component\'s, in jco\'s order', async () => {
  // The host extracts core modules from the component itself; jco wrote the
  // same modules out as toolgate.core*.wasm. They must match one for one.
  const policy = await loadPolicy();
  assert.ok(policy.version());
  const component = readFileSync(componentPath);
  for (const [i, name] of ['toolgate.core.wasm', 'toolgate.core2.wasm', 'toolgate.core3.wasm'].entries()) {
    const expected = readFileSync(join(pkg, 'gen', name));
    const at = component.indexOf(expected);
    assert.ok(at > 0, `${name} is not inside the component`);
    if (i > 0) {
      const previous = readFileSync(join(pkg, 'gen', i === 1 ? 'toolgate.core.wasm' : 'toolgate.core2.wasm'));
      assert.ok(at > component.indexOf(previous), `${name} is out of order`);
    }
  }
});

test('bad sources are LoadErrors', async () => {
  await assert.rejects(loadPolicy(new Uint8Array([1, 2, 3])), LoadError);
  await assert.rejects(loadPolicy(readFileSync(join(pkg, 'gen', 'toolgate.core.wasm'))), /core module, not a component/);
  await assert.rejects(loadPolicy(pathToFileURL(join(pkg, 'nope.wasm'))), LoadError);
  await assert.rejects(loadPolicy(new Response('x', { status: 404 })), /HTTP 404/);
  await assert.rejects(loadPolicy(42), LoadError);
  const truncated = readFileSync(componentPath).subarray(0, 5000);
  await assert.rejects(loadPolicy(truncated), LoadError);
});

test('configuration errors name the field', async () => {
  const policy = await loadPolicy();
  assert.throws(() => policy.engine('{"denied_tool": ["x"]}'), (e) => e instanceof RejectedError && /denied_tool/.test(e.message));
  assert.throws(() => policy.engine({ model_trust: 'blind' }), /model_trust/);
  assert.throws(() => policy.engine(5), TypeError);
  const engine = policy.engine({ denied_tools: ['execute_command'] });
  assert.equal(engine.assess('execute_command', { command: 'ls' }).action, 'deny');
});

test('assess never throws, whatever the arguments', async () => {
  const policy = await loadPolicy();
  const cyclic = {};
  cyclic.self = cyclic;
  // No prototype: `String()` of it throws, which once escaped `assess`.
  const bare = Object.create(null);
  bare.self = bare;
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  const unserialisable = [
    10n,
    { sql: 10n },
    cyclic,
    bare,
    () => 'SELECT 1',
    Symbol('args'),
    { toJSON: () => { throw new Error('no'); } },
    proxy,
  ];
  for (const args of [null, 5, true, [], '', '\ud800', 'x'.repeat(2 * 1024 * 1024), ...unserialisable]) {
    const d = policy.assess('execute_sql', args);
    assert.equal(d.action, 'confirm');
    assert.equal(d.findings[0].code, 'args.invalid');
  }
  // The component still decides: a denied tool stays denied, whatever its arguments.
  const engine = policy.engine({ denied_tools: ['execute_sql'] });
  for (const args of unserialisable) {
    assert.equal(engine.assess('execute_sql', args).action, 'confirm');
    assert.equal(engine.assessMany([['execute_sql', args]])[0].findings[0].code, 'args.invalid');
  }
  assert.equal(engine.assess(bare, '{}').action, 'confirm');
});

test('assess takes any JSON value an SDK hands it', async () => {
  const policy = await loadPolicy();
  /** @type {unknown} what an SDK's tool call types its arguments as */
  const input = JSON.parse('{"sql":"SELECT 1","limit":10,"tags":["a"],"where":{"x":null}}');
  assert.equal(decisionJson(policy.assess('execute_sql', input)), decisionJson(policy.assess('execute_sql', JSON.stringify(input))));
  // Serialised as JSON.stringify would: toJSON, and undefined members dropped.
  assert.equal(
    decisionJson(policy.assess('execute_sql', { sql: { toJSON: () => 'SELECT 2' }, skipped: undefined })),
    decisionJson(policy.assess('execute_sql', '{"sql":"SELECT 2"}')),
  );
  // No arguments at all is a call without arguments, as `parseCall` reads an
  // absent field (MCP sends a call without arguments so).
  const engine = policy.engine({ denied_tools: ['drop'] });
  assert.equal(decisionJson(engine.assess('list_tables', undefined)), decisionJson(engine.assess('list_tables', '{}')));
  assert.equal(decisionJson(engine.assessMany([{ tool: 'list_tables' }])[0]), decisionJson(engine.assess('list_tables', '{}')));
  assert.equal(engine.assess('drop', undefined).action, 'deny');
});

test('a trap is answered confirm and the host recovers', async () => {
  const policy = await loadPolicy();
  const engine = policy.engine({ denied_tools: ['execute_command'] });
  // The component's memory is capped at 256 MiB in every runtime; copying a
  // 300 MB argument string into it traps inside the component.
  const huge = `{"sql":"SELECT '${'x'.repeat(300 * 1024 * 1024)}'"}`;
  const d = policy.assess('execute_sql', huge);
  assert.equal(d.action, 'confirm');
  assert.equal(d.findings[0].code, POLICY_FAULT);
  assert.equal(d.summary.includes('\n'), false);
  // A fresh instance answers next, with the engine re-created from its config.
  assert.equal(policy.assess('execute_sql', '{"sql":"SELECT 1"}').action, 'allow');
  assert.equal(engine.assess('execute_command', { command: 'ls' }).action, 'deny');
  const viaEngine = engine.assess('execute_sql', huge);
  assert.equal(viaEngine.findings[0].code, POLICY_FAULT);
  assert.equal(engine.assess('execute_command', { command: 'ls' }).action, 'deny');
});

test('helpers', async () => {
  const policy = await loadPolicy();
  assert.equal(policy.stripRiskLevel('{"sql":"SELECT 1","risk_level":"low","n":1.50}'), '{"sql":"SELECT 1","n":1.50}');
  assert.throws(() => policy.stripRiskLevel('[]'), RejectedError);
  const en = policy.guidance();
  const zh = policy.guidance('zh');
  assert.match(en, /risk_level/);
  assert.match(zh, /风险/);
  const engine = policy.engine();
  const tools = [{ type: 'function', function: { name: 'execute_sql', parameters: { type: 'object', properties: { sql: { type: 'string' } } } } }];
  const augmented = engine.augmentTools(tools);
  // Objects in, objects out: ready to hand to an SDK.
  assert.deepEqual(augmented.tools[0].function.parameters.properties.risk_level.enum, ['low', 'medium', 'high']);
  assert.equal(tools[0].function.parameters.properties.risk_level, undefined, 'the input is not changed');
  assert.deepEqual(engine.augmentTools(augmented.tools), augmented);
  assert.deepEqual(augmented.notes, []);
  // Text in, text out.
  const text = engine.augmentTools(JSON.stringify(tools));
  assert.equal(typeof text.tools, 'string');
  assert.deepEqual(JSON.parse(text.tools), augmented.tools);
  const body = engine.augmentTools({ model: 'm', tools });
  assert.equal(body.tools.model, 'm');
  assert.deepEqual(body.tools.tools, augmented.tools);
  assert.throws(() => engine.augmentTools('3'), RejectedError);
  assert.throws(() => engine.augmentTools('[]', 'cobol'), /cobol/);
  const own = engine.augmentTools([{ name: 'a', input_schema: { type: 'object', properties: { risk_level: { type: 'integer' } } } }]);
  assert.equal(own.notes.length, 1);

  const call = policy.parseCall({ type: 'tool_use', id: 'toolu_1', name: 'execute_sql', input: { sql: 'SELECT 1' } });
  assert.deepEqual(call, { tool: 'execute_sql', args: '{"sql":"SELECT 1"}', id: 'toolu_1', format: 'anthropic' });
  assert.equal(toolCallJson(call), '{"tool":"execute_sql","args":"{\\"sql\\":\\"SELECT 1\\"}","id":"toolu_1","format":"anthropic"}');
  assert.throws(() => policy.parseCall('{}'), RejectedError);
  // The AI SDK's tool calls, as generateText's `toolCalls` hold them.
  const sdk = { type: 'tool-call', toolCallId: 'call_1', toolName: 'execute_sql', input: { sql: 'SELECT 1' } };
  assert.deepEqual(policy.parseCall(sdk), { tool: 'execute_sql', args: '{"sql":"SELECT 1"}', id: 'call_1', format: 'ai-sdk' });
  assert.equal(engine.assessCall(sdk).action, 'allow');
  assert.throws(() => policy.parseCall({ ...sdk, type: 'tool-result', output: [] }), /not a tool call/);
  const d = engine.assessCall({ id: 'c', type: 'function', function: { name: 'execute_sql', arguments: '{"sql": ' } });
  assert.equal(d.findings[0].code, 'args.invalid');
  assert.equal(engine.assessCall('[]').findings[0].code, 'call.invalid');
});

test('disposed engines are released and refuse further use', async () => {
  const policy = await loadPolicy();
  for (let i = 0; i < 200; i++) {
    const engine = policy.engine({ denied_tools: [`t${i}`] });
    assert.equal(engine.assess(`t${i}`, {}).action, 'deny');
    engine.dispose();
  }
  const engine = policy.engine();
  engine.dispose();
  assert.throws(() => engine.assess('execute_sql', '{"sql":"SELECT 1"}'), /disposed/);
  // Misuse of one engine does not disturb the instance.
  assert.equal(policy.assess('execute_sql', '{"sql":"SELECT 1"}').action, 'allow');
  assert.ok(new ToolgateError('x') instanceof Error);
});

test('decisionJson is the canonical form', async () => {
  const policy = await loadPolicy();
  const d = policy.assess('execute_sql', { sql: 'SELECT 1', risk_level: 'low' });
  assert.equal(
    decisionJson(d),
    '{"action":"allow","risk":"low","source":"llm","llm_risk":"low","findings":[{"code":"llm.low","message":"the model rated the call low risk"},{"code":"sql.read-only","message":"the statement only reads"}],"summary":"execute_sql: SELECT 1 — the model rated the call low risk"}',
  );
});

test('assessMany equals assess call by call', async () => {
  const policy = await loadPolicy();
  const engine = policy.engine({ denied_tools: ['drop_everything'] });
  const calls = [
    ['execute_sql', '{"sql":"SELECT 1"}'],
    ['execute_sql', { sql: 'DROP TABLE users', risk_level: 'low' }],
    { tool: 'execute_command', args: { command: 'ls -la | grep x' } },
    ['execute_command', '{"command":"rm -rf /"}'],
    ['drop_everything', {}],
    ['http_request', { url: 'http://169.254.169.254/latest/meta-data' }],
    ['unknown', 'not json'],
  ];
  const batch = engine.assessMany(calls);
  assert.equal(batch.length, calls.length);
  calls.forEach((call, i) => {
    const [tool, args] = Array.isArray(call) ? call : [call.tool, call.args];
    assert.equal(decisionJson(batch[i]), decisionJson(engine.assess(tool, args)));
  });
  assert.deepEqual(engine.assessMany([]), []);
});

test('a trap in a sequence loses and duplicates no decision', async () => {
  const policy = await loadPolicy();
  const reference = await loadPolicy();
  const huge = `{"sql":"SELECT '${'x'.repeat(300 * 1024 * 1024)}'"}`;
  const ordinary = [
    ['execute_sql', '{"sql":"SELECT 1"}'],
    ['execute_command', '{"command":"rm -rf /"}'],
  ];
  const decisions = [];
  for (let round = 0; round < 3; round++) {
    for (const [tool, args] of ordinary) decisions.push(policy.assess(tool, args));
    decisions.push(policy.assess('execute_sql', huge));
  }
  assert.equal(decisions.length, 9);
  decisions.forEach((d, i) => {
    if (i % 3 === 2) {
      assert.deepEqual(d.findings.map((f) => f.code), [POLICY_FAULT]);
    } else {
      const [tool, args] = ordinary[i % 3];
      assert.equal(decisionJson(d), decisionJson(reference.assess(tool, args)));
    }
  });
});

test('stats report the linear memory and the live engines', async () => {
  const policy = await loadPolicy();
  assert.equal(policy.stats().engines, 0);
  const engine = policy.engine({ strict: true });
  const { memoryBytes, engines } = policy.stats();
  assert.ok(memoryBytes >= 1024 * 1024, `${memoryBytes}`);
  assert.equal(engines, 1);
  engine.dispose();
  assert.equal(policy.stats().engines, 0);
});
