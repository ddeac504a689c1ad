// toolgate/ai-sdk against the real AI SDK: `ai` 7 (toolApproval) and `ai` 6
// (the `ai-v6` alias, per-tool needsApproval), each with the SDK's own mock
// language model. Allow, confirm approved, confirm rejected, deny, and the
// model's risk_level reaching the policy although the schema strips it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ai7 from 'ai';
import { MockLanguageModelV3 as Mock7 } from 'ai/test';
import * as ai6 from 'ai-v6';
import { MockLanguageModelV3 as Mock6 } from 'ai-v6/test';
import { z } from 'zod';
import { loadPolicy, Gate, MemorySink } from '../src/index.js';
import { aiSdkGate, GatedCallError } from 'toolgate/ai-sdk';

const policy = await loadPolicy();
const USAGE = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };

/** A mock model that calls `execute_sql` with `args` once, then answers text; it keeps what it was sent. */
function scripted(Mock, args) {
  const sent = [];
  const model = new Mock({
    doGenerate: async (options) => {
      sent.push(options);
      if (sent.length === 1) {
        return {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'execute_sql', input: JSON.stringify(args) }],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage: USAGE,
          warnings: [],
        };
      }
      return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage: USAGE, warnings: [] };
    },
  });
  return { model, sent };
}

/** The tool results the model was sent on its second turn, by call id. */
function toolResults(options) {
  const out = new Map();
  for (const m of options?.prompt ?? []) {
    if (m.role !== 'tool') continue;
    for (const p of m.content) if (p.type === 'tool-result') out.set(p.toolCallId, p.output);
  }
  return out;
}

/** One conversation turn with the SDK `sdk`, answered by `answer` ('approve' | 'reject' | null). */
async function converse({ sdk, Mock, v7, config, args, answer }) {
  const sink = new MemorySink();
  const gate = new Gate(policy, { config, audit: [sink] });
  const requests = [];
  gate.addEventListener('approval-requested', (e) => requests.push(e.detail));
  const tg = aiSdkGate(gate);
  const { model: base, sent } = scripted(Mock, args);
  const model = sdk.wrapLanguageModel({ model: base, middleware: tg.middleware });
  const ran = [];
  const plain = {
    execute_sql: sdk.tool({
      description: 'Runs SQL',
      inputSchema: z.object({ sql: z.string() }),
      execute: async (input) => {
        ran.push(input);
        return { rows: 3 };
      },
    }),
  };
  const tools = v7 ? tg.tools(plain) : tg.approvalTools(plain);
  const extra = v7 ? { toolApproval: tg.toolApproval } : {};
  const first = await sdk.generateText({ model, tools, ...extra, prompt: 'go', stopWhen: sdk.stepCountIs(5) });
  const approval = first.content.find((p) => p.type === 'tool-approval-request');
  let second = null;
  if (approval !== undefined && answer !== null) {
    const messages = [
      { role: 'user', content: 'go' },
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approval.approvalId, approved: answer === 'approve', reason: answer === 'reject' ? 'not today' : undefined }] },
    ];
    second = await sdk.generateText({ model, tools, ...extra, messages, stopWhen: sdk.stepCountIs(5) });
  }
  return { gate, sink, requests, sent, ran, first, second, approval, lines: sink.lines.map((l) => JSON.parse(l)) };
}

const SELECT = { sql: 'SELECT id FROM users', risk_level: 'low' };
const DELETE = { sql: 'DELETE FROM sessions WHERE expired', risk_level: 'high' };

