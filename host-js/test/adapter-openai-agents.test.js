// toolgate/openai-agents against the real Agents SDK (@openai/agents): a
// scripted Model (the SDK's Model interface) calls `execute_sql`, the Runner
// runs the gated tool; confirm goes through the run state's interruption.
// Allow, confirm approved and rejected, deny, the model's risk_level seen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, Runner, tool, Usage } from '@openai/agents';
import { z } from 'zod';
import { loadPolicy, Gate, MemorySink } from '../src/index.js';
import { openAiAgentsGate } from 'toolgate/openai-agents';

const policy = await loadPolicy();

/** A Model that calls `execute_sql` with `args` once, then answers text; it keeps its requests. */
function scripted(args) {
  const requests = [];
  return {
    requests,
    async getResponse(request) {
      requests.push(request);
      if (requests.length === 1) {
        return {
          usage: new Usage(),
          responseId: 'r1',
          output: [{ type: 'function_call', callId: 'call-1', name: 'execute_sql', arguments: JSON.stringify(args), status: 'completed' }],
        };
      }
      return {
        usage: new Usage(),
        responseId: 'r2',
        output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }],
      };
    },
    async *getStreamedResponse() {
      throw new Error('not scripted');
    },
  };
}

/** The output the model was sent for call-1 on its second turn. */
function outputSent(requests) {
  const item = (requests[1]?.input ?? []).find((i) => i.type === 'function_call_result' && i.callId === 'call-1');
  if (item === undefined) return null;
  return typeof item.output === 'string' ? item.output : (item.output?.text ?? JSON.stringify(item.output));
}

async function converse({ config, args, answer }) {
  const sink = new MemorySink();
  const gate = new Gate(policy, { config, audit: [sink] });
  const requested = [];
  gate.addEventListener('approval-requested', (e) => requested.push(e.detail));
  const tg = openAiAgentsGate(gate);
  const inner = scripted(args);
  const ran = [];
  const executeSql = tool({
    name: 'execute_sql',
    description: 'Runs SQL',
    parameters: z.object({ sql: z.string() }),
    execute: async (input) => {
      ran.push(input);
      return 'rows: 3';
    },
  });
  const agent = new Agent({ name: 'db', instructions: 'help', model: tg.model(inner), tools: tg.tools([executeSql]) });
  const runner = new Runner({ tracingDisabled: true });
  let result = await runner.run(agent, 'go');
  const interruptions = result.interruptions ?? [];
  if (interruptions.length > 0 && answer !== null) {
    for (const item of interruptions) {
      if (answer === 'approve') result.state.approve(item);
      else result.state.reject(item);
    }
    result = await runner.run(agent, result.state);
  }
  return { gate, inner, ran, requested, interruptions, result, lines: sink.lines.map((l) => JSON.parse(l)) };
}

const SELECT = { sql: 'SELECT id FROM users', risk_level: 'low' };
const DELETE = { sql: 'DELETE FROM sessions WHERE expired', risk_level: 'high' };

test('the function tools sent to the model gain risk_level, through the component', async () => {
  const r = await converse({ config: {}, args: SELECT, answer: null });
  const sent = r.inner.requests[0].tools.find((t) => t.name === 'execute_sql');
  assert.ok(sent.parameters.properties.risk_level, JSON.stringify(sent));
});

test("allow: runs at once, the model's low risk seen by the policy", async () => {
  const r = await converse({ config: {}, args: SELECT, answer: null });
  assert.equal(r.interruptions.length, 0);
  assert.deepEqual(r.ran, [{ sql: 'SELECT id FROM users' }]);
  assert.equal(r.lines.at(-1).status, 'executed');
  assert.ok(r.lines.at(-1).decision.findings.includes('llm.low'));
  assert.equal(outputSent(r.inner.requests), 'rows: 3');
  assert.equal(r.result.finalOutput, 'done');
});

test("confirm, approved: an interruption, then one run through the gate; the model's risk_level reached the policy", async () => {
  const r = await converse({ config: {}, args: DELETE, answer: 'approve' });
  assert.equal(r.interruptions.length, 1);
  assert.equal(r.requested.length, 1);
  assert.equal(r.requested[0].decision.llmRisk, 'high');
  assert.equal(r.requested[0].callId, 'call-1');
  assert.deepEqual(r.ran, [{ sql: 'DELETE FROM sessions WHERE expired' }]);
  assert.equal(r.lines.at(-1).status, 'executed');
  assert.equal((await r.gate.pending()).length, 0);
  assert.equal(r.result.finalOutput, 'done');
});

test('confirm, rejected: never runs; the rejection is settled in the gate', async () => {
  const r = await converse({ config: {}, args: DELETE, answer: 'reject' });
  assert.equal(r.interruptions.length, 1);
  assert.deepEqual(r.ran, []);
  assert.equal((await r.gate.pending()).length, 0);
  assert.equal(r.lines.at(-1).status, 'rejected');
  assert.equal(r.lines.at(-1).call_id, 'call-1');
});

test('deny: the input guardrail rejects it with the gate text; never runs, no interruption', async () => {
  const r = await converse({ config: { denied_tools: ['execute_sql'] }, args: SELECT, answer: null });
  assert.equal(r.interruptions.length, 0);
  assert.deepEqual(r.ran, []);
  assert.equal(r.lines.at(-1).status, 'denied');
  assert.match(outputSent(r.inner.requests), /"status":"denied"/);
});
