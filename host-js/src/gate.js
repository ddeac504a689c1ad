// The approval gate: wraps a tool's execution in the policy's decision and, for
// `confirm`, in a person's answer. The twin of host-rs/src/gate: the same
// states, results, checkpoints and audit records (the component writes the
// last two, byte for byte the same in both hosts).
//
// `gate.run(call, execute)` assesses a call; `deny` never runs it, `allow` runs
// it with `risk_level` stripped, `confirm` checkpoints a pending approval,
// dispatches `approval-requested`, waits for `gate.respond(id, response)` (or
// the `approve` callback) until the deadline, and then runs it, runs an edited
// version (re-assessed: an edit the policy denies stays denied), or never runs
// it. The caller always gets a result it can hand back to the model, and one
// hash-chained audit record is written. Works in Node and in browsers.
//
// States: pending → approved / edited / rejected / expired / cancelled →
// executed / failed (the last two only after an approval).

import { ToolgateError } from './errors.js';

/** The default time a person has to answer (seed 004: 30 s). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The shortest checkpoint key, in bytes. */
export const MIN_KEY_LENGTH = 16;

/** The longest delay one `setTimeout` takes (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Resolves `onTimeout` after `ms` (any length: longer waits are chained in
 * steps a timer can hold, so they never fire at once). Returns a cancel function.
 */
function longTimer(ms, onTimeout) {
  let handle;
  let cancelled = false;
  const until = Date.now() + Math.max(0, ms);
  const step = () => {
    if (cancelled) return;
    const left = until - Date.now();
    if (left <= 0) onTimeout();
    else handle = setTimeout(step, Math.min(left, MAX_TIMER_MS));
  };
  handle = setTimeout(step, Math.min(Math.max(0, ms), MAX_TIMER_MS));
  return () => {
    cancelled = true;
    clearTimeout(handle);
  };
}

/**
 * `text` with each lone surrogate (which JSON text cannot carry and the
 * component would refuse) written out as `\\udXXX`: escaped, never dropped.
 */