for (const [label, sdk, Mock, v7] of [
  ['ai 7 toolApproval', ai7, Mock7, true],
  ['ai 6 needsApproval', ai6, Mock6, false],
]) {
  test(`${label}: the tool schemas gain risk_level, through the component`, async () => {
    const { sent } = await converse({ sdk, Mock, v7, config: {}, args: SELECT, answer: null });
    const schema = sent[0].tools.find((t) => t.name === 'execute_sql').inputSchema;
    assert.deepEqual(schema.properties.risk_level.enum, ['low', 'medium', 'high']);
    assert.deepEqual(schema.required, ['sql']);
  });

  test(`${label}: allow runs at once, the model's low risk seen`, async () => {
    const r = await converse({ sdk, Mock, v7, config: {}, args: SELECT, answer: null });
    assert.equal(r.approval, undefined);
    assert.deepEqual(r.ran, [{ sql: 'SELECT id FROM users' }]);
    assert.equal(r.requests.length, 0);
    assert.equal(r.lines.at(-1).decision.action, 'allow');
    assert.equal(r.lines.at(-1).status, 'executed');
    // The schema strips risk_level; the policy decided on the model's `low`.
    assert.ok(r.lines.at(-1).decision.findings.includes('llm.low'), JSON.stringify(r.lines.at(-1)));
    assert.deepEqual(toolResults(r.sent[1]).get('call-1'), { type: 'json', value: { rows: 3 } });
  });

  test(`${label}: confirm, approved: runs once, through the gate, the model's risk_level reaching the policy`, async () => {
    const r = await converse({ sdk, Mock, v7, config: {}, args: DELETE, answer: 'approve' });
    assert.ok(r.approval, 'an approval request part');
    if (v7) assert.match(r.approval.reason, /DELETE FROM sessions/);
    assert.equal(r.requests.length, 1);
    // The schema strips risk_level before the SDK's hooks; the policy saw it.
    assert.equal(r.requests[0].decision.llmRisk, 'high');
    assert.equal(r.requests[0].callId, 'call-1');
    assert.deepEqual(r.ran, [{ sql: 'DELETE FROM sessions WHERE expired' }]);
    assert.equal((await r.gate.pending()).length, 0);
    assert.equal(r.lines.at(-1).status, 'executed');
    assert.equal(r.lines.at(-1).call_id, 'call-1');
    assert.deepEqual(toolResults(r.sent[1]).get('call-1'), { type: 'json', value: { rows: 3 } });
  });

  test(`${label}: confirm, rejected: never runs, the rejection is the gate's`, async () => {
    const r = await converse({ sdk, Mock, v7, config: {}, args: DELETE, answer: 'reject' });
    assert.ok(r.approval);
    assert.deepEqual(r.ran, []);
    assert.equal(toolResults(r.sent[1]).get('call-1').type, 'execution-denied');
    assert.equal((await r.gate.pending()).length, 0, 'the pending approval was settled');
    assert.equal(r.lines.at(-1).status, 'rejected');
    assert.equal(r.lines.at(-1).call_id, 'call-1');
  });

  test(`${label}: deny never runs, the model told why`, async () => {
    const r = await converse({ sdk, Mock, v7, config: { denied_tools: ['execute_sql'] }, args: SELECT, answer: null });
    // ai 7 reports an automatic denial as an approval part nobody answers.
    if (r.approval !== undefined) assert.equal(r.approval.isAutomatic, true);
    assert.deepEqual(r.ran, []);
    assert.equal(r.requests.length, 0);
    assert.equal(r.lines.at(-1).decision.action, 'deny');
    assert.equal(r.lines.at(-1).status, 'denied');
    const out = toolResults(r.sent[1]).get('call-1');
    if (v7) {
      assert.equal(out.type, 'execution-denied');
      assert.match(out.reason, /execute_sql/);
    } else {
      assert.equal(out.type, 'error-text');
      assert.match(out.value, /"status":"denied"/);
    }
  });
}

test('a tool run without any approval hook is decided at its execution, and a confirm is not run', async () => {
  const gate = new Gate(policy, { config: {} });
  const tg = aiSdkGate(gate);
  let ran = 0;
  const tools = tg.tools({ execute_sql: { execute: async () => ++ran } });
  await assert.rejects(tools.execute_sql.execute({ sql: 'DROP TABLE users' }, { toolCallId: 'x' }), /a person must approve/);
  assert.equal(ran, 0);
  const denied = aiSdkGate(new Gate(policy, { config: { denied_tools: ['execute_sql'] } })).tools({ execute_sql: { execute: async () => ++ran } });
  await assert.rejects(denied.execute_sql.execute({ sql: 'SELECT 1' }, { toolCallId: 'y' }), GatedCallError);
  assert.equal(ran, 0);
});

test('ai 7 streamText: the stream middleware records the raw arguments; the request carries the model risk', async () => {
  const gate = new Gate(policy, { config: {} });
  const requests = [];
  gate.addEventListener('approval-requested', (e) => requests.push(e.detail));
  const tg = aiSdkGate(gate);
  const chunks = [
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId: 'call-s', toolName: 'execute_sql', input: JSON.stringify(DELETE) },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: USAGE },
  ];
  const base = new Mock7({ doStream: async () => ({ stream: ai7.simulateReadableStream({ chunks }) }) });
  let ran = 0;
  const tools = tg.tools({ execute_sql: ai7.tool({ inputSchema: z.object({ sql: z.string() }), execute: async () => ++ran }) });
  const result = ai7.streamText({ model: ai7.wrapLanguageModel({ model: base, middleware: tg.middleware }), tools, toolApproval: tg.toolApproval, prompt: 'go' });
  const parts = [];
  for await (const part of result.fullStream) parts.push(part);
  assert.ok(parts.some((p) => p.type === 'tool-approval-request'), JSON.stringify(parts.map((p) => p.type)));
  assert.equal(requests.length, 1);
  assert.equal(requests[0].decision.llmRisk, 'high');
  assert.equal(ran, 0);
});

