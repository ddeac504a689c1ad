// What every adapter keeps between an agent SDK's hooks: the model's raw
// arguments by call id (schema validators strip `risk_level` before the
// SDK's approval hook runs, so the arguments the policy reads are recorded
// where the model's answer is first seen), and each call's standing after
// the gate's `check` (allowed and ready to run, denied with its result, or
// pending an answer the SDK collects itself). The gate keeps the audit,
// deadlines and checkpoints; this keeps only what joins the SDK's hooks.

/** A call the gate did not run: its status and the text for the model. */
export class GatedCallError extends Error {
  /**
   * @param {import('../gate.js').ToolResult} result
   * @param {string} [forModel] the text for the model, when not the gate's
   */
  constructor(result, forModel = result.forModel()) {
    super(forModel);
    this.name = 'GatedCallError';
    this.status = result.status;
    this.result = result;
  }
}

/**
 * What the model is told when the person's approval came after the
 * approval's deadline (`deadline`, ms, when known): plainly that it was
 * approved too late and did not run, so it can ask again.
 */
export function lateApproval(deadline) {
  const when = Number.isFinite(deadline) ? ` (${new Date(deadline).toISOString()})` : '';
  return JSON.stringify({
    status: 'expired',
    reason: `approved too late: a person approved this call after its approval deadline${when} had passed, so it was not run; call the tool again if it is still needed, and the person will be asked again`,
  });
}

