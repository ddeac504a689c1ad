// toolgate for the AI SDK (`ai` 7, and 6 through per-tool `needsApproval`).
//
// The SDK validates a tool call's input against the tool's schema before its
// approval hook runs, and the validator strips `risk_level`: so the model's
// raw arguments are recorded by call id in a language-model middleware, where
// the model's answer is first seen, and the policy reads those. The same
// middleware adds `risk_level` to the tools' schemas with the component's
// augment function, and settles a pending approval as rejected when the SDK
// reports the person's denial (its `execution-denied` tool result). Allowed
// and approved calls run through the gate (`proceed` / `settle`), so the audit,
// deadlines and checkpoints are the gate's.

import { Calls, sameArgs } from './calls.js';

export { GatedCallError } from './calls.js';

/**
 * The gate's adapter for the AI SDK.
 *
 * @param {import('../gate.js').Gate} gate
 * @param {{sessionId?: string, userId?: string, context?: unknown}} [options]
 */
export function aiSdkGate(gate, options = {}) {
  const calls = new Calls(() => gate, options);
  /** Augmented tool lists by their JSON text: the component is asked once per list. */
  const augmented = new Map();

  const augment = (tools) => {
    const functions = tools.filter((t) => t?.type === 'function');
    if (functions.length === 0) return tools;
    const key = JSON.stringify(functions);
    let done = augmented.get(key);
    if (done === undefined) {
      // AI SDK tools carry their schema in `inputSchema`, as MCP tools do.
      done = gate.engine.augmentTools(functions, 'mcp').tools;
      if (augmented.size >= 64) augmented.delete(augmented.keys().next().value);
      augmented.set(key, done);
    }
    let next = 0;
    return tools.map((t) => (t?.type === 'function' ? done[next++] : t));
  };

  const recordAll = (content) => {
    for (const part of content ?? []) {
      if (part?.type === 'tool-call') calls.record(part.toolCallId, part.input);
    }
  };

  /** A language-model middleware (`wrapLanguageModel({model, middleware})`). */
  const middleware = {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      for (const message of params.prompt ?? []) {
        if (message.role !== 'tool' || !Array.isArray(message.content)) continue;
        for (const part of message.content) {
          if (part?.type === 'tool-result' && part.output?.type === 'execution-denied') {
            await calls.reject(part.toolCallId, part.output.reason);
          }
        }
      }
      if (!Array.isArray(params.tools) || params.tools.length === 0) return params;
      return { ...params, tools: augment(params.tools) };
    },
    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      recordAll(result.content);
      return result;
    },
    async wrapStream({ doStream }) {
      const result = await doStream();
      const stream = result.stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part?.type === 'tool-call') calls.record(part.toolCallId, part.input);
            controller.enqueue(part);
          },
        }),
      );
      return { ...result, stream };
    },
  };

  /** `ai` 7's `toolApproval`: allow → not applicable, confirm → the user, deny → denied. */
  const toolApproval = async ({ toolCall }) => {
    const state = await calls.check(toolCall.toolCallId, toolCall.toolName, toolCall.input, {
      args: calls.inputArgs(toolCall.toolCallId, toolCall.input),
    });
    if (state.kind === 'allow') return 'not-applicable';
    if (state.kind === 'deny') return { type: 'denied', reason: state.decision.summary };
    return { type: 'user-approval', reason: state.decision.summary };
  };

  const wrap = (tools, withApproval) => {
    const out = {};
    for (const [name, t] of Object.entries(tools)) {
      if (typeof t?.execute !== 'function') {
        out[name] = t;
        continue;
      }
      const wrapped = {
        ...t,
        // The SDK runs its own `input`, which may come back from a client (an
        // approval answered in a browser): it runs only when it is exactly
        // what the gate decided or the person approved.
        execute: (input, execOptions) =>
          calls.execute(execOptions?.toolCallId, name, calls.inputArgs(execOptions?.toolCallId, input), (cleaned) => {
            if (!sameArgs(cleaned, input)) {
              throw new Error('the arguments to run are not the ones decided or approved; the call was not run');
            }
            return t.execute(input, execOptions);
          }),
      };
      if (withApproval) {
        wrapped.needsApproval = async (input, approvalOptions) =>
          (await calls.check(approvalOptions?.toolCallId, name, input, { args: calls.inputArgs(approvalOptions?.toolCallId, input) })).kind === 'confirm';
      }
      out[name] = wrapped;
    }
    return out;
  };

  return {
    middleware,
    toolApproval,
    /** The tools, each run through the gate (with `toolApproval`, `ai` 7). */
    tools: (tools) => wrap(tools, false),
    /** The tools with per-tool `needsApproval` from the gate (`ai` 6). */
    approvalTools: (tools) => wrap(tools, true),
    /** The arguments the model sent for `callId`, if recorded. */
    rawArgs: (callId) => calls.raw.get(String(callId)),
  };
}

export default aiSdkGate;