test('ai 7: an approval given after the deadline does not run; the model is told it came too late', async () => {
  const r = await converse({ sdk: ai7, Mock: Mock7, v7: true, config: { approval_timeout_ms: 1 }, args: DELETE, answer: null });
  assert.ok(r.approval);
  await new Promise((resolve) => setTimeout(resolve, 20));
  // Another process's adapter over the same store: the approval is found by call id.
  const text = new Mock7({ doGenerate: { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage: USAGE, warnings: [] } });
  const model = ai7.wrapLanguageModel({ model: text, middleware: aiSdkGate(r.gate).middleware });
  let ran = 0;
  const tools = aiSdkGate(r.gate).tools({ execute_sql: ai7.tool({ inputSchema: z.object({ sql: z.string() }), execute: async () => ++ran }) });
  const messages = [
    { role: 'user', content: 'go' },
    ...r.first.response.messages,
    { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: r.approval.approvalId, approved: true }] },
  ];
  const second = await ai7.generateText({ model, tools, messages });
  assert.equal(ran, 0);
  assert.equal(second.text, 'ok');
  const output = toolResults(text.doGenerateCalls[0]).get('call-1');
  assert.equal(output?.type, 'error-text', JSON.stringify(output));
  assert.match(output.value, /"status":"expired"/);
  assert.match(output.value, /approved too late: a person approved this call after its approval deadline/);
  assert.match(output.value, /it was not run/);
});

test('ai 7: an approved call whose input comes back changed (a client edited the history) never runs', async () => {
  const r = await converse({ sdk: ai7, Mock: Mock7, v7: true, config: {}, args: DELETE, answer: null });
  assert.ok(r.approval);
  const text = new Mock7({ doGenerate: { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage: USAGE, warnings: [] } });
  const tg = aiSdkGate(r.gate);
  const model = ai7.wrapLanguageModel({ model: text, middleware: tg.middleware });
  const ran = [];
  const tools = tg.tools({ execute_sql: ai7.tool({ inputSchema: z.object({ sql: z.string() }), execute: async (input) => ran.push(input) }) });
  // The person approved `DELETE … WHERE expired`; the history sent back says `DELETE FROM sessions`.
  const edited = JSON.parse(JSON.stringify(r.first.response.messages).replace(' WHERE expired', ''));
  const messages = [
    { role: 'user', content: 'go' },
    ...edited,
    { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: r.approval.approvalId, approved: true }] },
  ];
  await ai7.generateText({ model, tools, toolApproval: tg.toolApproval, messages });
  assert.deepEqual(ran, []);
  const output = toolResults(text.doGenerateCalls[0]).get('call-1');
  assert.equal(output?.type, 'error-text', JSON.stringify(output));
});

test('ai 7: a schema default is part of what the policy decides, since the tool receives it', async () => {
  const gate = new Gate(policy, {});
  const tg = aiSdkGate(gate);
  // No rating from the model: the code layer alone decides.
  const { model: base } = scripted(Mock7, { sql: 'SELECT id FROM users' });
  const model = ai7.wrapLanguageModel({ model: base, middleware: tg.middleware });
  const seen = [];
  gate.addEventListener('approval-requested', (e) => seen.push(e.detail));
  const ran = [];
  const tools = tg.tools({
    execute_sql: ai7.tool({
      inputSchema: z.object({ sql: z.string(), then: z.string().default('DROP TABLE users') }),
      execute: async (input) => ran.push(input),
    }),
  });
  const r = await ai7.generateText({ model, tools, toolApproval: tg.toolApproval, prompt: 'go', stopWhen: ai7.stepCountIs(3) });
  // The policy sees the unknown `then` field the default filled in, so it is not allowed at once.
  assert.deepEqual(ran, []);
  assert.ok(r.content.some((p) => p.type === 'tool-approval-request'), JSON.stringify(r.content));
  assert.ok(seen[0]?.decision.findings.some((f) => f.code === 'args.unknown-field'), JSON.stringify(seen[0]?.decision));
});
