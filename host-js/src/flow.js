// The approval flow of the component's `gate` interface, as a JavaScript
// object: `policy.flow(config, settings, {checkpointKey, auditKey})`. Each
// method is one crossing into the component and returns the component's JSON
// text unchanged (a step, a pending approval, an audit line), so every runtime
// hands its callers the same bytes. The gate (gate.js) is a shell over it.

import { ToolgateError, checkpointErrorOf } from './errors.js';

/**
 * A step of the flow could not be taken. `kind` is `checkpoint` (the
 * checkpoint was refused: `cause` is a `CheckpointError`, `checkpoint` the
 * component's `{kind, detail}`) or `invalid` (the call, answer, outcome or
 * ticket is not of the expected shape; `detail` says how).
 */
export class StepError extends ToolgateError {
  constructor(kind, detail, message, options) {
    super(message, options);
    this.kind = kind;
    this.detail = detail;
  }
}

/** The component's `step-error` payload as a `StepError`. */
export function stepErrorOf(payload) {
  if (payload?.tag === 'checkpoint') {
    const inner = payload.val;
    const cause = checkpointErrorOf(inner);
    const error = new StepError('checkpoint', inner?.val ?? null, cause.message, { cause });
    error.checkpoint = { kind: cause.kind, detail: inner?.val ?? null };
    return error;
  }
  const detail = String(payload?.val ?? payload);
  return new StepError('invalid', detail, detail);
}

const time = (now) => {
  const n = Number(now);
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError('`now` is milliseconds since the Unix epoch');
  return BigInt(n);
};
const optional = (previous) => (previous === undefined || previous === null ? undefined : String(previous));

/**
 * One gate's flow in the component (see `interface gate` in wit/toolgate.wit).
 * Call `dispose()` (or use `using`) when done.
 */
export class Flow {
  #policy;
  #id;

  /** @internal made by `Policy.flow` */
  constructor(policy, id) {
    this.#policy = policy;
    this.#id = id;
  }

  #step(f) {
    return this.#policy._callFlow(this.#id, f);
  }

  /** Step 1: decides `call` (JSON text) at `now`; `id` names the approval if one is needed. */
  begin(call, id, now, previous) {
    const [c, i, t, p] = [String(call), String(id), time(now), optional(previous)];
    return this.#step((h) => h.begin(c, i, t, p));
  }

  /** The pending approval (JSON text) in a checkpoint this flow's key signed. */
  open(checkpoint) {
    const c = String(checkpoint);
    return this.#step((h) => h.open(c));
  }

  /** Step 2: an answer (JSON text) to the approval in `checkpoint`, taken at `now`. */
  settle(checkpoint, answer, now, previous) {
    const [c, a, t, p] = [String(checkpoint), String(answer), time(now), optional(previous)];
    return this.#step((h) => h.settle(c, a, t, p));
  }

  /** Step 3: how the run of a `run` step's `ticket` ended (JSON text), at `now`. */
  finish(ticket, ran, now, previous) {
    const [k, r, t, p] = [String(ticket), String(ran), time(now), optional(previous)];
    return this.#step((h) => h.finish(k, r, t, p));
  }

  /** The audit line recording a torn log's repair (`what` was set aside). */
  gap(what, now, previous) {
    const [w, t, p] = [String(what), time(now), optional(previous)];
    return this.#step((h) => h.gap(w, t, p));
  }

  /** A sealed grant's JSON text, if this flow's key signed it and it has not expired at `now`. */
  openGrant(grant, now) {
    const [g, t] = [String(grant), time(now)];
    return this.#step((h) => h.openGrant(g, t));
  }

  /** The audit line recording that a sealed grant was revoked at `now`. */
  revoke(grant, now, previous) {
    const [g, t, p] = [String(grant), time(now), optional(previous)];
    return this.#step((h) => h.revoke(g, t, p));
  }

  /**
   * Starts one operation of the gate's driver (docs/gate-steps.md; JSON text
   * `{"op": …}`) in one crossing: a `Driver` holding its first batch of
   * effects (`first`, JSON texts), whose `step(outcomes)` returns the next.
   * Call its `dispose()` when the operation is over.
   */
  drive(op) {
    const o = String(op);
    const [handle, first] = this.#step((h) => h.start(o));
    return new Driver((f) => this.#step(() => f(handle)), handle, first);
  }

  /** Frees the flow in the component. */
  dispose() {
    this.#policy._disposeFlow(this.#id);
  }

  [Symbol.dispose]() {
    this.dispose();
  }
}

/** One operation of a gate's driver, over its flow (`Flow.drive`). */
export class Driver {
  #step;
  #handle;

  /** @internal made by `Flow.drive` */
  constructor(step, handle, first) {
    this.#step = step;
    this.#handle = handle;
    /** The operation's first batch of effects (JSON texts). */
    this.first = first;
  }

  /**
   * The next batch of effects (JSON texts, in order), given the outcomes
   * (JSON texts) of the effects of the last batch carried out: one crossing.
   */
  step(outcomes) {
    const given = outcomes.map(String);
    return this.#step((h) => h.step(given));
  }

  /** Frees the driver in the component. */
  dispose() {
    try {
      this.#handle[Symbol.dispose]?.();
    } catch {
      // An instance that cannot drop a handle is discarded on its next fault.
    }
  }
}
