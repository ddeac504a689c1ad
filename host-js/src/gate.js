// The approval gate: an interpreter of the component's gate driver
// (docs/gate-steps.md).
//
// The component defines the choreography once for every host: when an
// approval is claimed, where its checkpoint and grants are kept and removed,
// which audit line is appended under which lock, what a sweep closes and what
// a claim a dead holder left means; the flow decides and formats everything
// else (the decision, the result and the text for the model, the events, the
// checkpoint and every audit line). Each operation is driven in batches of
// effects (`Driver.step`); this module carries them out on what only a host
// has: ids, the clock, waiting (promises, timers), the checkpoint store, the
// session's memory, the audit sinks (one writer per chain, in this process
// and, through `appendSealed`, across processes), events (an EventTarget)
// and running the tool.

import { GateError, RejectedError, checkpointErrorOf } from './errors.js';
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

/** Entries sorted by key, as the driver's `list` answers them. */
const byKey = ([a], [b]) => (a < b ? -1 : a > b ? 1 : 0);

/** A `fail` effect of the driver as the error the gate throws. */
function failure(f) {
  const message = String(f.message ?? '');
  switch (f.code) {
    case 'checkpoint': {
      const cause = checkpointErrorOf({ tag: f.kind, val: f.detail });
      return new GateError('checkpoint', `checkpoint \`${f.id}\`: ${cause.message}`, { cause });
    }
    // A store that could not keep a checkpoint or a grant.
    case 'store':
      return new GateError('checkpoint', message);
    case 'sink':
      return new GateError('audit', message);
    case 'policy':
      return new TypeError(`the call was refused: ${message}`);
    case 'invalid':
      return new TypeError(message);
    default:
      return new GateError(f.code, message);
  }
}

/**
 * One operation's effects, batch by batch: the driver's next batch is asked
 * for once the last one is carried out, or when an outcome differs from the
 * one the driver presumed (or carries an `error`): the rest of that batch is
 * then not carried out.
 */
class Batches {
  #driver;
  #queue = [];
  #outcomes = [];
  #back = null;

  constructor(driver) {
    this.#driver = driver;
    this.#queue = driver.first.map((text) => JSON.parse(text));
  }

  /** The next effect to carry out (crosses into the component when the batch is done). */
  next() {
    if (this.#back !== null) {
      const effect = this.#back;
      this.#back = null;
      return effect;
    }
    if (this.#queue.length === 0) {
      this.#queue = this.#driver.step(this.#outcomes).map((text) => JSON.parse(text));
      this.#outcomes = [];
    }
    return this.#queue.shift();
  }

  /** Hands back an effect `next` returned, to be returned again. */
  putBack(effect) {
    this.#back = effect;
  }

  /** The outcome of `effect`. */
  answer(effect, outcome) {
    this.#outcomes.push(json(outcome));
    const stop = (outcome.error !== undefined && outcome.error !== null) || ('presumed' in effect && json(outcome) !== json(effect.presumed));
    if (stop) this.#queue = [];
  }
}

/** The operations that take the driver's `joint` field. */
const JOINT_OPS = new Set(['settle', 'call', 'sweep', 'recover', 'pending']);

/**
 * The approval gate. Dispatches `approval-requested` (detail: the request),
 * `approval-responded` (detail: `{id, answer, by}`) and `approval-processed`
 * (detail: `{id, tool, status}`), each from the flow's events.
 */
export class Gate extends EventTarget {
  #flow;
  #engine;
  #store;
  #sinks;
  #approve;
  #warnBeforeMs;
  /** The chain's last line, as this gate wrote or read it. */
  #chain = null;
  #chainReady;
  /** Why the chain's last line could not be read: nothing is appended after an unknown line. */
  #chainError = null;
  /** Operations that seal audit lines take turns: the chain never forks. */
  #writer = Promise.resolve();
  /** Whether the first sink claims and records in one transaction with the store (once known). */
  #joint = null;
  #waiting = new Map();
  #finished = new Set();
  #nextId = 0;
  #prefix = idPrefix();
  /**
   * The session's memory, in the store's key layout: grants given "for this
   * session" (`grant-<id>`, sealed) and the ids of the grants this gate
   * revoked (`revoked-<id>`), never applied again whatever a store holds.
   */
  #session = new Map();

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
    this.#store = options.store ?? new MemoryStore();
    this.#approve = options.approve ?? null;
    this.#warnBeforeMs = options.warnBeforeMs ?? null;
    this.#chainReady = (async () => {
      if (this.#sinks.length === 0) return;
      this.#chain = (await this.#sinks[0].last?.()) ?? null;
      const gap = (await this.#sinks[0].gap?.()) ?? null;
      // Recorded first: the torn tail was set aside by the sink.
      if (gap !== null) await this.#drive({ op: 'gap', what: wellFormed(gap) });
    })();
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

