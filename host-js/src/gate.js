// The approval gate: a shell over the component's approval flow (flow.js).
//
// The flow decides and formats everything: the decision, what a person's
// answer allows, the result and the text for the model, the events, the
// checkpoint and every audit line. This module keeps only what a host must:
// ids, the clock, waiting (promises, timers), the checkpoint store (claimed
// before anything runs, exactly once), the audit sinks (one writer: each step
// is sealed after the last line and appended before the next step seals),
// events (an EventTarget) and running the tool.
//
// A confirmed call crosses into the component three times: `begin` (decide;
// ask), `settle` (the answer, taken when it comes, so an invalid edit is
// refused to whoever answered while the call keeps waiting) and `finish`
// (the outcome). `check` and `settle` split the same steps for callers that
// keep the pending state themselves; `run` is built on them.

import { GateError, RejectedError } from './errors.js';
import { MemoryStore, idPrefix } from './stores.js';
import { StepError } from './flow.js';

export { GateError } from './errors.js';
export { MemoryStore, WebStorageStore, MemorySink, CallbackSink } from './stores.js';

/** The default time a person has to answer (seed 004: 30 s). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The shortest key, in bytes (the component refuses shorter ones). */
export const MIN_KEY_LENGTH = 16;

/** The longest delay one `setTimeout` takes (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How far before an approval's request its settling record is looked for
 * (clocks of machines sharing a log may disagree this much).
 */
const CLOCK_SLACK_MS = 10 * 60 * 1000;

/**
 * Calls `onTimeout` at `deadline` (ms since the epoch), however far away:
 * longer waits are chained in steps a timer can hold, so they never fire at
 * once. Returns a cancel function.
 */
function timerUntil(deadline, onTimeout) {
  let handle;
  let cancelled = false;
  const step = () => {
    if (cancelled) return;
    const left = deadline - Date.now();
    if (left <= 0) onTimeout();
    else handle = setTimeout(step, Math.min(left, MAX_TIMER_MS));
  };
  step();
  return () => {
    cancelled = true;
    clearTimeout(handle);
  };
}

/**
 * `text` with each lone surrogate (which JSON text cannot carry and the
 * component would refuse) written out as `\udXXX`: escaped, never dropped.
 */
