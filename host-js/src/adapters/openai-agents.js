// toolgate for the OpenAI Agents SDK (`@openai/agents`).
//
// The SDK parses a function call's arguments with the tool's schema before
// `needsApproval` runs, which strips `risk_level`: so a model wrapper records
// the model's raw arguments by call id (and adds `risk_level` to the function
// tools it sends, with the component's augment function). Each gated tool gets
// `needsApproval` (true exactly when the policy confirms), a tool input
// guardrail that rejects a denied call with the gate's text for the model, and
// an `invoke` that runs through the gate (`proceed` when allowed, `settle` once
// the person approved the run state's interruption). A rejected interruption
// reaches the model as the call's output; the wrapper sees it on the next
// request and settles the pending approval as rejected, so the audit is whole.

import { Calls } from './calls.js';

export { GatedCallError } from './calls.js';

/** The guardrail's name in the run's guardrail results. */
export const GUARDRAIL_NAME = 'toolgate';

/**
 * The gate's adapter for the Agents SDK.
 *
 * @param {import('../gate.js').Gate} gate
 * @param {{sessionId?: string, userId?: string, context?: unknown}} [options]
 */
export function openAiAgentsGate(gate, options = {}) {
  const calls = new Calls(() => gate, options);
  const augmented = new Map();

  const augment = (tools) => {
    const functions = (tools ?? []).filter((t) => t?.type === 'function');
    if (functions.length === 0) return tools;
    const key = JSON.stringify(functions);
    let done = augmented.get(key);
    if (done === undefined) {
      // Serialized function tools have the Responses API's shape.
      done = gate.engine.augmentTools(functions, 'openai-responses').tools;
      if (augmented.size >= 64) augmented.delete(augmented.keys().next().value);
      augmented.set(key, done);
    }
    let next = 0;
    return tools.map((t) => (t?.type === 'function' ? done[next++] : t));
  };

  const record = (output) => {
    for (const item of output ?? []) {
      if (item?.type === 'function_call') calls.record(item.callId, item.arguments);
    }
  };

  /** Settles as rejected every pending call whose output the SDK now sends (a rejected interruption). */
  const rejections = async (input) => {
    if (!Array.isArray(input)) return;
    for (const item of input) {
      if (item?.type !== 'function_call_result') continue;
      const state = calls.state.get(String(item.callId));
      // Calls this process decided and ran (or denied) are no longer pending.
      if (state !== undefined && state.kind !== 'confirm') continue;
      const text = typeof item.output === 'string' ? item.output : item.output?.text;
      await calls.reject(item.callId, typeof text === 'string' ? text : undefined);
    }
  };

  const prepare = async (request) => {
    await rejections(request.input);
    return { ...request, tools: augment(request.tools) };
  };

  /** Wraps a `Model`: records raw arguments, augments the function tools. */
  const model = (inner) => ({
    get supportsPromptModelSelection() {
      return inner.supportsPromptModelSelection;
    },
    async getResponse(request) {
      const response = await inner.getResponse(await prepare(request));
      record(response.output);
      return response;
    },
    async *getStreamedResponse(request) {
      for await (const event of inner.getStreamedResponse(await prepare(request))) {
        if (event?.type === 'response_done') record(event.response?.output);
        yield event;
      }
    },
    ...(typeof inner.getRetryAdvice === 'function' ? { getRetryAdvice: (args) => inner.getRetryAdvice(args) } : {}),
  });

  /** The tool input guardrail: a call the policy denies is rejected with the gate's text. */
  const guardrail = {
    type: 'tool_input',
    name: GUARDRAIL_NAME,
    async run({ toolCall }) {
      const state = await calls.check(toolCall.callId, toolCall.name, toolCall.arguments);
      if (state.kind === 'deny') {
        return { outputInfo: { decision: state.decision }, behavior: { type: 'rejectContent', message: state.result.forModel() } };
      }
      return { outputInfo: { decision: state.decision }, behavior: { type: 'allow' } };
    },
  };

  /** A function tool, gated: approval from the policy, the guardrail, the run through the gate. */
  const tool = (t) => {
    if (t?.type !== 'function') return t;
    const invoke = (runContext, input, details) =>
      calls.execute(details?.toolCall?.callId, t.name, input, (cleaned) => t.invoke(runContext, cleaned, details));
    return {
      ...t,
      needsApproval: async (_runContext, input, callId) => (await calls.check(callId, t.name, input)).kind === 'confirm',
      inputGuardrails: [...(t.inputGuardrails ?? []), guardrail],
      invoke,
    };
  };

  return {
    model,
    tool,
    tools: (list) => list.map(tool),
    guardrail,
    /** The arguments the model sent for `callId`, if recorded. */
    rawArgs: (callId) => calls.raw.get(String(callId)),
  };
}

export default openAiAgentsGate;
