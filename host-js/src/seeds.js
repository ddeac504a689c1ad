// The origin designs' own vocabulary, for hosts written against them (the
// twin of host-rs/src/seeds.rs; the fixtures under tests/seeds/ hold both to
// the same answers).
//
// - Seed 004 (the approval flow) names the gate's events
//   USER_INTERACTION_REQUESTED, _RESPONDED and _PROCESSED, their operation
//   type TOOL_APPROVAL, and the prompt `是否批准调用工具 "${tool.name}"?`.
//   `interactionOf` gives a gate event in that shape.
// - Seed 000 §F lets a model that is unsure ask in plain text instead of
//   calling the tool, and the code layer recognise that message with
//   `isRiskConfirmationQuestion`; `TextConfirmation` keeps the loop's state.

/** Seed 004 §3.2's operation type of a tool approval. */
export const TOOL_APPROVAL = 'TOOL_APPROVAL';
/** Seed 004's event: a person must answer (the gate's `approval-requested`). */
export const USER_INTERACTION_REQUESTED = 'USER_INTERACTION_REQUESTED';
/** Seed 004's event: the answer came (the gate's `approval-responded`). */
export const USER_INTERACTION_RESPONDED = 'USER_INTERACTION_RESPONDED';
/** Seed 004's event: the answer was acted on (the gate's `approval-processed`, for a call that was asked about). */
export const USER_INTERACTION_PROCESSED = 'USER_INTERACTION_PROCESSED';

function isChinese(language) {
  const tag = String(language ?? '').trim().toLowerCase();
  return tag === 'zh' || tag.startsWith('zh-') || tag.startsWith('zh_');
}

/** Seed 004 §3.4's prompt: `是否批准调用工具 "name"?` in Chinese, its English rendering otherwise. */
export function approvalPrompt(tool, language = 'en') {
  return isChinese(language) ? `是否批准调用工具 "${tool}"?` : `Approve the call of the tool "${tool}"?`;
}

/**
 * A flow event as the component writes it (`{type: 'requested', request}`,
 * …), from itself or from a gate's DOM event (`approval-requested`, with the
 * gate's camelCase detail).
 */
function flowEvent(event) {
  if (event === null || typeof event !== 'object') return null;
  if (typeof event.type === 'string' && event.type.startsWith('approval-') && 'detail' in event) {
    const d = event.detail ?? {};
    switch (event.type) {
      case 'approval-requested':
        return {
          type: 'requested',
          request: { id: d.id, tool: d.tool, description: d.description ?? '', args: d.args, requested_at: d.requestedAt, deadline: d.deadline },
        };
      case 'approval-responded':
        return { type: 'responded', id: d.id, answer: d.answer, by: d.by ?? null };
      case 'approval-processed':
        return { type: 'processed', id: d.id ?? null, tool: d.tool, status: d.status };
      default:
        return null;
    }
  }
  return event;
}

/**
 * A gate event in seed 004's shape, or null for an event seed 004 has no name
 * for (an expiry warning, a refused grant, a call that ran unasked).
 */
export function interactionOf(event, language = 'en') {
  const e = flowEvent(event);
  if (e === null) return null;
  if (e.type === 'requested') {
    const r = e.request;
    // Seed 004 hands the listener `JSON.parse(toolCall.arguments)`; arguments
    // that are not JSON are shown as the text they are.
    let parameters;
    try {
      parameters = JSON.parse(r.args);
    } catch {
      parameters = r.args;
    }
    return {
      type: USER_INTERACTION_REQUESTED,
      timestamp: r.requested_at,
      interactionId: r.id,
      operationType: TOOL_APPROVAL,
      prompt: approvalPrompt(r.tool, language),
      timeout: Math.max(0, r.deadline - r.requested_at),
      metadata: {
        toolApproval: { toolName: r.tool, toolDescription: r.description ?? '', toolParameters: parameters, approved: false },
      },
    };
  }
  if (e.type === 'responded') {
    return { type: USER_INTERACTION_RESPONDED, interactionId: e.id, inputData: { approved: e.answer === 'approve' || e.answer === 'edit' } };
  }
  if (e.type === 'processed' && e.id !== null && e.id !== undefined) {
    return {
      type: USER_INTERACTION_PROCESSED,
      interactionId: e.id,
      operationType: TOOL_APPROVAL,
      results: { approved: ['executed', 'failed', 'executing'].includes(e.status), status: e.status },
    };
  }
  return null;
}

/** Marks that make a message ask something (seed 000 §F's examples end in `?`, or ask with 吗 and 请回复). */
const ASKS = ['?', '？', '吗', '是否', '请回复', '请确认', 'please confirm', 'please reply'];

/**
 * Words that make the question one about risk or about going ahead, in
 * English (compared in lower case) and Chinese: seed 000 §F's "may be risky.
 * Should I proceed?" and seed 002 §7.4's "这是一个高风险操作 … 确认要终止这个会话吗？".
 */
const RISK_WORDS = [
  'risk', 'danger', 'destructive', 'irreversible', 'cannot be undone', "can't be undone", 'proceed', 'go ahead',
  'are you sure', 'confirm', '风险', '危险', '不可恢复', '不可逆', '无法恢复', '无法撤销', '确认', '继续', '是否执行',
];

/**
 * Seed 000 §F's `isRiskConfirmationQuestion`: whether a model's text (sent
 * instead of a tool call) asks the user to confirm a risky operation. A word
 * list, so a reading for a user interface, never a decision.
 */
export function isRiskConfirmationQuestion(content) {
  const text = String(content ?? '').toLowerCase();
  return ASKS.some((m) => text.includes(m)) && RISK_WORDS.some((w) => text.includes(w));
}

/** Replies that agree: seed 002 §7.4's "确认" and their usual siblings. */
const AGREES = new Set([
  '确认', '确定', '是', '是的', '好', '好的', '继续', '同意', '可以', '执行',
  'y', 'yes', 'ok', 'okay', 'sure', 'proceed', 'go ahead', 'confirm', 'confirmed',
]);

/** Whether a user's reply agrees to what was asked. */
export function isAffirmative(reply) {
  const text = String(reply ?? '').trim().replace(/[.!。！~ ]+$/u, '').toLowerCase();
  return AGREES.has(text);
}

/**
 * Seed 000 §F's text-confirmation loop: the model asks in text, the user
 * answers, the model calls. The reply goes to the model as the user's message
 * either way, and the call the model makes after a "确认" still goes through
 * the gate: the person agreed to the model's prose, not to a call's exact
 * arguments.
 */
export class TextConfirmation {
  #question = null;

  /** A model message; returns the question to show as a confirmation, or null. */
  onModel(content, hasToolCalls = false) {
    this.#question = !hasToolCalls && isRiskConfirmationQuestion(content) ? String(content) : null;
    return this.#question;
  }

  /** The user's reply: `{kind: 'confirmed' | 'declined', question}` or `{kind: 'not-asked'}`; closes the question. */
  onUser(reply) {
    const question = this.#question;
    this.#question = null;
    if (question === null) return { kind: 'not-asked' };
    return { kind: isAffirmative(reply) ? 'confirmed' : 'declined', question };
  }

  /** The question waiting for the user's answer, or null. */
  get open() {
    return this.#question;
  }
}