function wellFormed(text) {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** JSON text for the component, every string in it well-formed. */
function json(value) {
  return JSON.stringify(value, (_, v) => (typeof v === 'string' ? wellFormed(v) : v));
}

/** Any JSON value (or text) as text: strings as they are, the rest as JSON. */
function textOf(value) {
  if (typeof value === 'string') return value;
  try {
    const text = JSON.stringify(value ?? null);
    if (typeof text === 'string') return text;
  } catch {
    // Cycles and BigInt: the text of the value, which the policy will refuse.
  }
  return String(value);
}

const messageOf = (e) => (e instanceof Error ? e.message : String(e));

/** A decision of the component's JSON (snake_case) as the package's `Decision`. */
function decisionOf(d) {
  return {
    action: d.action,
    risk: d.risk,
    source: d.source,
    llmRisk: d.llm_risk ?? null,
    findings: d.findings.map((f) => ({ code: f.code, message: f.message })),
    summary: d.summary,
  };
}

/** A pending approval of the component's JSON as the request listeners and dialogs get. */
function requestOf(p) {
  return {
    id: p.id,
    sessionId: p.session_id ?? null,
    userId: p.user_id ?? null,
    tool: p.tool,
    description: p.description ?? '',
    args: p.args,
    callId: p.call_id ?? null,
    context: p.context ?? null,
    configHash: p.config_hash ?? '',
    gate: p.gate ?? '',
    proposed: p.proposed ?? [],
    decision: decisionOf(p.decision),
    requestedAt: p.requested_at,
    deadline: p.deadline,
  };
}

/**
 * What the gate tells the caller, as the flow wrote it. `forModel()` is the
 * tool-result message body for the model (the same bytes in every host).
 */
export class ToolResult {
  #forModel;
  /** @param {object} r the component's result */
  constructor(r) {
    this.status = r.status;
    this.output = r.output ?? null;
    this.error = r.error ?? null;
    this.reason = r.reason ?? null;
    this.message = r.message ?? null;
    this.instruction = r.instruction ?? null;
    this.decision = decisionOf(r.decision);
    this.executedArgs = r.executed_args ?? null;
    this.approvalId = r.approval_id ?? null;
    this.auditError = r.audit_error ?? null;
    this.#forModel = r.for_model;
  }

  /** @returns {string} */
  forModel() {
    return this.#forModel;
  }
}

/** The event types, by the flow's event `type`. */
const EVENT_TYPES = new Map([
  ['requested', 'approval-requested'],
  ['responded', 'approval-responded'],
  ['processed', 'approval-processed'],
  ['grant_refused', 'grant-refused'],
  ['expiring', 'approval-expiring'],
]);

/** The prefix under which a store keeps grants (approval ids never take it). */
export const GRANT_PREFIX = 'grant-';

/**
 * The prefix of a revoked grant's tombstone; its text is the time (ms since
 * the Unix epoch) until which it must stay, the grant's expiry, or `never`.
 * A sealed grant put back in the store after its revocation (a restored
 * backup, a copied file: its MAC is still good) never applies again.
 */
export const REVOKED_PREFIX = 'revoked-';

/**
 * A field of a sealed grant (`grant.id`, `grant.scope`), read without its MAC
 * (which covers it: a changed one is refused as forged anyway); null for a
 * text that is not a sealed grant (the flow refuses it).
 */
function sealedField(sealed, field) {
  try {
    const value = JSON.parse(sealed)?.grant?.[field];
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** An event of the flow as the `detail` of the gate's event. */
function detailOf(event) {
  if (event.type === 'requested') return requestOf(event.request);
  if (event.type === 'responded') return { id: event.id, answer: event.answer, by: event.by ?? null };
  if (event.type === 'expiring') return { id: event.id, deadline: event.deadline };
  if (event.type === 'grant_refused') return { id: event.id ?? null, code: event.code, reason: event.reason };
  return { id: event.id ?? null, tool: event.tool, status: event.status };
}

/** The call as the flow reads it, with the sealed grants in force. */
function callText(call, grants = []) {
  if (call === null || typeof call !== 'object') throw new TypeError('a call is an object with `tool` and `args`');
  const c = { tool: String(call.tool ?? ''), args: call.args === undefined ? '{}' : textOf(call.args) };
  if (call.callId !== undefined && call.callId !== null) c.call_id = String(call.callId);
  if (call.description !== undefined && call.description !== null) c.description = String(call.description);
  if (call.sessionId !== undefined && call.sessionId !== null) c.session_id = String(call.sessionId);
  if (call.userId !== undefined && call.userId !== null) c.user_id = String(call.userId);
  if (call.context !== undefined && call.context !== null) c.context = textOf(call.context);
  if (grants.length > 0) c.grants = grants;
  return json(c);
}

/** A person's answer as the flow reads it (the flow says what is valid). */
function answerText(response) {
  if (response === null || typeof response !== 'object') {
    throw new GateError('invalid-edit', "a response is an object with `answer`: 'approve', 'reject' or 'edit'");
  }
  const a = { answer: response.answer };
  if (response.args !== undefined && response.args !== null) a.args = textOf(response.args);
  for (const key of ['message', 'instruction', 'by']) {
    if (response[key] !== undefined && response[key] !== null) a[key] = String(response[key]);
  }
  const remember = response.remember;
  if (remember !== undefined && remember !== null) {
    // `remember: 'session'` is short for `{scope: 'session'}`.
    const r = typeof remember === 'string' ? { scope: remember } : remember;
    a.remember = { scope: r.scope };
    if (r.rules !== undefined && r.rules !== null) a.remember.rules = r.rules;
    if (r.expiresAt !== undefined && r.expiresAt !== null) a.remember.expires_at = r.expiresAt;
  }
  return json(a);
}

/**
 * The deadline a checkpoint the flow has just accepted carries (read for the
 * claim's tombstone only; the flow checked it and the signature).
 */
function deadlineIn(checkpoint) {
  try {
    const d = JSON.parse(checkpoint)?.pending?.deadline;
    if (Number.isSafeInteger(d)) return d;
  } catch {
    // Kept until swept by hand: a longer tombstone is the safe side.
  }
  return Number.MAX_SAFE_INTEGER;
}

/**
 * The approval gate. Dispatches `approval-requested` (detail: the request),
 * `approval-responded` (detail: `{id, answer, by}`) and `approval-processed`
 * (detail: `{id, tool, status}`), each from the flow's events.
 */
export class Gate extends EventTarget {
  #flow;
  #engine;
  #auditRequired;
  #store;
  #sinks;
  #approve;
  #warnBeforeMs;
  #chain = null;
  #chainReady;
  /** Why the chain's last line could not be read: nothing is appended after an unknown line. */
  #chainError = null;
  /** Steps that seal audit lines take turns: the chain never forks. */
  #writer = Promise.resolve();
  #waiting = new Map();
  #finished = new Set();
  #nextId = 0;
  #prefix = idPrefix();
  /** Grants given "for this session", sealed, by id: in memory only. */
  #sessionGrants = new Map();
  /**
   * The ids of the grants this gate revoked (sealed ids and the keys they were
   * held under): never applied again, whatever a store holds.
   */
  #revoked = new Set();
  /** Whether the gate signs with a key: one without trusts no stored grant. */
  #keyed = false;

  /**
   * @param {import('./index.js').Policy} policy
   * @param {object} [options]
   * @param {string | object} [options.config] the policy configuration
   * @param {number} [options.timeoutMs] how long a person has to answer
   * @param {Record<string, number> | Map<string, number>} [options.toolTimeouts] per tool, in ms
   * @param {boolean} [options.shadow] never block; run everything; record what would have been decided
   * @param {string | Uint8Array} [options.key] signs checkpoints, refuses unsigned or forged ones
   * @param {boolean} [options.unsigned] a store without a key, said explicitly
   * @param {string} [options.identity] the gate's identity, bound into its checkpoints
   * @param {boolean} [options.auditRequired] fail closed: no write-ahead record, no run
   * @param {string | Uint8Array} [options.auditKey] keys the audit chain (HMAC); by default the checkpoint key
   * @param {object} [options.store] where pending approvals are checkpointed (MemoryStore by default)
   * @param {object[]} [options.audit] audit sinks; the first one's last line continues the chain
   * @param {(request: object) => Promise<object> | object} [options.approve] answers every request
   * @param {number} [options.warnBeforeMs] dispatch `approval-expiring` this long before an unanswered approval's deadline
   */
  constructor(policy, options = {}) {
    super();
    const key = options.key ?? null;
    // A store others can write (anything but the default in-memory one)
    // needs a key, or `unsigned` said explicitly.
    if (key === null && options.store !== undefined && options.unsigned !== true) {
      throw new GateError('key', 'a gate with a checkpoint store needs a key (at least 16 bytes), or `unsigned: true` said explicitly');
    }
    const config = options.config ?? '{}';
    // The configuration is refused (RejectedError) before the keys are.
    this.#engine = policy.engine(config);
    this.#sinks = [...(options.audit ?? [])];
    // A Map or a null-prototype object: a tool's name never reaches a prototype.
    const toolTimeouts = Object.create(null);
    const entries = options.toolTimeouts instanceof Map ? options.toolTimeouts : Object.entries(options.toolTimeouts ?? {});
    for (const [tool, ms] of entries) toolTimeouts[tool] = ms;
    const settings = {
      identity: options.identity ?? `tg-${this.#prefix}`,
      // Unset: the configuration's approval_timeout_ms (seed 004's
      // approvalTimeout), else DEFAULT_TIMEOUT_MS, decided in the component.
      timeout_ms: options.timeoutMs ?? null,
      tool_timeouts: toolTimeouts,
      shadow: options.shadow === true,
      audit: this.#sinks.length > 0,
      audit_required: options.auditRequired === true,
    };
    try {
      // The checkpoint key keys the audit chain too when no audit key is
      // given: an unkeyed chain can be recomputed by anyone who erases a record.
      this.#flow = policy.flow(config, json(settings), { checkpointKey: key ?? undefined, auditKey: options.auditKey ?? key ?? undefined });
    } catch (e) {
      this.#engine.dispose();
      if (!(e instanceof RejectedError)) throw e;
      if (e.message.startsWith('invalid gate settings')) throw new TypeError(e.message, { cause: e });
      throw new GateError('key', e.message, { cause: e });
    }
    this.#auditRequired = settings.audit_required;
    this.#keyed = key !== null;
    this.#store = options.store ?? new MemoryStore();
    this.#approve = options.approve ?? null;
    this.#warnBeforeMs = options.warnBeforeMs ?? null;
    this.#chainReady = this.#locked(async () => {
      if (this.#sinks.length === 0) return;
      this.#chain = (await this.#sinks[0].last?.()) ?? null;
      const gap = (await this.#sinks[0].gap?.()) ?? null;
      if (gap !== null) {
        // Recorded first: the torn tail was set aside by the sink.
        const now = Date.now();
        const line = (previous) => ({ audit: this.#flow.gap(wellFormed(gap), now, previous) });
        const { error } = await this.#commit({ step: line(this.#chain), used: this.#chain, redo: line });
        if (error !== null) throw new Error(error);
      }
    });
    // A sink that cannot be read fails each record (reported as `auditError`),
    // never the process through an unhandled rejection.
    this.#chainReady.catch((e) => {
      this.#chainError = messageOf(e);
    });
  }

  /** The policy engine of the gate's configuration. */
  get engine() {
    return this.#engine;
  }

  /** Runs `f` when no other step is sealing or appending. */
  #locked(f) {
    const turn = this.#writer.then(f);
    this.#writer = turn.catch(() => {});
    return turn;
  }

  #emit(events) {
    for (const event of events ?? []) {
      const type = EVENT_TYPES.get(event.type);
      if (type !== undefined) this.dispatchEvent(new CustomEvent(type, { detail: detailOf(event) }));
    }
  }

  /**
   * Appends a step's audit line. `used` is the `previous` it was sealed
   * after; should another line have landed since (another gate on the same
   * log), `redo(previous)` takes the step again after it. Resolves with the
   * step appended and an error message (null when every sink took it).
   */
  async #commit({ step, used, redo }, before = null) {
    if (this.#sinks.length === 0 || step.audit === null || step.audit === undefined) {
      await before?.(false);
      return { step, error: null, primary: true };
    }
    if (this.#chainError !== null) return { step, error: this.#chainError, primary: false };
    const [first, ...others] = this.#sinks;
    // What `before` refused (a claim taken already): thrown, never reported
    // as an audit failure.
    let refused = null;
    const sealed = (previous) => {
      if ((previous ?? null) !== used) {
        step = redo(previous ?? null);
        used = previous ?? null;
      }
      if (typeof step.audit !== 'string') throw new Error(step.audit_error ?? 'no audit line was sealed');
      return step.audit;
    };
    // `before` (a claim) runs in the sink's writer turn, just before the
    // line is sealed and appended: claim and record under one lock.
    const guarded = async (previous, locked) => {
      try {
        await before?.(locked);
      } catch (e) {
        refused = e;
        throw e;
      }
      return sealed(previous);
    };
    let line;
    try {
      if (typeof first.appendSealed === 'function') {
        // The first sink seals from its own last line: one chain, whoever else writes it.
        line = await first.appendSealed(before === null ? sealed : (previous) => guarded(previous, true));
      } else {
        line = await guarded(this.#chain, false);
        await first.append(line);
      }
    } catch (e) {
      if (refused !== null) throw refused;
      return { step, error: messageOf(e), primary: false };
    }
    this.#chain = line;
    // Secondary sinks copy the primary: one failing loses its copy, never the chain.
    let error = null;
    for (const sink of others) {
      try {
        await sink.append(line);
      } catch (e) {
        error ??= messageOf(e);
      }
    }
    return { step, error, primary: true };
  }

  /** Takes a step after the chain's last line; `take(previous)` crosses once. */
  #take(take) {
    const used = this.#chain;
    return { step: JSON.parse(take(used)), used, redo: (previous) => JSON.parse(take(previous)) };
  }

  /** The result of a committed `done` step, its events reported. */
  #result({ step, error }) {
    const result = new ToolResult(step.result);
    if (error !== null) result.auditError = error;
    this.#emit(step.events);
    return result;
  }

  /**
   * Carries out a `run` step: the write-ahead line, the tool, the outcome.
   * `claim` (in the writer's turn, before the line is appended) claims the
   * approval the step answers; when it throws, nothing is written or run.
   */
  async #run(taken, execute, claim) {
    const ahead = await this.#locked(async () => {
      await claim?.();
      return this.#commit(taken);
    });
    return this.#carry(ahead, execute);
  }

  /** Runs the tool of a `run` step whose write-ahead line is committed, and finishes. */
  async #carry(ahead, execute) {
    const run = ahead.step;
    this.#emit(run.events);
    const ticket = run.ticket;
    const finish = async (ran) => {
      const now = Date.now();
      const text = json(ran);
      // Sealed in the writer's turn: the line follows the last one.
      const done = await this.#locked(() => this.#commit(this.#take((previous) => this.#flow.finish(ticket, text, now, previous))));
      return this.#result(done);
    };
    if (!ahead.primary && this.#auditRequired) {
      // The write-ahead line was not written, and this gate runs nothing it
      // cannot record: the flow refuses the call (and says why).
      return finish({ unrecorded: wellFormed(ahead.error ?? 'unknown'), elapsed_ms: 0 });
    }
    const started = Date.now();
    let ran;
    try {
      const value = await execute(run.args);
      ran = { output: wellFormed(textOf(value)) };
    } catch (e) {
      ran = { error: wellFormed(messageOf(e)) };
    }
    ran.elapsed_ms = Math.max(0, Date.now() - started);
    const result = await finish(ran);
    result.auditError ??= ahead.error ?? run.audit_error ?? null;
    return result;
  }

  /**
   * A new approval id: this gate's prefix, a counter and 64 bits from the
   * runtime's CSPRNG, so knowing one id tells nobody the next.
   */
  #newId() {
    this.#nextId += 1;
    return `${this.#prefix}-${this.#nextId}-${idPrefix()}`;
  }

  /**
   * Step 1 for `call`, taken in the writer's turn after the chain's last
   * line; its audit line is appended in the same turn (a `run` step's only
   * when `runs`). Resolves with the step taken and, when appended, committed.
   */
  async #begin(call, runs) {
    callText(call);
    // Read at each call, so gates sharing a store see each other's grants at once.
    const text = callText(call, (await this.#sealedGrants()).map(([, sealed]) => sealed));
    await this.#chainReady.catch(() => {});
    const id = this.#newId();
    const now = Date.now();
    return this.#locked(async () => {
      let taken;
      try {
        taken = this.#take((previous) => this.#flow.begin(text, id, now, previous));
      } catch (e) {
        if (e instanceof StepError) throw new TypeError(`the call was refused: ${e.message}`, { cause: e });
        throw e;
      }
      const kind = taken.step.step;
      const committed = kind === 'done' || (kind === 'run' && runs) ? await this.#commit(taken) : null;
      return { taken, committed };
    });
  }

  /** Stores an `ask` step's checkpoint; rejects (and nothing runs) when it cannot. */
  async #park(step) {
    const id = step.pending.id;
    try {
      await this.#store.put(id, step.checkpoint);
    } catch (e) {
      if (e instanceof GateError) throw e;
      throw new GateError('checkpoint', `checkpoint \`${id}\` could not be stored: ${messageOf(e)}`, { cause: e });
    }
  }

  /**
   * Decides `call` now and leaves any answer for later, for callers that keep
   * the pending state themselves (an agent SDK's approval parts or run-state
   * interruptions). `deny`: the refusal is recorded and `result` is what the
   * model gets. `confirm`: the checkpoint is stored, `approval-requested`
   * dispatched, and `pending` is the request: answer it with `settle`.
   * `allow` (or shadow mode): `proceed(execute)` runs it.
   *
   * @param {object} call
   * @returns {Promise<{decision: object, pending: object | null, result: ToolResult | null,
   *          proceed: ((execute: (args: string) => unknown) => Promise<ToolResult>) | null}>}
   */
  async check(call) {
    const { taken, committed } = await this.#begin(call, false);
    const step = taken.step;
    if (step.step === 'ask') {
      await this.#park(step);
      this.#emit(step.events);
      return { decision: decisionOf(step.pending.decision), pending: requestOf(step.pending), result: null, proceed: null };
    }
    if (step.step === 'done') {
      const result = this.#result(committed);
      return { decision: result.decision, pending: null, result, proceed: null };
    }
    let proceeded = false;
    const proceed = (execute) => {
      if (proceeded) return Promise.reject(new GateError('already-answered', 'this check has already been run'));
      proceeded = true;
      return this.#run(taken, execute);
    };
    return { decision: decisionOf(step.decision), pending: null, result: null, proceed };
  }

  /**
   * Answers an approval `check` left pending (in this process or any other
   * sharing the store): `{answer: 'approve' | 'reject' | 'edit', args?,
   * message?, instruction?, by?}`, then runs `execute` if the flow allows.
   * Throws `GateError`: `invalid-edit` (the approval stays pending),
   * `unknown`, `already-answered`, `checkpoint` (forged or unreadable).
   *
   * @param {string} id
   * @param {object} response
   * @param {(args: string) => unknown} execute
   * @returns {Promise<ToolResult>}
   */
  async settle(id, response, execute) {
    if (this.#waiting.has(id)) {
      throw new GateError('already-answered', `approval \`${id}\` is being waited for: answer it with \`respond\``);
    }
    const answer = answerText(response);
    const checkpoint = await this.#store.get(id);
    if (checkpoint === null || checkpoint === undefined) throw new GateError('unknown', `no pending approval \`${id}\``);
    await this.#chainReady.catch(() => {});
    const now = Date.now();
    // Settled in the writer's turn, before the claim: an invalid answer
    // claims nothing and the approval stays pending.
    return this.#conclude(id, deadlineIn(checkpoint), () => this.#settled(id, checkpoint, answer, now), execute);
  }

  /** Step 2: the answer to the approval `id` in `checkpoint`, or a `GateError`. */
  #settled(id, checkpoint, answer, now) {
    let taken;
    try {
      taken = this.#take((previous) => this.#flow.settle(checkpoint, answer, now, previous));
    } catch (e) {
      if (!(e instanceof StepError)) throw e;
      if (e.kind === 'invalid') throw new GateError('invalid-edit', e.message, { cause: e });
      throw new GateError('checkpoint', `checkpoint \`${id}\`: ${e.message}`, { cause: e.cause ?? e });
    }
    const named = taken.step.step === 'run' ? taken.step.approval_id : taken.step.result?.approval_id;
    if (named !== id) {
      throw new GateError('checkpoint', `checkpoint \`${id}\`: it is stored as \`${id}\` but names \`${named}\``);
    }
    return taken;
  }

  /**
   * Carries out a settled step: claims the approval (exactly once, across
   * gates, tabs and processes) and records it as one step, then runs what the
   * flow says. With an audit log the claim is made in the log's writer turn,
   * just before the record is appended under the same lock, and the
   * checkpoint is removed only once the record is written: no claimed
   * approval is left without its record, and a claim a dead holder left
   * (claim, no record) is found under the lock and taken back. A record that
   * cannot be written (a full disk) takes the claim back when the gate
   * requires its audit: `GateError('audit')`, the approval still pending,
   * unused. Without a log the claim alone settles. A claim or removal that
   * fails runs nothing. `taken` is a step already taken, or a function
   * taking it (then in the writer's turn, so its line follows the last one
   * without a second take).
   */
  async #conclude(id, deadline, taken, execute) {
    const recorded = this.#sinks.length > 0;
    const committed = await this.#locked(async () => {
      const step = typeof taken === 'function' ? taken() : taken;
      const grant = step.step.step === 'run' ? step.step.grant ?? null : null;
      let claimed = false;
      const claim = async (locked) => {
        // Claimed already: under the lock, a claim with no record of the
        // approval is a dead holder's, and this answer takes it over.
        if (!(await this.#store.claim(id, deadline)) && !(locked && (await this.#sinks[0].recorded?.(id, 0)) === false)) {
          throw new GateError('already-answered', `approval \`${id}\` was already answered`);
        }
        claimed = true;
        if (!recorded) await this.#store.remove(id);
        // The grant is kept before its record is written: one that cannot be
        // kept rejects, and nothing runs.
        if (grant !== null) await this.#keep(grant.grant, grant.sealed);
      };
      let done = await this.#commit(step, claim);
      if (!claimed) {
        // The chain could not be read, so nothing was sealed or claimed.
        if (this.#auditRequired) {
          throw new GateError('audit', `approval \`${id}\` was not settled (it stays pending): its record could not be written: ${done.error}`);
        }
        await claim(false);
      }
      if (recorded) {
        if (done.primary || !this.#auditRequired) {
          // Recorded (or the gate runs unrecorded calls): the checkpoint goes.
          await this.#store.remove(id).catch(() => {});
        } else {
          // Not recorded, and the gate runs nothing it cannot record: the
          // claim is taken back and the approval stays pending, unused.
          if (grant !== null) await this.#forget(grant.grant);
          const released = await this.#releaseUnrecorded(id, 0);
          const state = released === false ? 'it stays pending' : 'its claim could not be taken back';
          throw new GateError('audit', `approval \`${id}\` was not settled (${state}): its record could not be written: ${done.error}`);
        }
      }
      return done;
    });
    return committed.step.step === 'run' ? this.#carry(committed, execute) : this.#result(committed);
  }

  /**
   * In the first sink's writer turn: whether the claim on `id` has its record
   * (true), or had none and was taken back, the approval pending again
   * (false); null when there is no claim or nothing can say. Called inside
   * `#locked`.
   */
  async #releaseUnrecorded(id, since) {
    const first = this.#sinks[0];
    if (first === undefined || typeof first.appendSealed !== 'function' || typeof first.recorded !== 'function' || typeof this.#store.release !== 'function') {
      return null;
    }
    const marker = {};
    let found = null;
    try {
      await first.appendSealed(async () => {
        if ((await this.#store.claimed?.(id)) === true) {
          const recorded = await first.recorded(id, since);
          if (recorded === true) found = true;
          else if (recorded === false && (await this.#store.release(id)) === true) found = false;
        }
        // Nothing is written.
        throw marker;
      });
    } catch (e) {
      if (e !== marker) return null;
    }
    return found;
  }

  /**
   * Recovers the claims whose holder died between its claim and its record (a
   * `kill -9`, a crash): each checkpoint still in the store with a claim is
   * looked up in the audit log under its writer lock. A recorded one was
   * settled (its write-ahead record says it may have run): its checkpoint
   * goes. An unrecorded one never ran: its claim is taken back and the
   * approval is pending again, listed and answerable, and expired with a
   * record at its deadline. Resolves with how many were recovered.
   *
   * @returns {Promise<number>}
   */
  async recover() {
    if (this.#sinks.length === 0) return 0;
    await this.#chainReady.catch(() => {});
    let recovered = 0;
    for (const [id, text] of await this.#store.list()) {
      if (id.startsWith(GRANT_PREFIX) || id.startsWith(REVOKED_PREFIX) || this.#waiting.has(id)) continue;
      if ((await this.#store.claimed?.(id)) !== true) continue;
      let since = 0;
      try {
        since = Math.max(0, this.#open(id, text).requested_at - CLOCK_SLACK_MS);
      } catch {
        // An unreadable checkpoint: the whole log is looked through.
      }
      const found = await this.#locked(() => this.#releaseUnrecorded(id, since));
      if (found === true) await this.#store.remove(id);
      if (found !== null) recovered += 1;
    }
    return recovered;
  }

  /** Keeps a grant just made: a session grant in memory, the others in the store. */
  async #keep(grant, sealed) {
    if (grant.scope === 'session') {
      this.#sessionGrants.set(grant.id, sealed);
      return;
    }
    try {
      await this.#store.put(GRANT_PREFIX + grant.id, sealed);
    } catch (e) {
      throw new GateError('checkpoint', `grant \`${grant.id}\` could not be stored: ${messageOf(e)}`, { cause: e });
    }
  }

  async #forget(grant) {
    this.#sessionGrants.delete(grant.id);
    if (grant.scope !== 'session') await this.#store.remove(GRANT_PREFIX + grant.id).catch(() => {});
  }

  /**
   * The sealed grants of the session and the store, as `[id, sealed]`. Left
   * out: a grant revoked, by its store key or by the id sealed inside it (a
   * revoked grant copied back under another name stays revoked); from the
   * store, a grant that says it is a session grant (those live in memory
   * only), and every grant when the gate has no key (anyone who can write
   * the store could have written it).
   */
  async #sealedGrants() {
    const all = this.#keyed ? await this.#store.list() : [];
    const revoked = new Set(this.#revoked);
    for (const [key] of all) if (key.startsWith(REVOKED_PREFIX)) revoked.add(key.slice(REVOKED_PREFIX.length));
    const stored = all
      .filter(([key, text]) => key.startsWith(GRANT_PREFIX) && sealedField(text, 'scope') !== 'session')
      .map(([key, text]) => [key.slice(GRANT_PREFIX.length), text]);
    return [...this.#sessionGrants.entries(), ...stored].filter(
      ([key, text]) => !revoked.has(key) && !revoked.has(sealedField(text, 'id') ?? key),
    );
  }

  /**
   * Every grant this gate holds (session) or its store keeps (project,
   * user), each opened by the component: `{ok: true, id, grant}`, or `{ok:
   * false, id, error}` (its finding code first) for a forged, unsigned or
   * expired one, which does not apply.
   */
  async grants() {
    const now = Date.now();
    return (await this.#sealedGrants()).map(([id, sealed]) => {
      try {
        return { ok: true, id, grant: JSON.parse(this.#flow.openGrant(sealed, now)) };
      } catch (e) {
        if (!(e instanceof StepError)) throw e;
        return { ok: false, id, error: e.message };
      }
    });
  }

  /**
   * Revokes grant `id` (session or stored): the revocation is audited and
   * the grant removed, so no later call is decided with it. Resolves with
   * whether there was such a grant.
   */
  async revoke(id) {
    const found = (await this.#sealedGrants()).find(([key]) => key === id);
    if (found === undefined) return false;
    const [, sealed] = found;
    await this.#chainReady.catch(() => {});
    await this.#locked(async () => {
      if (this.#sinks.length > 0) {
        const now = Date.now();
        const line = (previous) => ({ audit: this.#flow.revoke(sealed, now, previous) });
        const { error } = await this.#commit({ step: line(this.#chain), used: this.#chain, redo: line });
        if (error !== null) throw new GateError('audit', `the revocation could not be recorded: ${error}`);
      }
      // Revoked by the id sealed inside it and by the key it was held under.
      const sealedAs = sealedField(sealed, 'id') ?? id;
      this.#revoked.add(id);
      this.#revoked.add(sealedAs);
      if (this.#sessionGrants.has(id)) {
        this.#sessionGrants.delete(id);
        return;
      }
      // The tombstone first (until the grant would have expired; for good when
      // it never does or cannot be opened), then the grant.
      let until = 'never';
      try {
        const expires = JSON.parse(this.#flow.openGrant(sealed, Date.now())).expires_at;
        if (typeof expires === 'number') until = String(expires);
      } catch (e) {
        if (!(e instanceof StepError)) throw e;
      }
      await this.#store.put(REVOKED_PREFIX + sealedAs, until);
      if (sealedAs !== id) await this.#store.put(REVOKED_PREFIX + id, until);
      await this.#store.remove(GRANT_PREFIX + id);
    });
    return true;
  }

  /**
   * Decides `call` and runs `execute(args)` (the arguments the tool must
   * receive; resolve with the output, any JSON value, or throw) if and when
   * it may run. For `confirm` it waits for `respond` (or the `approve`
   * option) until the deadline. Rejects only when a pending approval cannot
   * be checkpointed or claimed (the call is then not run).
   *
   * @param {object} call
   * @param {(args: string) => unknown} execute
   * @returns {Promise<ToolResult>}
   */
  async run(call, execute) {
    const { taken, committed } = await this.#begin(call, true);
    const step = taken.step;
    if (step.step === 'run') return this.#carry(committed, execute);
    if (step.step === 'done') return this.#result(committed);
    await this.#park(step);
    return this.#wait(step.pending, step.checkpoint, step.events, execute);
  }

  /**
   * The pending approvals in the store (after a restart: those an earlier
   * process or page left, in either host), each opened and checked: `{ok: true,
   * request}` or `{ok: false, id, error}` for a forged or unreadable one.
   */
  async pending() {
    // A claim a dead holder left without its record is taken back first: its
    // approval is listed again, never silently lost.
    await this.recover();
    const out = [];
    for (const [id, text] of await this.#store.list()) {
      if (id.startsWith(GRANT_PREFIX) || id.startsWith(REVOKED_PREFIX)) continue;
      // Claimed: settled, and put back or left behind. No live dialog.
      if ((await this.#store.claimed?.(id)) === true) continue;
      try {
        out.push({ ok: true, request: requestOf(this.#open(id, text)) });
      } catch (error) {
        out.push({ ok: false, id, error });
      }
    }
    return out;
  }

  /** The pending approval in checkpoint `text` stored as `id`, or a `GateError`. */
  #open(id, text) {
    let pending;
    try {
      pending = JSON.parse(this.#flow.open(text));
    } catch (e) {
      if (!(e instanceof StepError)) throw e;
      throw new GateError('checkpoint', `checkpoint \`${id}\`: ${e.message}`, { cause: e.cause ?? e });
    }
    if (pending.id !== id) {
      throw new GateError('checkpoint', `checkpoint \`${id}\`: it is stored as \`${id}\` but names \`${pending.id}\``);
    }
    return pending;
  }

  /**
   * Resumes a pending approval from the store: dispatches
   * `approval-requested` again, waits until the original deadline, and
   * finishes the call as `run` would (decided again under this gate's
   * configuration). An expired one is closed without running.
   *
   * @param {string} id
   * @param {(args: string) => unknown} execute
   * @returns {Promise<ToolResult>}
   */
  async resume(id, execute) {
    if (this.#waiting.has(id)) throw new GateError('already-answered', `approval \`${id}\` is already being waited for`);
    const text = await this.#store.get(id);
    if (text === null || text === undefined) throw new GateError('unknown', `no pending approval \`${id}\``);
    const pending = this.#open(id, text);
    await this.#chainReady.catch(() => {});
    return this.#wait(pending, text, [{ type: 'requested', request: pending }], execute);
  }

  /**
   * Cleans the store: every pending approval past its deadline that no call
   * of this gate waits for is closed as `expired` (claimed, removed, audited;
   * never run); tombstones past their deadline, grants past their expiry and
   * the tombstones of revoked grants that have expired are removed. Checkpoints
   * that cannot be opened are left for a person to look at. Resolves with how
   * many approvals were closed.
   *
   * @returns {Promise<number>}
   */
  async sweep() {
    const now = Date.now();
    let closed = 0;
    await this.#chainReady.catch(() => {});
    // Claims dead holders left without their records are taken back first,
    // so those past their deadline expire below with a record.
    await this.recover();
    for (const [id, text] of await this.#store.list()) {
      if (id.startsWith(GRANT_PREFIX) || id.startsWith(REVOKED_PREFIX)) continue;
      let pending;
      try {
        pending = this.#open(id, text);
      } catch {
        continue;
      }
      if (pending.deadline > now || this.#waiting.has(id)) continue;
      try {
        await this.#conclude(id, pending.deadline, () => this.#settled(id, text, '{"answer":"none"}', now), null);
        closed += 1;
      } catch (e) {
        if (!(e instanceof GateError && e.code === 'already-answered')) throw e;
        // Claimed elsewhere: only the checkpoint was left behind.
        await this.#store.remove(id);
      }
    }
    await this.#store.sweep?.(now);
    // A stored grant past its expiry (its MAC good: checked first) is removed;
    // a forged or unreadable one is left for a person to see.
    for (const listed of await this.grants()) {
      if (!listed.ok && listed.error.startsWith('grant.expired') && !this.#sessionGrants.has(listed.id)) {
        await this.#store.remove(GRANT_PREFIX + listed.id);
      }
    }
    // A revoked grant's tombstone goes once the grant has expired: put back
    // after that, the component refuses it as expired anyway.
    for (const [id, until] of await this.#store.list()) {
      if (id.startsWith(REVOKED_PREFIX) && /^\d+$/.test(until) && Number(until) < now) await this.#store.remove(id);
    }
    return closed;
  }

  /**
   * Answers a pending approval this gate waits for: `{answer: 'approve' |
   * 'reject' | 'edit', args?, message?, instruction?, by?}`. The flow takes
   * the answer at once: an invalid one (an edit that is not one clean JSON
   * object) throws `GateError('invalid-edit')` and the call keeps waiting.
   * An unknown or already answered request throws `GateError`, and never
   * causes a second execution.
   */
  respond(id, response) {
    const slot = this.#slot(id);
    const answer = answerText(response);
    slot.take(this.#settled(id, slot.checkpoint, answer, Date.now()));
  }

  /** Cancels a pending approval: the call is not run and the model is told. */
  cancel(id) {
    const slot = this.#slot(id);
    const now = Date.now();
    slot.take(() => this.#settled(id, slot.checkpoint, '{"answer":"cancel"}', now));
  }

  #slot(id) {
    const slot = this.#waiting.get(id);
    if (slot === undefined || slot.taken) {
      if (this.#finished.has(id) || slot?.taken) throw new GateError('already-answered', `approval \`${id}\` was already answered`);
      throw new GateError('unknown', `no pending approval \`${id}\``);
    }
    return slot;
  }

  /** Waits for the answer to `pending` (or its deadline), then concludes it. */
  async #wait(pending, checkpoint, events, execute) {
    const { id } = pending;
    let stopTimer = () => {};
    let stopWarning = () => {};
    const answered = new Promise((resolve) => {
      const slot = {
        checkpoint,
        taken: false,
        take: (taken) => {
          slot.taken = true;
          resolve(taken);
        },
      };
      this.#waiting.set(id, slot);
      // At the deadline the wait ends without an answer; the flow says expired.
      stopTimer = timerUntil(pending.deadline, () => {
        if (slot.taken) return;
        const now = Date.now();
        slot.take(() => this.#settled(id, checkpoint, '{"answer":"none"}', now));
      });
      if (this.#warnBeforeMs !== null) {
        stopWarning = timerUntil(pending.deadline - this.#warnBeforeMs, () => {
          if (!slot.taken) this.#emit([{ type: 'expiring', id, deadline: pending.deadline }]);
        });
      }
    });
    this.#emit(events);
    if (this.#approve !== null) {
      const request = requestOf(pending);
      Promise.resolve()
        .then(() => this.#approve(request))
        .then((response) => this.respond(id, response))
        .catch(() => {
          // A late or refused answer changes nothing: the wait goes on or has ended.
        });
    }
    let taken;
    try {
      taken = await answered;
    } finally {
      stopTimer();
      stopWarning();
      this.#waiting.delete(id);
      this.#finished.add(id);
    }
    return this.#conclude(id, pending.deadline, taken, execute);
  }
}