  #emit(events) {
    for (const event of events ?? []) {
      const type = EVENT_TYPES.get(event.type);
      if (type !== undefined) this.dispatchEvent(new CustomEvent(type, { detail: detailOf(event) }));
    }
  }

  /** Waits for this process's writer turn; resolves with the function that ends it. */
  #turn() {
    let release;
    const ended = new Promise((resolve) => {
      release = resolve;
    });
    const before = this.#writer;
    this.#writer = before.then(() => ended);
    return before.then(() => release);
  }

  /**
   * Drives one operation of the component's gate driver to its end: its
   * `done` value, or the error its `fail` stands for. `ctx.execute` runs the
   * tool; `ctx.call` marks a `call` operation (its wait opens when the
   * request is reported).
   */
  async #drive(op, ctx = {}) {
    if (JOINT_OPS.has(op.op)) op = { ...op, joint: await this.#jointly() };
    const driver = this.#flow.drive(json(op));
    try {
      const batches = new Batches(driver);
      for (;;) {
        const effect = batches.next();
        if (effect.effect === 'done') return effect.value;
        if (effect.effect === 'fail') throw failure(effect);
        if (effect.effect === 'lock') await this.#locked(batches, effect, ctx);
        else batches.answer(effect, await this.#perform(effect, ctx));
      }
    } finally {
      driver.dispose();
    }
  }

  /**
   * Whether the first audit sink keeps the store's claims in its own
   * database (`appendClaimed`, and both name one database): claim,
   * checkpoint removal and record are then one transaction, the driver's
   * `joint` mode. Known once both have answered; a database not reachable
   * yet is asked again next time.
   */
  async #jointly() {
    if (this.#joint !== null) return this.#joint;
    const first = this.#sinks[0];
    if (typeof first?.appendClaimed !== 'function' || typeof first.database !== 'function' || typeof this.#store.database !== 'function') {
      this.#joint = false;
      return false;
    }
    try {
      const [store, sink] = await Promise.all([this.#store.database(), first.database()]);
      this.#joint = typeof store === 'string' && store === sink;
    } catch {
      return false;
    }
    return this.#joint;
  }

  /**
   * Carries out the effects inside the audit chain's writer lock up to the
   * `append` or `unlock` that leaves it, and returns that effect (or an end
   * the driver reached without leaving it).
   */
  async #inside(batches, ctx) {
    for (;;) {
      const effect = batches.next();
      if (['append', 'unlock', 'done', 'fail'].includes(effect.effect)) return effect;
      batches.answer(effect, await this.#perform(effect, ctx));
    }
  }

  /** Answers the effect that left the lock (an end goes back to the loop). */
  #leave(batches, end, outcome) {
    if (end.effect === 'done' || end.effect === 'fail') batches.putBack(end);
    else batches.answer(end, end.effect === 'append' ? outcome : {});
  }

  /**
   * `lock`: this process's writer turn, and the first sink's own lock when it
   * seals under one (`appendSealed`: the effects up to the `append` run inside
   * its callback, which returns the line). The line is the chain's last once
   * written; secondary sinks copy it (one failing loses its copy, never the
   * chain).
   */
  async #locked(batches, lock, ctx) {
    const release = await this.#turn();
    try {
      const [first, ...others] = this.#sinks;
      if (first === undefined || this.#chainError !== null) {
        const why = this.#chainError;
        batches.answer(lock, why === null ? { previous: null, locked: false } : { previous: this.#chain, refused: why });
        this.#leave(batches, await this.#inside(batches, ctx), { error: why ?? 'no audit sink' });
        return;
      }
      const left = {};
      let end = null;
      let entered = false;
      let line;
      const enter = async (previous, locked) => {
        entered = true;
        batches.answer(lock, { previous: previous ?? null, locked });
        end = await this.#inside(batches, ctx);
        if (end.effect !== 'append') throw left;
        return end.line;
      };
      try {
        if (lock.claim !== undefined && typeof first.appendClaimed === 'function') {
          // `joint`: the sink claims in its transaction; taken, nothing is written.
          const claimed = await first.appendClaimed(lock.claim.key, lock.claim.deadline, (previous) => enter(previous, true));
          if (claimed.taken === true) {
            batches.answer(lock, { taken: true });
            return;
          }
          line = claimed.line;
        } else if (typeof first.appendSealed === 'function') {
          line = await first.appendSealed((previous) => enter(previous, true));
        } else {
          line = await enter(this.#chain, false);
          await first.append(line);
        }
      } catch (e) {
        if (e === left) {
          this.#leave(batches, end, {});
        } else if (!entered) {
          // The sink could not take its lock: nothing is claimed under it.
          batches.answer(lock, { previous: this.#chain, refused: messageOf(e) });
          this.#leave(batches, await this.#inside(batches, ctx), { error: messageOf(e) });
        } else if (end?.effect === 'append') {
          batches.answer(end, { error: messageOf(e) });
        } else {
          throw e;
        }
        return;
      }
      this.#chain = line;
      let secondary = null;
      for (const sink of others) {
        try {
          await sink.append(line);
        } catch (e) {
          secondary ??= messageOf(e);
        }
      }
      batches.answer(end, secondary === null ? {} : { secondary });
    } finally {
      release();
    }
  }

  /** One effect on the store, the session's memory, the clock, the sinks, the listeners or the tool. */
  async #perform(e, ctx) {
    const session = e.store === 'session';
    try {
      switch (e.effect) {
        case 'now': {
          // The store's clock when it has one: replicas sharing a database judge by one clock.
          if (e.clock === 'store' && typeof this.#store.now === 'function') return { now: Number(await this.#store.now()) };
          // The first host reading after a wait is the time its answer was
          // taken (the settling's now), not the time the waiting call woke.
          const at = ctx.at ?? null;
          ctx.at = null;
          return { now: at ?? Date.now() };
        }
        case 'list':
          return { entries: [...(session ? this.#session.entries() : await this.#store.list())].sort(byKey) };
        case 'get':
          return { value: (session ? this.#session.get(e.key) : await this.#store.get(e.key)) ?? null };
        case 'put':
          if (session) {
            this.#session.set(e.key, e.value);
          } else {
            await this.#store.put(e.key, e.value);
            // A `call`'s checkpoint: the one its wait answers.
            ctx.checkpoints?.set(e.key, e.value);
          }
          return {};
        case 'remove':
          if (session) this.#session.delete(e.key);
          else await this.#store.remove(e.key);
          return {};
        case 'claim':
          return { claimed: (await this.#store.claim(e.key, e.deadline)) === true };
        case 'claimed':
          return { claimed: (await this.#store.claimed?.(e.key)) === true };
        case 'release':
          return { released: (await this.#store.release?.(e.key)) === true };
        case 'sweep-claims':
          await this.#store.sweep?.(e.now);
          return {};
        case 'recorded': {
          const recorded = await this.#sinks[0]?.recorded?.(e.id, e.since);
          return { recorded: typeof recorded === 'boolean' ? recorded : null };
        }
        case 'notify':
          this.#notify(e.events, ctx);
          return {};
        case 'run':
          return await this.#execute(e.args, ctx.execute);
        case 'wait': {
          const { answer, at } = await (ctx.waits?.get(e.id) ?? this.#waitFor({ id: e.id, deadline: e.deadline }, e.checkpoint));
          ctx.at = at;
          return { answer };
        }
        default:
          return { error: `no effect \`${e.effect}\`` };
      }
    } catch (error) {
      return { error: messageOf(error) };
    }
  }

  /**
   * Reports events. In a `call`, the request's wait opens first, so a
   * listener may answer at once.
   */
  #notify(events, ctx) {
    for (const event of events ?? []) {
      if (ctx.waits !== undefined && event.type === 'requested') {
        const request = event.request;
        ctx.waits.set(request.id, this.#waitFor(request, ctx.checkpoints.get(request.id)));
      }
    }
    this.#emit(events);
  }

  /** Runs the tool: its output (any JSON value) or its error, and how long it took. */
  async #execute(args, execute) {
    const started = Date.now();
    let ran;
    try {
      ran = { output: wellFormed(textOf(await execute(args))) };
    } catch (e) {
      ran = { error: wellFormed(messageOf(e)) };
    }
    ran.elapsed_ms = Math.max(0, Date.now() - started);
    return ran;
  }

  /**
   * A new approval id: this gate's prefix, a counter and 64 bits from the
   * runtime's CSPRNG, so knowing one id tells nobody the next.
   */
  #newId() {
    this.#nextId += 1;
    return `${this.#prefix}-${this.#nextId}-${idPrefix()}`;
  }

  /** The call as the driver takes it (its grants are filled in by the driver). */
  #call(call) {
    return { op: 'call', id: this.#newId(), call: JSON.parse(callText(call)), waiting: [...this.#waiting.keys()] };
  }

  /** The result a `done` value carries, its events reported. */
  #result(done) {
    this.#emit(done.events);
    return new ToolResult(done.result);
  }

  /** Runs a ready call (from `check` or `settle`) and records how it went. */
  async #proceed(ready, execute) {
    const { result } = await this.#drive({ op: 'execute', ready }, { execute });
    return new ToolResult(result);
  }

  /** Where a settled answer leaves the call: run, or done. */
  #concluded(settled, execute) {
    return settled.outcome === 'run' ? this.#proceed(settled.ready, execute) : this.#result(settled);
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
    const op = { ...this.#call(call), op: 'check' };
    await this.#chainReady.catch(() => {});
    const checked = await this.#drive(op);
    if (checked.outcome === 'ask') {
      this.#emit(checked.events);
      return { decision: decisionOf(checked.pending.decision), pending: requestOf(checked.pending), result: null, proceed: null };
    }
    if (checked.outcome === 'done') {
      const result = this.#result(checked);
      return { decision: result.decision, pending: null, result, proceed: null };
    }
    let proceeded = false;
    const proceed = (execute) => {
      if (proceeded) return Promise.reject(new GateError('already-answered', 'this check has already been run'));
      proceeded = true;
      return this.#proceed(checked.ready, execute);
    };
    return { decision: decisionOf(checked.ready.decision), pending: null, result: null, proceed };
  }

  /**
   * Answers an approval `check` left pending (in this process or any other
   * sharing the store): `{answer: 'approve' | 'reject' | 'edit', args?,
   * message?, instruction?, by?}`, then runs `execute` if the flow allows.
   * Throws `GateError`: `invalid-edit` (the approval stays pending),
   * `unknown`, `already-answered`, `checkpoint` (forged or unreadable),
   * `audit` (its record could not be written; it stays pending when the
   * gate requires its audit).
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
    await this.#chainReady.catch(() => {});
    return this.#concluded(await this.#drive({ op: 'settle', id: String(id), answer }), execute);
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
    await this.#chainReady.catch(() => {});
    return (await this.#drive({ op: 'recover', waiting: [...this.#waiting.keys()] })).recovered;
  }

  /**
   * Every grant this gate holds (session) or its store keeps (project,
   * user), each opened by the component: `{ok: true, id, grant}`, or `{ok:
   * false, id, error}` (its finding code first) for a forged, unsigned or
   * expired one, which does not apply. Left out: a revoked grant, by its
   * store key or the id sealed inside it; from the store, a grant that says
   * it is a session grant, and every grant when the gate has no key.
   */
  async grants() {
    const { grants } = await this.#drive({ op: 'grants' });
    return grants.map((g) => (g.grant !== undefined ? { ok: true, id: g.id, grant: g.grant } : { ok: false, id: g.id, error: g.refused }));
  }

  /**
   * Revokes grant `id` (session or stored): the revocation is audited and
   * the grant removed, leaving tombstones so no copy applies again, and no
   * later call is decided with it. Resolves with whether there was such a
   * grant.
   */
  async revoke(id) {
    await this.#chainReady.catch(() => {});
    try {
      return (await this.#drive({ op: 'revoke', id: String(id) })).revoked;
    } catch (e) {
      if (e instanceof GateError && e.code === 'audit') {
        throw new GateError('audit', `the revocation could not be recorded: ${e.message}`, { cause: e });
      }
      throw e;
    }
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
    const op = this.#call(call);
    await this.#chainReady.catch(() => {});
    const { result } = await this.#drive(op, { execute, waits: new Map(), checkpoints: new Map() });
    return new ToolResult(result);
  }

  /**
   * The pending approvals in the store (after a restart: those an earlier
   * process or page left, in either host), each opened and checked: `{ok: true,
   * request}` or `{ok: false, id, error}` for a forged or unreadable one. A
   * claim a dead holder left without its record is taken back first: its
   * approval is listed again, never silently lost.
   */
  async pending() {
    await this.#chainReady.catch(() => {});
    const { pending } = await this.#drive({ op: 'pending', waiting: [...this.#waiting.keys()] });
    return pending.map((p) => (p.pending !== undefined ? { ok: true, request: requestOf(p.pending) } : { ok: false, id: p.id, error: failure(p.error) }));
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
    const answered = this.#waitFor(pending, text);
    this.#emit([{ type: 'requested', request: pending }]);
    const { answer, at } = await answered;
    // Settled at the time the answer was taken, not when this call woke.
    const settled = await this.#drive({ op: 'settle', id, answer: json(answer), checkpoint: text, deadline: pending.deadline }, { at });
    return this.#concluded(settled, execute);
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
    await this.#chainReady.catch(() => {});
    return (await this.#drive({ op: 'sweep', waiting: [...this.#waiting.keys()] })).closed;
  }

  /**
   * Answers a pending approval this gate waits for: `{answer: 'approve' |
   * 'reject' | 'edit', args?, message?, instruction?, by?}`. The flow takes
   * the answer at once: an invalid one (an edit that is not one clean JSON
   * object) throws `GateError('invalid-edit')` and the call keeps waiting.
   * An unknown or already answered request throws `GateError`, and never
   * causes a second execution. The answer counts by the time it is given: one
   * given before the deadline is settled at that time however late the
   * waiting call wakes; one given at or after it ends the wait as expired and
   * throws `GateError('already-answered')`, even before the deadline's timer
   * has run.
   */
  respond(id, response) {
    const slot = this.#slot(id);
    const answer = answerText(response);
    const now = this.#inTime(id, slot);
    // Taken now, so whoever answered hears a refusal; recorded when settled.
    try {
      this.#flow.settle(slot.checkpoint, answer, now, null);
    } catch (e) {
      if (!(e instanceof StepError)) throw e;
      if (e.kind === 'invalid') throw new GateError('invalid-edit', e.message, { cause: e });
      throw new GateError('checkpoint', `checkpoint \`${id}\`: ${e.message}`, { cause: e.cause ?? e });
    }
    slot.take(JSON.parse(answer), now);
  }

  /**
   * Cancels a pending approval: the call is not run and the model is told.
   * At or after its deadline the wait ends as expired and this throws
   * `GateError('already-answered')`, as `respond` does.
   */
  cancel(id) {
    const slot = this.#slot(id);
    slot.take({ answer: 'cancel' }, this.#inTime(id, slot));
  }

  /**
   * The time an answer to `slot` is taken (ms), which its settling reads as
   * its `now`, so an answer given before the deadline counts however late
   * the waiting call wakes (a listener or anything else may hold the event
   * loop past the deadline before the timer runs). One given at or after
   * the deadline is too late whether or not the timer has run: the wait ends
   * there, expired, and whoever answered is told.
   */
  #inTime(id, slot) {
    const now = Date.now();
    if (now >= slot.deadline) {
      slot.take({ answer: 'none' }, null);
      throw new GateError('already-answered', `approval \`${id}\` expired at its deadline before the answer came`);
    }
    return now;
  }

  #slot(id) {
    const slot = this.#waiting.get(id);
    if (slot === undefined || slot.taken) {
      if (this.#finished.has(id) || slot?.taken) throw new GateError('already-answered', `approval \`${id}\` was already answered`);
      throw new GateError('unknown', `no pending approval \`${id}\``);
    }
    return slot;
  }

  /**
   * Opens the wait for the answer to `pending` (until its deadline, when the
   * answer is `none`): resolves with `{answer, at}`, the answer the driver
   * takes and the time it was given (null at the deadline: the clock is read).
   */
  #waitFor(pending, checkpoint) {
    const { id } = pending;
    let stopTimer = () => {};
    let stopWarning = () => {};
    const answered = new Promise((resolve) => {
      const slot = {
        checkpoint,
        deadline: pending.deadline,
        taken: false,
        take: (answer, at) => {
          slot.taken = true;
          resolve({ answer, at });
        },
      };
      this.#waiting.set(id, slot);
      // At the deadline the wait ends without an answer; the flow says expired.
      stopTimer = timerUntil(pending.deadline, () => {
        if (!slot.taken) slot.take({ answer: 'none' }, null);
      });
      if (this.#warnBeforeMs !== null) {
        stopWarning = timerUntil(pending.deadline - this.#warnBeforeMs, () => {
          if (!slot.taken) this.#emit([{ type: 'expiring', id, deadline: pending.deadline }]);
        });
      }
    });
    if (this.#approve !== null && pending.tool !== undefined) {
      const request = requestOf(pending);
      Promise.resolve()
        .then(() => this.#approve(request))
        .then((response) => this.respond(id, response))
        .catch(() => {
          // A late or refused answer changes nothing: the wait goes on or has ended.
        });
    }
    return answered.finally(() => {
      stopTimer();
      stopWarning();
      this.#waiting.delete(id);
      this.#finished.add(id);
    });
  }
}