function wellFormed(text) {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** A key's bytes, or a `GateError` when it is too short to be a secret. */
function checkedKey(key) {
  const bytes = typeof key === 'string' ? new TextEncoder().encode(key) : key;
  if (!(bytes instanceof Uint8Array)) throw new TypeError('a checkpoint key is a string or a Uint8Array');
  if (bytes.length < MIN_KEY_LENGTH) {
    throw new GateError(
      'key',
      `the checkpoint key is ${bytes.length} bytes long; a key has at least ${MIN_KEY_LENGTH} (make one with \`head -c 32 /dev/urandom > key\`)`,
    );
  }
  return bytes;
}

/** A gate operation was refused; `code` says why. */
export class GateError extends ToolgateError {
  /**
   * @param {'unknown' | 'already-answered' | 'invalid-edit' | 'checkpoint' | 'key'} code
   * @param {string} message
   * @param {object} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.code = code;
  }
}

/** Checkpoints in memory: nothing survives the page or process. The default. */
export class MemoryStore {
  #items = new Map();
  async put(id, checkpoint) {
    checkId(id);
    this.#items.set(id, checkpoint);
  }
  #claims = new Map();
  async remove(id) {
    this.#items.delete(id);
  }
  /** Claims `id` once (compare-and-set); the claim stays as a tombstone. */
  async claim(id, deadline) {
    checkId(id);
    if (this.#claims.has(id)) return false;
    this.#claims.set(id, deadline);
    return true;
  }
  /** Removes tombstones past their deadline; returns how many. */
  async sweep(now) {
    let removed = 0;
    for (const [id, deadline] of this.#claims) {
      if (deadline < now) {
        this.#claims.delete(id);
        removed += 1;
      }
    }
    return removed;
  }
  async get(id) {
    return this.#items.get(id) ?? null;
  }
  async list() {
    return [...this.#items.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

/**
 * Checkpoints in a Web Storage object (`localStorage`, `sessionStorage`, or
 * anything with getItem/setItem/removeItem/key/length), under a key prefix, so a
 * reloaded page can list and resume what was pending.
 */
export class WebStorageStore {
  #storage;
  #prefix;
  /**
   * @param {Storage} storage
   * @param {string} [prefix]
   */
  constructor(storage, prefix = 'toolgate.checkpoint.') {
    this.#storage = storage;
    this.#prefix = prefix;
  }
  async put(id, checkpoint) {
    checkId(id);
    this.#storage.setItem(this.#prefix + id, checkpoint);
  }
  async remove(id) {
    this.#storage.removeItem(this.#prefix + id);
  }
  /**
   * Claims `id` once, under the key `<prefix>claim.<id>`: set only when
   * absent, then read back, so of two tabs the one whose token stayed wins.
   * The claim stays as a tombstone until its deadline.
   */
  async claim(id, deadline) {
    checkId(id);
    const key = `${this.#prefix}claim.${id}`;
    if (this.#storage.getItem(key) !== null) return false;
    const token = `${deadline}.${idPrefix()}`;
    this.#storage.setItem(key, token);
    return this.#storage.getItem(key) === token;
  }
  /** Removes tombstones past their deadline; returns how many. */
  async sweep(now) {
    const stale = [];
    const claims = `${this.#prefix}claim.`;
    for (let i = 0; i < this.#storage.length; i++) {
      const key = this.#storage.key(i);
      if (key === null || !key.startsWith(claims)) continue;
      const deadline = Number.parseInt(String(this.#storage.getItem(key)), 10);
      if (Number.isFinite(deadline) && deadline < now) stale.push(key);
    }
    for (const key of stale) this.#storage.removeItem(key);
    return stale.length;
  }
  async get(id) {
    return this.#storage.getItem(this.#prefix + id);
  }
  async list() {
    const out = [];
    for (let i = 0; i < this.#storage.length; i++) {
      const key = this.#storage.key(i);
      if (key !== null && key.startsWith(this.#prefix) && !key.startsWith(`${this.#prefix}claim.`)) {
        const id = key.slice(this.#prefix.length);
        const value = this.#storage.getItem(key);
        if (value !== null) out.push([id, value]);
      }
    }
    return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

/** Audit lines kept in an array (`lines`), e.g. for a page that shows them. */
export class MemorySink {
  lines = [];
  async append(line) {
    this.lines.push(line);
  }
  async last() {
    return this.lines.at(-1) ?? null;
  }
}

/** Audit lines handed to a function (a log shipper, a test). */
export class CallbackSink {
  #f;
  constructor(f) {
    this.#f = f;
  }
  async append(line) {
    await this.#f(line);
  }
  async last() {
    return null;
  }
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

function checkId(id) {
  if (!ID.test(id)) throw new GateError('checkpoint', `checkpoint store: \`${id}\` is not a valid approval id`);
}

function idPrefix() {
  const random = globalThis.crypto?.getRandomValues?.(new Uint32Array(2)) ?? [Date.now(), Math.random() * 2 ** 32];
  return [...random].map((n) => (n >>> 0).toString(16)).join('');
}

const REASONS = {
  rejected: 'the user rejected this call; it was not run',
  expired: 'no one approved this call in time; it was not run',
  cancelled: 'the approval was cancelled; the call was not run',
};

/**
 * What the gate tells the caller. `forModel()` is the tool-result message body
 * for the model (the same JSON the Rust host writes).
 */
export class ToolResult {
  constructor(fields) {
    Object.assign(this, {
      status: 'executed',
      output: null,
      error: null,
      reason: null,
      message: null,
      instruction: null,
      decision: null,
      executedArgs: null,
      approvalId: null,
      auditError: null,
      ...fields,
    });
  }

  /** @returns {string} */
  forModel() {
    const out = { status: this.status };
    for (const key of ['output', 'error', 'reason', 'message']) {
      if (this[key] !== null && this[key] !== undefined) out[key] = this[key];
    }
    return JSON.stringify(out);
  }
}

/**
 * The approval gate. Dispatches `approval-requested` (detail: the request),
 * `approval-responded` (detail: `{id, answer, by}`) and `approval-processed`
 * (detail: `{id, tool, status}`).
 */
export class Gate extends EventTarget {
  #policy;
  #engine;
  #version;
  #timeoutMs;
  #toolTimeouts;
  #shadow;
  #key;
  #configHash;
  #identity;
  #auditRequired;
  #auditKey = null;
  #store;
  #sinks;
  #approve;
  #chain = null;
  #chainReady;
  #waiting = new Map();
  #finished = new Set();
  #nextId = 0;
  #prefix = idPrefix();
  #auditQueue = Promise.resolve();

  /**
   * @param {import('./index.js').Policy} policy
   * @param {object} [options]
   * @param {string | object} [options.config] the policy configuration
   * @param {number} [options.timeoutMs] how long a person has to answer
   * @param {Record<string, number>} [options.toolTimeouts] per tool, in ms
   * @param {boolean} [options.shadow] never block; run everything; record what would have been decided
   * @param {string | Uint8Array} [options.key] signs checkpoints, refuses unsigned or forged ones
   * @param {object} [options.store] where pending approvals are checkpointed (MemoryStore by default)
   * @param {object[]} [options.audit] audit sinks; the first one's last line continues the chain
   * @param {(request: object) => Promise<object> | object} [options.approve] answers every request
   */
  constructor(policy, options = {}) {
    super();
    this.#policy = policy;
    this.#engine = policy.engine(options.config ?? '{}');
    this.#version = policy.version();
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // A Map: a tool's name (`constructor`, `__proto__`) never reaches a prototype.
    this.#toolTimeouts = new Map(Object.entries(options.toolTimeouts ?? {}));
    this.#shadow = options.shadow === true;
    // A key that is not a key fails here, loudly; a store others can write
    // (anything but the default in-memory one) needs a key or `unsigned`.
    if (options.key !== undefined && options.key !== null) {
      this.#key = checkedKey(options.key);
    } else if (options.store !== undefined && options.unsigned !== true) {
      throw new GateError('key', 'a gate with a checkpoint store needs a key (at least 16 bytes), or `unsigned: true` said explicitly');
    }
    this.#store = options.store ?? new MemoryStore();
    const configText = typeof options.config === 'string' ? options.config : JSON.stringify(options.config ?? {});
    this.#configHash = policy.configHash(configText);
    this.#identity = options.identity ?? `tg-${this.#prefix}`;
    // Fail closed: a call whose write-ahead record cannot be written is not run.
    this.#auditRequired = options.auditRequired === true;
    // A keyed chain: nobody without the key can rewrite the log and recompute it.
    if (options.auditKey !== undefined && options.auditKey !== null) this.#auditKey = checkedKey(options.auditKey);
    this.#sinks = [...(options.audit ?? [])];
    this.#approve = options.approve ?? null;
    this.#chainReady = (async () => {
      this.#chain = this.#sinks.length > 0 ? ((await this.#sinks[0].last?.()) ?? null) : null;
      const gap = this.#sinks.length > 0 ? ((await this.#sinks[0].gap?.()) ?? null) : null;
      if (gap !== null) {
        // Recorded first in the queue: the torn tail was set aside by the sink.
        const line = this.#seal(
          JSON.stringify({
            time: Date.now(),
            tool: 'toolgate.audit',
            parameters: wellFormed(gap),
            decision: { action: 'allow', risk: 'low', source: 'default', findings: ['audit.gap'], policy_version: this.#version },
            shadow: this.#shadow,
            status: 'gap',
            success: false,
          }),
        );
        for (const sink of this.#sinks) await sink.append(line);
        this.#chain = line;
      }
    })();
    // A sink that cannot be read fails each record (reported as `auditError`),
    // never the process through an unhandled rejection.
    this.#chainReady.catch(() => {});
  }

  /** The policy engine the gate decides with. */
  get engine() {
    return this.#engine;
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  #assess(tool, args, context) {
    return context === undefined || context === null
      ? this.#engine.assess(tool, args)
      : this.#engine.assess(tool, args, context);
  }

  #stripped(args) {
    try {
      return this.#policy.stripRiskLevel(args);
    } catch {
      return args;
    }
  }

  /**
   * Decides `call` and runs `execute(args)` (the arguments the tool must
   * receive; resolve with the output, throw or reject on failure) if and when
   * it may run. Rejects only when a pending approval cannot be checkpointed (the
   * call is then not run).
   *
   * @param {{tool: string, args: string | object, callId?: string, description?: string,
   *          sessionId?: string, userId?: string, context?: string | object}} call
   * @param {(args: string) => Promise<string> | string} execute
   * @returns {Promise<ToolResult>}
   */
  async run(call, execute) {
    const c = normalise(call);
    const decision = this.#assess(c.tool, c.args, c.context);
    if (this.#shadow) return this.#execute(c, decision, null, this.#stripped(c.args), execute);
    if (decision.action === 'deny') return this.#refuse(c, decision, null, 'denied');
    if (decision.action === 'allow') return this.#execute(c, decision, null, this.#stripped(c.args), execute);
    const now = Date.now();
    const timeout = this.#toolTimeouts.get(c.tool) ?? this.#timeoutMs;
    this.#nextId += 1;
    const request = {
      id: `tg-${this.#prefix}-${this.#nextId}`,
      session_id: c.sessionId,
      user_id: c.userId,
      tool: c.tool,
      description: c.description,
      args: c.args,
      call_id: c.callId,
      decision: wireDecision(decision),
      requested_at: now,
      deadline: now + timeout,
      context: c.context === null ? null : typeof c.context === 'string' ? c.context : JSON.stringify(c.context),
      config_hash: this.#configHash,
      gate: this.#identity,
    };
    let checkpoint;
    try {
      checkpoint = this.#policy.sealCheckpoint(request, this.#key);
    } catch (e) {
      throw new GateError('checkpoint', `checkpoint \`${request.id}\`: ${e.message}`, { cause: e });
    }
    await this.#store.put(request.id, checkpoint);
    return this.#waitAndFinish(c, requestFrom(request), execute);
  }

  /**
   * The pending approvals in the store (after a restart: those an earlier
   * process or page left, in either host), each opened and checked: `{ok: true,
   * request}` or `{ok: false, id, error}` for a forged or unreadable one.
   */
  async pending() {
    const out = [];
    for (const [id, text] of await this.#store.list()) {
      try {
        out.push({ ok: true, request: this.#open(id, text) });
      } catch (error) {
        out.push({ ok: false, id, error });
      }
    }
    return out;
  }

  #open(id, text) {
    let pending;
    try {
      pending = JSON.parse(this.#policy.openCheckpoint(text, this.#key));
    } catch (e) {
      throw new GateError('checkpoint', `checkpoint \`${id}\`: ${e.message}`, { cause: e });
    }
    if (pending.id !== id) {
      throw new GateError('checkpoint', `checkpoint \`${id}\`: it is stored as \`${id}\` but names \`${pending.id}\``);
    }
    return requestFrom(pending);
  }

  /**
   * Resumes a pending approval from the store: dispatches
   * `approval-requested` again, waits until the original deadline, and
   * finishes the call as `run` would. An expired one is closed without running.
   *
   * @param {string} id
   * @param {(args: string) => Promise<string> | string} execute
   * @returns {Promise<ToolResult>}
   */
  async resume(id, execute) {
    if (this.#waiting.has(id)) throw new GateError('already-answered', `approval \`${id}\` is already being waited for`);
    const text = await this.#store.get(id);
    if (text === null || text === undefined) throw new GateError('unknown', `no pending approval \`${id}\``);
    const request = this.#open(id, text);
    const call = {
      tool: request.tool,
      args: request.args,
      callId: request.callId,
      description: request.description,
      sessionId: request.sessionId,
      userId: request.userId,
      context: request.context,
    };
    return this.#waitAndFinish(call, request, execute);
  }

  /**
   * Cleans the store: every pending approval past its deadline that no call
   * of this gate waits for is closed as `expired` (claimed, removed, audited;
   * never run), and tombstones past their deadline are removed. Checkpoints
   * that cannot be opened are left for a person to look at. Resolves with how
   * many approvals were closed.
   *
   * @returns {Promise<number>}
   */
  async sweep() {
    const now = Date.now();
    let closed = 0;
    for (const [id, text] of await this.#store.list()) {
      let request;
      try {
        request = this.#open(id, text);
      } catch {
        continue;
      }
      if (request.deadline > now || this.#waiting.has(id)) continue;
      const claimed = await this.#store.claim(id, request.deadline);
      await this.#store.remove(id);
      if (claimed) {
        closed += 1;
        const call = {
          tool: request.tool,
          args: request.args,
          callId: request.callId,
          description: request.description,
          sessionId: request.sessionId,
          userId: request.userId,
          context: request.context,
        };
        await this.#refuse(call, request.decision, { id, outcome: 'expired', response: null, answeredAt: null }, 'expired');
      }
    }
    await this.#store.sweep?.(now);
    return closed;
  }

  /**
   * Answers a pending approval: `{answer: 'approve' | 'reject' | 'edit', args?,
   * message?, instruction?, by?}`. Edited `args` must be a JSON object. An
   * unknown, expired or already answered request throws `GateError`, and never
   * causes a second execution.
   */
  respond(id, response) {
    const r = normaliseResponse(response);
    if (r.answer === 'edit') {
      try {
        this.#policy.stripRiskLevel(r.args);
      } catch (e) {
        throw new GateError('invalid-edit', `edited arguments refused: ${e.message}`, { cause: e });
      }
    }
    this.#settle(id, { kind: 'answered', response: r });
  }

  /** Cancels a pending approval: the call is not run and the model is told. */
  cancel(id) {
    this.#settle(id, { kind: 'cancelled' });
  }

  #settle(id, outcome) {
    const slot = this.#waiting.get(id);
    if (slot === undefined) {
      if (this.#finished.has(id)) throw new GateError('already-answered', `approval \`${id}\` was already answered`);
      throw new GateError('unknown', `no pending approval \`${id}\``);
    }
    if (slot.settled) throw new GateError('already-answered', `approval \`${id}\` was already answered`);
    slot.settled = true;
    slot.resolve(outcome);
  }

  async #waitAndFinish(call, request, execute) {
    const { id } = request;
    const slot = { settled: false, resolve: null };
    const answered = new Promise((resolve) => {
      slot.resolve = resolve;
    });
    this.#waiting.set(id, slot);
    let stopTimer;
    const expired = new Promise((resolve) => {
      stopTimer = longTimer(request.deadline - Date.now(), () => resolve({ kind: 'expired' }));
    });
    this.#emit('approval-requested', request);
    if (this.#approve !== null) {
      Promise.resolve()
        .then(() => this.#approve(request))
        .then((response) => this.respond(id, response))
        .catch(() => {
          // A late or refused answer changes nothing: the wait has ended.
        });
    }
    let outcome = await Promise.race([answered, expired]);
    stopTimer();
    // Close the slot first, so no answer can land after this point.
    slot.settled = true;
    this.#waiting.delete(id);
    this.#finished.add(id);
    const answeredAt = Date.now();
    // The deadline is checked when the answer is taken: an answer that comes
    // at once after it (a late resume, a zero timeout) is too late all the same.
    if (outcome.kind === 'answered' && answeredAt >= request.deadline) outcome = { kind: 'expired' };
    // Claim before anything runs: of every gate, tab and process answering
    // this approval exactly one wins, and the claim stays as a tombstone. A
    // claim or removal that fails runs nothing (the promise rejects).
    if (!(await this.#store.claim(id, request.deadline))) {
      throw new GateError('already-answered', `approval \`${id}\` was already answered`);
    }
    await this.#store.remove(id);
    const decision = request.decision;
    if (outcome.kind === 'expired') {
      return this.#refuse(call, decision, { id, outcome: 'expired', response: null, answeredAt: null }, 'expired');
    }
    if (outcome.kind === 'cancelled') {
      return this.#refuse(call, decision, { id, outcome: 'cancelled', response: null, answeredAt }, 'cancelled');
    }
    const response = outcome.response;
    this.#emit('approval-responded', { id, answer: response.answer, by: response.by });
    if (response.answer === 'reject') {
      return this.#refuse(call, decision, { id, outcome: 'rejected', response, answeredAt }, 'rejected');
    }
    if (response.answer === 'approve') {
      const approval = { id, outcome: 'approved', response, answeredAt };
      // Decided again under the current configuration: the answer covers
      // only what the person was shown.
      const current = this.#assess(call.tool, call.args, call.context);
      let verdict;
      try {
        verdict = this.#policy.recheck(wireDecision(decision), wireDecision(current));
      } catch {
        verdict = 'changed';
      }
      if (verdict === 'denied') return this.#refuse(call, current, approval, 'denied');
      if (verdict !== 'stands') {
        return this.#refuse(call, current, approval, 'denied', "the policy's decision on this call changed after it was approved; the approval is void, ask again");
      }
      let args;
      try {
        args = this.#policy.stripRiskLevel(call.args);
      } catch (e) {
        // Only one clean object reaches a tool: what the dialog showed runs.
        return this.#refuse(call, decision, approval, 'denied', `the arguments are not one clean JSON object (${e.message}); the call was not run`);
      }
      return this.#execute(call, decision, approval, args, execute);
    }
    let diff = null;
    try {
      diff = JSON.parse(this.#policy.argsDiff(call.args, response.args));
    } catch {
      diff = null;
    }
    const approval = { id, outcome: 'edited', response, answeredAt, diff };
    // The edit is decided afresh: a person may approve what needs
    // confirmation, never what is configured off.
    const redecided = this.#assess(call.tool, response.args, call.context);
    const edited = { ...call, args: response.args };
    if (redecided.action === 'deny') return this.#refuse(edited, redecided, approval, 'denied');
    return this.#execute(edited, redecided, approval, this.#stripped(response.args), execute);
  }

  async #execute(call, decision, approval, args, execute) {
    // Write-ahead: a crash while the tool runs still leaves a record.
    const ahead = new ToolResult({ decision, executedArgs: args, approvalId: approval?.id ?? null });
    const aheadError = await this.#record(call, ahead, approval, args, 0, 'executing');
    if (aheadError !== null && this.#auditRequired) {
      const refused = await this.#refuse(
        call,
        decision,
        approval,
        'denied',
        `the audit record could not be written (${aheadError}), and this gate runs nothing it cannot record; the call was not run`,
      );
      refused.auditError = aheadError;
      return refused;
    }
    const started = Date.now();
    let status = 'executed';
    let output = null;
    let error = null;
    try {
      const value = await execute(args);
      output = typeof value === 'string' ? value : JSON.stringify(value ?? null);
    } catch (e) {
      status = 'failed';
      error = e instanceof Error ? e.message : String(e);
    }
    const result = new ToolResult({
      status,
      output,
      error,
      instruction: approval?.response?.instruction ?? null,
      decision,
      executedArgs: args,
      approvalId: approval?.id ?? null,
    });
    result.auditError = (await this.#record(call, result, approval, args, Date.now() - started)) ?? aheadError;
    this.#emit('approval-processed', { id: result.approvalId, tool: call.tool, status });
    return result;
  }

  async #refuse(call, decision, approval, status, because) {
    const response = approval?.response ?? null;
    const result = new ToolResult({
      status,
      reason: because ?? (status === 'denied' ? `the call was denied: ${decision.summary}` : REASONS[status]),
      message: response?.message ?? null,
      instruction: response?.instruction ?? null,
      decision,
      approvalId: approval?.id ?? null,
    });
    result.auditError = await this.#record(call, result, approval, call.args, 0);
    this.#emit('approval-processed', { id: result.approvalId, tool: call.tool, status });
    return result;
  }

  /** Writes the audit record of a finished call; returns an error message or null. */
  #record(call, result, approval, parameters, elapsedMs, statusOverride) {
    if (this.#sinks.length === 0) return Promise.resolve(null);
    const entry = {
      time: Date.now(),
      session_id: call.sessionId,
      user_id: call.userId,
      tool: call.tool,
      call_id: call.callId,
      parameters,
      decision: {
        action: result.decision.action,
        risk: result.decision.risk,
        source: result.decision.source,
        findings: result.decision.findings.map((f) => f.code),
        policy_version: this.#version,
      },
      approval:
        approval === null
          ? null
          : {
              id: approval.id,
              outcome: approval.outcome,
              by: approval.response?.by ?? null,
              message: approval.response?.message ?? null,
              instruction: approval.response?.instruction ?? null,
              diff: approval.diff ?? [],
              answered_at: approval.answeredAt,
            },
      shadow: this.#shadow,
      status: statusOverride ?? result.status,
      success: statusOverride === undefined && result.status === 'executed',
      result: result.output,
      error: result.error,
      execution_time_ms: elapsedMs,
    };
    return this.#append(entry);
  }

  /** Seals entry text after the chain's last line, keyed when the gate has an audit key. */
  #seal(text, previous = this.#chain) {
    return this.#auditKey === null ? this.#policy.sealAudit(text, previous) : this.#policy.sealAuditKeyed(text, previous, this.#auditKey);
  }

  /** Seals `entry` after the chain's last line and writes it to every sink. */
  #append(entry) {
    // Text JSON cannot carry is escaped, never dropped.
    const text = JSON.stringify(entry, (_, v) => (typeof v === 'string' ? wellFormed(v) : v));
    // Records are sealed one after another, so the chain never forks.
    const written = this.#auditQueue.then(async () => {
      await this.#chainReady;
      let line;
      if (typeof this.#sinks[0].appendSealed === 'function') {
        // The first sink seals from its own last line: one chain, whoever else writes it.
        line = await this.#sinks[0].appendSealed((previous) => this.#seal(text, previous));
        for (const sink of this.#sinks.slice(1)) await sink.append(line);
      } else {
        line = this.#seal(text);
        for (const sink of this.#sinks) await sink.append(line);
      }
      this.#chain = line;
      return null;
    });
    this.#auditQueue = written.catch(() => null);
    return written.catch((e) => (e instanceof Error ? e.message : String(e)));
  }
}

function normalise(call) {
  if (call === null || typeof call !== 'object') throw new TypeError('a call is an object with `tool` and `args`');
  const args = call.args === undefined ? '{}' : typeof call.args === 'string' ? call.args : JSON.stringify(call.args);
  return {
    tool: String(call.tool ?? ''),
    args,
    callId: call.callId ?? null,
    description: call.description ?? '',
    sessionId: call.sessionId ?? null,
    userId: call.userId ?? null,
    context: call.context === undefined || call.context === null ? null : call.context,
  };
}

function normaliseResponse(response) {
  const answer = response?.answer;
  if (answer !== 'approve' && answer !== 'reject' && answer !== 'edit') {
    throw new GateError('invalid-edit', "a response's `answer` is 'approve', 'reject' or 'edit'");
  }
  const args = answer === 'edit' ? (typeof response.args === 'string' ? response.args : JSON.stringify(response.args)) : null;
  if (answer === 'edit' && typeof args !== 'string') {
    throw new GateError('invalid-edit', 'edited arguments refused: an edit carries `args`');
  }
  return {
    answer,
    args,
    message: response.message ?? null,
    instruction: response.instruction ?? null,
    by: response.by ?? null,
  };
}

/** The decision in the component's (snake_case) JSON form, as checkpoints hold it. */
function wireDecision(d) {
  return {
    action: d.action,
    risk: d.risk,
    source: d.source,
    llm_risk: d.llmRisk,
    findings: d.findings.map((f) => ({ code: f.code, message: f.message })),
    summary: d.summary,
  };
}

/** A request for listeners and dialogs, from the checkpoint's pending form. */
function requestFrom(p) {
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
    decision: {
      action: p.decision.action,
      risk: p.decision.risk,
      source: p.decision.source,
      llmRisk: p.decision.llm_risk ?? null,
      findings: p.decision.findings.map((f) => ({ code: f.code, message: f.message })),
      summary: p.decision.summary,
    },
    requestedAt: p.requested_at,
    deadline: p.deadline,
  };
}