/** JSON text of `value` with every object's keys sorted: equal values, equal texts. */
function canonical(value) {
  return JSON.stringify(value, (_, v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
      : v,
  );
}

/**
 * Whether the gate's arguments (JSON text, `risk_level` stripped) are the
 * SDK's `input`: the one check between what was decided (or approved) and
 * what the SDK is about to run, whose input can come back from a client.
 */
export function sameArgs(cleaned, input) {
  try {
    return canonical(JSON.parse(cleaned)) === canonical(input);
  } catch {
    return false;
  }
}

/** The most calls kept waiting for their next hook: older ones are forgotten first. */
const MAX_KEPT = 10_000;

/** A bounded map: insertion order, the oldest entry dropped past `MAX_KEPT`. */
function bounded() {
  const map = new Map();
  return {
    get: (key) => map.get(key),
    has: (key) => map.has(key),
    delete: (key) => map.delete(key),
    set(key, value) {
      map.delete(key);
      map.set(key, value);
      if (map.size > MAX_KEPT) map.delete(map.keys().next().value);
    },
  };
}

/**
 * The calls an adapter has seen, by call id: `raw` holds the arguments as
 * the model sent them, `state` what `check` decided.
 */
export class Calls {
  raw = bounded();
  state = bounded();
  /** Calls whose rejection was already looked at: history is not searched twice. */
  seen = bounded();
  #anonymous = 0;

  /**
   * @param {() => import('../gate.js').Gate} gate the gate in force
   * @param {{sessionId?: string, userId?: string, context?: unknown}} [options]
   */
  constructor(gate, options = {}) {
    this.gate = gate;
    this.options = options;
  }

  /** Records the model's arguments (JSON text or a value) for `callId`. */
  record(callId, args) {
    if (callId !== undefined && callId !== null) this.raw.set(String(callId), args);
  }

  /**
   * The arguments the tool will receive (`input`, as the SDK validated them:
   * schema defaults and transforms applied, unknown fields dropped) with the
   * model's `risk_level` from its raw arguments: what the policy decides when
   * the SDK, not the gate, hands the tool its input.
   */
  inputArgs(callId, input) {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
    let raw = this.raw.get(String(callId));
    if (typeof raw === 'string') {
      try {
        raw = JSON.parse(raw);
      } catch {
        raw = undefined;
      }
    }
    const rated = raw !== null && typeof raw === 'object' && Object.hasOwn(raw, 'risk_level');
    return rated ? { ...input, risk_level: raw.risk_level } : input;
  }

  /** The arguments the policy reads for `callId`: as the model sent them, else `fallback`. */
  argsOf(callId, fallback) {
    return this.raw.get(String(callId)) ?? fallback;
  }

  /**
   * Decides the call now (once per call id) and keeps its standing:
   * `{kind: 'allow', proceed}`, `{kind: 'deny', result}` or
   * `{kind: 'confirm', pending}`.
   */
  async check(callId, tool, fallbackArgs, extra = {}) {
    const id = String(callId);
    const kept = this.state.get(id);
    if (kept !== undefined) return kept;
    const c = await this.gate().check({
      tool,
      args: this.argsOf(id, fallbackArgs),
      callId: id,
      sessionId: this.options.sessionId,
      userId: this.options.userId,
      context: this.options.context,
      ...extra,
    });
    const state =
      c.pending !== null
        ? { kind: 'confirm', decision: c.decision, pending: c.pending }
        : c.result !== null
          ? { kind: 'deny', decision: c.decision, result: c.result }
          : { kind: 'allow', decision: c.decision, proceed: c.proceed };
    this.state.set(id, state);
    return state;
  }

  /**
   * The pending approval of `callId`: kept here, else found in the gate's
   * store (another process asked), else null.
   */
  async pendingOf(callId) {
    const id = String(callId);
    const kept = this.state.get(id);
    if (kept?.kind === 'confirm') return kept.pending.id;
    for (const p of await this.gate().pending()) {
      if (p.ok && p.request.callId === id) return p.request.id;
    }
    return null;
  }

  /**
   * Runs the call the SDK is about to execute, through the gate: an allowed
   * one with `proceed`, an approved one with `settle` (the SDK only executes
   * what its user approved), a denied one never. `run()` is the SDK's own
   * execution; its value is returned as it is when the gate ran it,
   * otherwise a `GatedCallError` carries the gate's result. A call no hook
   * decided is checked now; one that needs a person and has none pending
   * is not run. `run` receives the arguments the gate passes (JSON text,
   * `risk_level` stripped).
   */
  async execute(callId, tool, args, run) {
    // A call without an id (an SDK that passed none) is decided on its own.
    const id = callId === undefined || callId === null ? `toolgate-anonymous-${++this.#anonymous}` : String(callId);
    let value;
    const execute = async (cleaned) => {
      value = await run(cleaned);
      return value;
    };
    let state = this.state.get(id);
    let pendingId = null;
    if (state === undefined) {
      pendingId = await this.pendingOf(id);
      if (pendingId === null) {
        // Decided on what is about to run, the arguments given here.
        state = await this.check(id, tool, args, { args });
        if (state.kind === 'confirm') {
          // Nobody was asked: never approved on the person's behalf.
          this.state.delete(id);
          throw new Error(`${state.decision.summary}: a person must approve this call (approval \`${state.pending.id}\` is pending)`);
        }
      }
    }
    let result;
    try {
      if (state?.kind === 'allow') result = await state.proceed(execute);
      else if (state?.kind === 'deny') result = state.result;
      else result = await this.gate().settle(pendingId ?? state.pending.id, { answer: 'approve' }, execute);
    } finally {
      this.state.delete(id);
      this.raw.delete(id);
    }
    if (result.status === 'executed') return value;
    // The SDK executes only what its user approved: an approval the gate
    // found expired came after its deadline, and the model is told so (the
    // gate's own text says no one approved, which is not what happened).
    if (result.status === 'expired' && state?.kind !== 'allow' && state?.kind !== 'deny') {
      throw new GatedCallError(result, lateApproval(state?.pending?.deadline));
    }
    throw new GatedCallError(result);
  }

  /**
   * Records a person's rejection the SDK reported (its denied tool result):
   * the pending approval of `callId`, if any, is settled `reject`. Resolves
   * with the gate's result, or null when nothing was pending.
   */
  async reject(callId, message) {
    const id = String(callId);
    if (this.seen.has(id)) return null;
    this.seen.set(id, true);
    const state = this.state.get(id);
    if (state !== undefined && state.kind !== 'confirm') return null;
    const pendingId = await this.pendingOf(id);
    this.state.delete(id);
    this.raw.delete(id);
    if (pendingId === null) return null;
    const response = { answer: 'reject' };
    if (typeof message === 'string' && message !== '') response.message = message;
    try {
      return await this.gate().settle(pendingId, response, () => null);
    } catch (e) {
      // Answered elsewhere already: the gate recorded that answer.
      if (e?.code === 'already-answered' || e?.code === 'unknown') return null;
      throw e;
    }
  }
}
