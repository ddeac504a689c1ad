// toolgate for JavaScript: the toolgate policy component, transpiled by jco,
// behind a small API that works the same in Node (>= 20) and in browsers.
//
// The policy is the very component the Rust host embeds; this layer only loads
// it, converts its decisions to plain objects, and answers `confirm` whenever the
// component faults, recovering with a fresh instance. Nothing on the browser
// path touches a Node built-in: `node:fs` is imported lazily, only for `file:`
// URLs.

import { instantiate } from '../gen/toolgate.js';

/** The component shipped with this package. */
export const DEFAULT_COMPONENT_URL = new URL('../gen/toolgate.wasm', import.meta.url);

/** The finding code of a decision the host made because the policy faulted. */
export const POLICY_FAULT = 'policy.fault';

export {
  ToolgateError,
  LoadError,
  RejectedError,
  PolicyFaultError,
  CheckpointError,
  AuditBrokenError,
  RequestError,
} from './errors.js';
import { LoadError, RejectedError, PolicyFaultError, CheckpointError, AuditBrokenError, ToolgateError, RequestError, faultKind, checkpointErrorOf } from './errors.js';
import { Flow, stepErrorOf } from './flow.js';

const checkpointError = checkpointErrorOf;

/** A key as bytes: strings are taken as UTF-8. */
function keyBytes(key) {
  if (key === undefined || key === null) return undefined;
  if (typeof key === 'string') return new TextEncoder().encode(key);
  if (key instanceof Uint8Array) return key;
  throw new TypeError('a checkpoint key is a string or a Uint8Array');
}

const COMPONENT_LAYER = [0x0d, 0x00, 0x01, 0x00];

/**
 * The core modules of a component binary, in order: the policy module, then
 * the small shim modules the component model adds. jco's glue names them
 * `toolgate.core.wasm`, `toolgate.core2.wasm`, … in this same order.
 */
function coreModules(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const magic = u8[0] === 0 && u8[1] === 0x61 && u8[2] === 0x73 && u8[3] === 0x6d;
  if (!magic || u8.length < 8) {
    throw new LoadError('not a WebAssembly binary');
  }
  if (!COMPONENT_LAYER.every((b, i) => u8[4 + i] === b)) {
    throw new LoadError('a WebAssembly core module, not a component: load the toolgate component (.wasm)');
  }
  const modules = [];
  let i = 8;
  while (i < u8.length) {
    const id = u8[i++];
    let size = 0;
    let shift = 0;
    for (;;) {
      if (i >= u8.length || shift > 28) throw new LoadError('truncated component');
      const b = u8[i++];
      size += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) break;
    }
    if (i + size > u8.length) throw new LoadError('truncated component');
    if (id === 1) modules.push(u8.subarray(i, i + size));
    i += size;
  }
  if (modules.length === 0) throw new LoadError('the component holds no core module');
  return modules;
}

function isNode() {
  return typeof process !== 'undefined' && process.versions != null && process.versions.node != null;
}

async function readBytes(source) {
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  const resolved = await source;
  // URLs first: in Node, the first touch of the global `Response` loads the
  // fetch implementation, about 20 ms of a start that reads a file.
  if (resolved instanceof URL || typeof resolved === 'string') {
    const url = resolved instanceof URL ? resolved : new URL(resolved, globalThis.location?.href ?? import.meta.url);
    if (url.protocol === 'file:' && isNode()) {
      const { readFile } = await import('node:fs/promises');
      try {
        return new Uint8Array(await readFile(url));
      } catch (e) {
        throw new LoadError(`cannot read the component ${url.pathname}: ${e.message}`, { cause: e });
      }
    }
    let response;
    try {
      response = await fetch(url);
    } catch (e) {
      throw new LoadError(`cannot fetch the component ${url.href}: ${e.message}`, { cause: e });
    }
    return readBytes(response);
  }
  if (typeof Response !== 'undefined' && resolved instanceof Response) {
    if (!resolved.ok) throw new LoadError(`cannot fetch the component: HTTP ${resolved.status}`);
    return new Uint8Array(await resolved.arrayBuffer());
  }
  throw new LoadError('the component source must be a URL, a string, bytes or a Response');
}

/**
 * Loads the policy. `source` is the toolgate component: a URL (or string), its
 * bytes, or a `Response` (or a promise of one). Without it, the component
 * shipped with this package is loaded.
 *
 * @param {URL | string | ArrayBuffer | ArrayBufferView | Response | Promise<Response>} [source]
 * @returns {Promise<Policy>}
 */
export async function loadPolicy(source = DEFAULT_COMPONENT_URL) {
  const bytes = await readBytes(source);
  let modules;
  try {
    modules = await Promise.all(coreModules(bytes).map((m) => WebAssembly.compile(m)));
  } catch (e) {
    if (e instanceof LoadError) throw e;
    throw new LoadError(`invalid toolgate component: ${e.message}`, { cause: e });
  }
  const policy = new Policy(modules);
  try {
    policy.version();
  } catch (e) {
    throw new LoadError(`invalid toolgate component: ${e.message}`, { cause: e });
  }
  return policy;
}

function decisionFrom(d) {
  return {
    action: d.action,
    risk: d.risk,
    source: d.source,
    llmRisk: d.llmRisk ?? null,
    findings: d.findings.map((f) => ({ code: f.code, message: f.message })),
    summary: d.summary,
  };
}

/**
 * The canonical JSON form of a parsed tool call, byte-identical in every runtime.
 *
 * @param {ToolCall} c
 * @returns {string}
 */
export function toolCallJson(c) {
  return JSON.stringify({ tool: c.tool, args: c.args, id: c.id, format: c.format });
}

/**
 * The canonical JSON form of a decision, byte-identical in every runtime
 * (snake_case, `null` for an absent model risk).
 *
 * @param {Decision} d
 * @returns {string}
 */
export function decisionJson(d) {
  return JSON.stringify({
    action: d.action,
    risk: d.risk,
    source: d.source,
    llm_risk: d.llmRisk,
    findings: d.findings.map((f) => ({ code: f.code, message: f.message })),
    summary: d.summary,
  });
}

function oneLine(text, max) {
  const flat = String(text).replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim();
  return [...flat].length > max ? `${[...flat].slice(0, max).join('')}…` : flat;
}

function faultDecision(tool, cause) {
  return {
    action: 'confirm',
    risk: 'medium',
    source: 'default',
    llmRisk: null,
    findings: [{ code: POLICY_FAULT, message: `the policy faulted (${cause}); a person must decide` }],
    summary: `${oneLine(nameText(tool), 60)} — the policy faulted; needs confirmation`,
  };
}

/**
 * A tool name as text. `String()` throws for an object without a prototype
 * (and for one whose `toString` throws), and the calls that promise never to
 * throw take whatever an SDK hands them.
 */
function nameText(value) {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return '';
  }
}

function asText(value, what) {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  throw new TypeError(`${what} must be a JSON string or an object`);
}

/**
 * What stands for arguments JSON cannot hold. It is not JSON, so the policy
 * answers it `confirm` with `args.invalid`, and the decision still comes from
 * the component (a denied tool stays denied, a fault stays a fault).
 */
const UNSERIALISABLE = '(arguments that JSON cannot hold)';

/**
 * Arguments as JSON text, whatever the caller passed, so `assess` never
 * throws on what an SDK hands it (typed `unknown` there): text is taken
 * verbatim as JSON text; `undefined` is a call without arguments (`{}`, as
 * `parseCall` reads an absent field and as MCP sends a call without them);
 * any other value is serialised. A value JSON cannot hold (a cycle, a BigInt,
 * a function, a throwing `toJSON`) becomes text the policy refuses.
 */
function argsText(value) {
  if (typeof value === 'string') return value;
  if (value === undefined) return '{}';
  try {
    const json = JSON.stringify(value);
    return typeof json === 'string' ? json : UNSERIALISABLE;
  } catch {
    return UNSERIALISABLE;
  }
}

function errorPayload(e) {
  // jco throws a ComponentError whose `payload` is the WIT `err` value.
  return e && typeof e === 'object' && 'payload' in e ? String(e.payload) : null;
}

/**
 * The toolgate policy, loaded and ready. Calls are synchronous.
 */
export class Policy {
  #modules;
  #live = null;
  #generation = 0;
  /** @type {Map<number, string>} the configuration of every live engine */
  #configs = new Map();
  #nextId = 0;
  /** @type {Map<number, [string, string, Uint8Array | undefined, Uint8Array | undefined]>} every live flow's making */
  #flows = new Map();
  #crossings = 0;

  /** @param {WebAssembly.Module[]} modules compiled core modules, in component order */
  constructor(modules) {
    this.#modules = modules;
  }

  #instance() {
    if (this.#live === null) {
      const byName = (path) => {
        const match = /^toolgate\.core(\d*)\.wasm$/.exec(path);
        const index = match ? (match[1] === '' ? 0 : Number(match[1]) - 1) : -1;
        const module = this.#modules[index];
        if (!module) throw new LoadError(`the component has no core module ${path}`);
        return module;
      };
      // Keep the core instances' memories, for `stats()`.
      const memories = [];
      const instantiateCore = (module, imports) => {
        const instance = new WebAssembly.Instance(module, imports);
        for (const value of Object.values(instance.exports)) {
          if (value instanceof WebAssembly.Memory) memories.push(value);
        }
        return instance;
      };
      const root = instantiate(byName, {}, instantiateCore);
      this.#live = { policy: root.policy, records: root.records, gate: root.gate, engines: new Map(), flows: new Map(), memories };
      this.#generation += 1;
    }
    return this.#live;
  }

  /**
   * Runs `f` on the live instance. A trap (any exception that is not the
   * component's own `err` answer) discards the instance; the next call gets a
   * fresh one.
   */
  #call(f) {
    this.#crossings += 1;
    const live = this.#instance();
    try {
      return { ok: true, value: f(live) };
    } catch (e) {
      const payload = errorPayload(e);
      if (payload !== null) return { ok: false, rejected: payload, payload: e.payload };
      this.#live = null;
      return { ok: false, fault: faultKind(e) };
    }
  }

  /**
   * Usage figures for monitoring: the live instance's linear memory in bytes
   * (0 before the first call or right after a fault) and the live engines.
   *
   * `crossings` counts the calls into the component so far.
   *
   * @returns {{memoryBytes: number, engines: number, flows: number, crossings: number}}
   */
  stats() {
    const memoryBytes = (this.#live?.memories ?? []).reduce((sum, m) => sum + m.buffer.byteLength, 0);
    return { memoryBytes, engines: this.#configs.size, flows: this.#flows.size, crossings: this.#crossings };
  }

  /** @internal the engine handle for `id` in the live instance */
  _engineHandle(live, id) {
    let handle = live.engines.get(id);
    if (handle === undefined) {
      const config = this.#configs.get(id);
      // Accepted before, so a refusal now means the instance is broken: let it
      // surface as a fault.
      handle = live.policy.Engine.create(config);
      live.engines.set(id, handle);
    }
    return handle;
  }

  /** @internal */
  _callEngine(id, f) {
    if (!this.#configs.has(id)) throw new ToolgateError('this engine was disposed');
    return this.#call((live) => f(this._engineHandle(live, id)));
  }

  /** @internal */
  _dispose(id) {
    this.#configs.delete(id);
    const handle = this.#live?.engines.get(id);
    if (handle !== undefined) {
      this.#live.engines.delete(id);
      try {
        handle[Symbol.dispose]?.();
      } catch {
        // An instance that cannot drop a handle is discarded on its next fault.
      }
    }
  }

  /**
   * The approval flow of one gate (the component's `gate` interface): the
   * policy `config` (JSON text or object), the gate's `settings` (JSON text
   * or object: `identity`, and optionally `timeout_ms`, `tool_timeouts`,
   * `shadow`, `audit`, `audit_required`) and its keys (at least 16 bytes
   * each). Throws `RejectedError` with the component's message when they are
   * refused.
   *
   * @param {string | object} config
   * @param {string | object} settings
   * @param {{checkpointKey?: string | Uint8Array, auditKey?: string | Uint8Array}} [keys]
   * @returns {Flow}
   */
  flow(config, settings, keys = {}) {
    const making = [asText(config, 'config'), asText(settings, 'settings'), keyBytes(keys.checkpointKey), keyBytes(keys.auditKey)];
    const id = ++this.#nextId;
    const r = this.#call((live) => {
      live.flows.set(id, live.gate.Flow.create(...making));
    });
    if (r.rejected !== undefined) throw new RejectedError(r.rejected);
    if (r.fault !== undefined) throw new PolicyFaultError(r.fault);
    this.#flows.set(id, making);
    return new Flow(this, id);
  }

  /** @internal one step of flow `id`: its text, or a `StepError` thrown */
  _callFlow(id, f) {
    const making = this.#flows.get(id);
    if (making === undefined) throw new ToolgateError('this flow was disposed');
    const r = this.#call((live) => {
      let handle = live.flows.get(id);
      if (handle === undefined) {
        // Accepted before: a refusal now means the instance is broken.
        handle = live.gate.Flow.create(...making);
        live.flows.set(id, handle);
      }
      return f(handle);
    });
    if (r.ok) return r.value;
    if (r.rejected !== undefined) throw stepErrorOf(r.payload);
    throw new PolicyFaultError(r.fault);
  }

  /** @internal */
  _disposeFlow(id) {
    this.#flows.delete(id);
    const handle = this.#live?.flows.get(id);
    if (handle !== undefined) {
      this.#live.flows.delete(id);
      try {
        handle[Symbol.dispose]?.();
      } catch {
        // An instance that cannot drop a handle is discarded on its next fault.
      }
    }
  }

  /**
   * Decides one call under the default configuration. Never throws for any
   * `args`: unreadable arguments and faults are answered `confirm`.
   *
   * @param {string} tool the tool's name
   * @param {unknown} args the arguments: JSON text as the model sent it, or
   *   any value, serialised (`undefined` is `{}`; a value JSON cannot hold is
   *   answered `confirm` with `args.invalid`)
   * @returns {Decision}
   */
  assess(tool, args) {
    const text = argsText(args);
    const r = this.#call((live) => live.policy.assess(nameText(tool), text));
    return r.ok ? decisionFrom(r.value) : faultDecision(tool, r.fault ?? r.rejected);
  }

  /**
   * A policy with this configuration (JSON text or an object). Throws
   * `RejectedError` naming the offending field.
   *
   * @param {string | object} [config]
   * @returns {Engine}
   */
  engine(config = {}) {
    const text = asText(config, 'config');
    const id = ++this.#nextId;
    const r = this.#call((live) => {
      const handle = live.policy.Engine.create(text);
      live.engines.set(id, handle);
    });
    if (r.rejected !== undefined) throw new RejectedError(r.rejected);
    if (r.fault !== undefined) throw new PolicyFaultError(r.fault);
    this.#configs.set(id, text);
    return new Engine(this, id);
  }

  /**
   * Reads a tool call in any supported wire format: an OpenAI Chat Completions
   * `tool_calls` item, an OpenAI Responses `function_call` item, an Anthropic
   * `tool_use` block, MCP `tools/call` params (or the request), a Gemini
   * `functionCall`, an AI SDK tool call (`{toolName, input, toolCallId}`), or
   * `{tool, args}`. Throws `RejectedError` only when no tool name can be
   * found; malformed arguments are kept for `assess`.
   *
   * @param {string | object} call
   * @returns {ToolCall}
   */
  parseCall(call) {
    const text = asText(call, 'call');
    const c = unwrap(this.#call((live) => live.policy.parseCall(text)));
    return { tool: c.tool, args: c.args, id: c.id ?? null, format: c.format };
  }

  /**
   * The arguments a tool really receives: `risk_level` removed, nothing else
   * changed. Throws `RejectedError` when `args` is not a JSON object.
   *
   * @param {string | object} args
   * @returns {string}
   */
  stripRiskLevel(args) {
    const text = asText(args, 'args');
    return unwrap(this.#call((live) => live.policy.stripRiskLevel(text)));
  }

  /**
   * The hook answer when no engine could be made for `toolgate hook FORMAT`
   * (`error`: why the configuration is missing or refused): the agent's "ask"
   * with the error as the reason, exit 0, made by the component so every CLI
   * answers alike. Throws `RejectedError` for an unknown format.
   *
   * @param {string} format
   * @param {string} error
   * @returns {{output: string, error: string | null, exit: number}}
   */
  hookUnconfigured(format, error) {
    const a = unwrap(this.#call((live) => live.policy.hookUnconfigured(String(format), String(error))));
    return { output: a.output, error: a.error ?? null, exit: a.exit };
  }

  /**
   * The prompt guidance for the model.
   *
   * @param {string} [language] `en` (default) or `zh`
   * @returns {string}
   */
  guidance(language = 'en') {
    return unwrap(this.#call((live) => live.policy.guidance(String(language))));
  }

  /** @returns {string} the policy's version */
  version() {
    return unwrap(this.#call((live) => live.policy.version()));
  }

  /**
   * Writes the checkpoint of a pending approval (an object or JSON with `id`,
   * `session_id`, `user_id`, `tool`, `description`, `args`, `call_id`,
   * `decision`, `requested_at`, `deadline`), signed with HMAC-SHA-256 when a
   * key is given. The bytes are the same in every host.
   *
   * @param {string | object} pending
   * @param {string | Uint8Array} [key]
   * @returns {string}
   */
  sealCheckpoint(pending, key) {
    const text = asText(pending, 'pending');
    const k = keyBytes(key);
    return this.#records((r) => r.sealCheckpoint(text, k), checkpointError);
  }

  /**
   * Reads a checkpoint; returns its pending approval as canonical JSON. With a
   * key, the checkpoint must be signed with it. Throws `CheckpointError`.
   *
   * @param {string} checkpoint
   * @param {string | Uint8Array} [key]
   * @returns {string}
   */
  openCheckpoint(checkpoint, key) {
    const text = String(checkpoint);
    const k = keyBytes(key);
    return this.#records((r) => r.openCheckpoint(text, k), checkpointError);
  }

  /**
   * Seals an audit entry (an object or JSON) as the line after `previous`, the
   * log's last line: adds `seq`, `prev` and `hash`.
   *
   * @param {string | object} entry
   * @param {string | null} [previous]
   * @returns {string}
   */
  sealAudit(entry, previous) {
    const text = asText(entry, 'entry');
    const prev = previous === undefined || previous === null ? undefined : String(previous);
    return this.#records((r) => r.sealAudit(text, prev), (p) => new RejectedError(String(p)));
  }

  /**
   * Seals an audit entry as the line after `previous` in a keyed chain: the
   * `hash` is an HMAC-SHA-256 under `key` (at least 16 bytes).
   *
   * @param {string | object} entry
   * @param {string | null | undefined} previous
   * @param {string | Uint8Array} key
   * @returns {string}
   */
  sealAuditKeyed(entry, previous, key) {
    const text = asText(entry, 'entry');
    const prev = previous === undefined || previous === null ? undefined : String(previous);
    const k = keyBytes(key) ?? new Uint8Array(0);
    return this.#records((r) => r.sealAuditKeyed(text, prev, k), (p) => new RejectedError(String(p)));
  }

  /**
   * Verifies a keyed audit log: every hash must be the HMAC under `key`.
   * Throws `AuditBrokenError` naming the first broken line.
   *
   * @param {string} log
   * @param {string | Uint8Array} key
   * @returns {{records: number, head: string}}
   */
  verifyAuditKeyed(log, key) {
    const text = String(log);
    const k = keyBytes(key) ?? new Uint8Array(0);
    const s = this.#records((r) => r.verifyAuditKeyed(text, k), (p) => new AuditBrokenError(p.line, p.reason));
    return { records: Number(s.records), head: s.head };
  }

  /**
   * Verifies a whole audit log (JSON Lines). Throws `AuditBrokenError` naming
   * the first broken line.
   *
   * @param {string} log
   * @returns {{records: number, head: string}}
   */
  verifyAudit(log) {
    const text = String(log);
    const s = this.#records((r) => r.verifyAudit(text), (p) => new AuditBrokenError(p.line, p.reason));
    return { records: Number(s.records), head: s.head };
  }

  /**
   * Whether a person's answer to the `sealed` decision still covers the
   * policy's `current` decision on the same call (both decision objects or
   * their canonical JSON): `'stands'`, `'denied'` or `'changed'`.
   *
   * @param {string | object} sealed
   * @param {string | object} current
   * @returns {'stands' | 'denied' | 'changed'}
   */
  recheck(sealed, current) {
    const a = asText(sealed, 'sealed');
    const b = asText(current, 'current');
    return this.#records((r) => r.recheck(a, b), (p) => new RejectedError(String(p)));
  }

  /**
   * The hash a checkpoint binds of a configuration (JSON text or object);
   * formatting and key order do not change it.
   *
   * @param {string | object} config
   * @returns {string}
   */
  configHash(config) {
    const text = asText(config, 'config');
    return unwrap(this.#call((live) => live.records.configHash(text)));
  }

  /**
   * The changes a person's edit made to a call's arguments: JSON text of
   * `[{path, before, after}]` with JSON Pointer paths.
   *
   * @param {string | object} before
   * @param {string | object} after
   * @returns {string}
   */
  argsDiff(before, after) {
    const b = argsText(before);
    const a = asText(after, 'after');
    return this.#records((r) => r.argsDiff(b, a), (p) => new RejectedError(String(p)));
  }

  /**
   * A registry API's response as a result for the model: `{ok: true, result}`
   * (the `dat` of a `{dat, error}` envelope, plain JSON or text) or `{ok: false,
   * error}` (a non-empty `error`, a status outside 2xx).
   *
   * @param {number} status
   * @param {string} body
   * @returns {{ok: true, result: string} | {ok: false, error: string}}
   */
  readResponse(status, body) {
    const code = Math.max(0, Math.min(Number(status) | 0, 65535));
    const text = String(body);
    const r = this.#call((live) => live.policy.readResponse(code, text));
    if (r.ok) return { ok: true, result: r.value };
    if (r.rejected !== undefined) return { ok: false, error: String(r.payload) };
    throw new PolicyFaultError(r.fault);
  }

  /**
   * Registry entries and tool definitions from an OpenAPI 3 or Swagger 2
   * document: `{tools, definitions, summary, notes}`. `spec` is the document as
   * JSON text or a parsed object (read YAML with a YAML parser first);
   * `options` selects operations by tag or operation id (`only`, `exclude`)
   * and sets a `category`. Throws `RejectedError` for a document or options
   * the import refuses.
   *
   * @param {string | object} spec
   * @param {{only?: string[], exclude?: string[], category?: string}} [options]
   * @returns {{tools: Record<string, object>, definitions: object[], summary: string[], notes: string[]}}
   */
  importOpenapi(spec, options = {}) {
    return JSON.parse(this.importOpenapiJson(asText(spec, 'spec'), JSON.stringify(options ?? {})));
  }

  /**
   * `importOpenapi` as the component's exact JSON text (what the CLIs print
   * from), for JSON text in.
   *
   * @param {string} spec
   * @param {string} options JSON text
   * @returns {string}
   */
  /**
   * `layerConfig` as the component's exact JSON text, for JSON text in.
   *
   * @param {string} layers
   * @returns {string}
   */
  layerConfigJson(layers) {
    const text = String(layers);
    return unwrap(this.#call((live) => live.policy.layerConfig(text)));
  }

  /**
   * Layered configuration: `layers` (`[{layer: 'managed' | 'project' |
   * 'user', config: text}]`) merged into the configuration a policy runs with
   * (denials and rules accumulate, a denied tool is never auto-approved, the
   * rest comes whole from the highest layer), with one line per effective
   * setting saying where it came from. Pass `config` to `policy.engine` or a
   * gate. Throws `RejectedError` naming the layer at fault.
   *
   * @param {Array<{layer: 'managed' | 'project' | 'user', config: string | object}>} layers
   * @returns {{config: string, explain: string[]}}
   */
  layerConfig(layers) {
    const list = Array.from(layers, (l) => ({ layer: String(l.layer), config: asText(l.config, 'config') }));
    return JSON.parse(this.layerConfigJson(JSON.stringify(list)));
  }

  importOpenapiJson(spec, options) {
    const s = String(spec);
    const o = String(options);
    return unwrap(this.#call((live) => live.policy.importOpenapi(s, o)));
  }

  #records(f, refused) {
    const r = this.#call((live) => f(live.records));
    if (r.ok) return r.value;
    if (r.rejected !== undefined) throw refused(r.payload);
    throw new PolicyFaultError(r.fault);
  }
}

function unwrap(r) {
  if (r.ok) return r.value;
  if (r.rejected !== undefined) throw new RejectedError(r.rejected);
  throw new PolicyFaultError(r.fault);
}

/**
 * A policy with one deployment's configuration. Call `dispose()` (or use
 * `using`) when done.
 */
export class Engine {
  #policy;
  #id;

  constructor(policy, id) {
    this.#policy = policy;
    this.#id = id;
  }

  /**
   * Decides one call under this configuration, optionally in the caller's
   * context (`{permissions: [...]}`: the permissions the user holds). Never
   * throws for any `args`; throws `ToolgateError` only when the engine was
   * disposed.
   *
   * @param {string} tool
   * @param {unknown} args JSON text, or any value (see `Policy.assess`)
   * @param {string | object} [context]
   * @returns {Decision}
   */
  assess(tool, args, context) {
    const text = argsText(args);
    const name = nameText(tool);
    const r =
      context === undefined
        ? this.#policy._callEngine(this.#id, (handle) => handle.assess(name, text))
        : this.#policy._callEngine(this.#id, (handle) => handle.assessIn(name, text, argsText(context)));
    return r.ok ? decisionFrom(r.value) : faultDecision(tool, r.fault ?? r.rejected);
  }

  /**
   * Decides a tool call given in any supported wire format (see
   * `Policy.parseCall`). Never throws for any call: one without a tool name is
   * answered `confirm` with `call.invalid`.
   *
   * @param {unknown} call JSON text, or the call object as an SDK hands it
   * @returns {Decision}
   */
  assessCall(call) {
    const text = argsText(call);
    const r = this.#policy._callEngine(this.#id, (handle) => handle.assessCall(text));
    return r.ok ? decisionFrom(r.value) : faultDecision('(tool call)', r.fault ?? r.rejected);
  }

  /**
   * Reads, decides and formats line `number` (1-based) of a JSON Lines input,
   * given as its bytes without the `\n`: `null` for a blank line (only JSON
   * whitespace), else `{output, action}` — the text to print (the decision's
   * canonical JSON, or `{"line": N, "error": "…"}`) and the action (`null` for
   * a malformed line). The component decides what is blank or malformed, so
   * every runtime prints the same; one crossing per line. Never throws for any
   * bytes: a fault is a `confirm` decision.
   *
   * @param {number} number
   * @param {Uint8Array} line
   * @returns {{output: string, action: 'allow' | 'confirm' | 'deny' | null} | null}
   */
  checkLine(number, line) {
    const r = this.#policy._callEngine(this.#id, (handle) => handle.checkLine(BigInt(number), line));
    if (!r.ok) {
      const decision = faultDecision('(tool call)', r.fault ?? r.rejected);
      return { output: decisionJson(decision), action: decision.action };
    }
    if (r.value === undefined || r.value === null) return null;
    return { output: r.value.output, action: r.value.action ?? null };
  }

  /**
   * `checkLine` in the caller's context (JSON text or an object: the
   * user's permissions, roles and resources).
   *
   * @param {number} number
   * @param {Uint8Array} line
   * @param {string | object} context
   * @returns {{output: string, action: 'allow' | 'confirm' | 'deny' | null} | null}
   */
  checkLineIn(number, line, context) {
    const text = argsText(context);
    const r = this.#policy._callEngine(this.#id, (handle) => handle.checkLineIn(BigInt(number), line, text));
    if (!r.ok) {
      const decision = faultDecision('(tool call)', r.fault ?? r.rejected);
      return { output: decisionJson(decision), action: decision.action };
    }
    if (r.value === undefined || r.value === null) return null;
    return { output: r.value.output, action: r.value.action ?? null };
  }

  /**
   * Decides every step of seed 002's multi-step plan (§4.2) with the results
   * known so far (`results`: step number → result) in the caller's context.
   * A step holding a reference to a result not known yet is never allowed.
   * Returns the plan's decision as the component wrote it (snake_case, as
   * JSON); throws `ToolgateError` when the plan cannot be read.
   *
   * @param {string | object} plan
   * @param {object} [results]
   * @param {string | object} [context]
   * @returns {object}
   */
  assessPlan(plan, results = {}, context = '') {
    const text = typeof plan === 'string' ? plan : JSON.stringify(plan);
    const known = typeof results === 'string' ? results : JSON.stringify(results ?? {});
    const ctx = context === '' || context === undefined || context === null ? '' : argsText(context);
    const r = this.#policy._callEngine(this.#id, (handle) => handle.assessPlan(text, known, ctx));
    if (r.ok) return JSON.parse(r.value);
    if (r.rejected !== undefined) throw new ToolgateError(String(r.payload));
    throw new PolicyFaultError(r.fault);
  }

  /**
   * Seed 002 §4.3's argument completion for registry tool `tool`: argument
   * names mapped by the tool's `argument_names`, parameters left out filled
   * from the context's `defaults`, a `duration` (seconds) turned into
   * `btime`/`etime` from `nowMs` (the caller's clock). Returns the completed
   * arguments as JSON text; throws `RequestError` listing every
   * contradiction.
   *
   * @param {string} tool
   * @param {unknown} args
   * @param {string | object} [context]
   * @param {number} [nowMs]
   * @returns {string}
   */
  completeArgs(tool, args, context = '', nowMs = Date.now()) {
    const text = argsText(args);
    const ctx = context === '' || context === undefined || context === null ? '' : argsText(context);
    const now = BigInt(Math.max(0, Math.floor(Number(nowMs))));
    const r = this.#policy._callEngine(this.#id, (handle) => handle.completeArgs(String(tool), text, ctx, now));
    if (r.ok) return r.value;
    if (r.payload !== undefined && Array.isArray(r.payload)) {
      throw new RequestError(r.payload.map((f) => ({ code: f.code, message: f.message })));
    }
    throw new PolicyFaultError(r.fault ?? r.rejected);
  }

  /**
   * Decides many calls in one crossing into the component: each an array
   * `[tool, args]` or an object `{tool, args}`. The decisions come back in the
   * same order and equal those of `assess`; the per-call glue is paid once,
   * which is the fast path for a model turn with several tool calls. Never
   * throws for any arguments; a fault answers every call `confirm`.
   *
   * @param {Iterable<[string, unknown] | {tool: string, args?: unknown}>} calls
   * @returns {Decision[]}
   */
  assessMany(calls) {
    const pairs = [...calls].map((call) =>
      Array.isArray(call) ? [nameText(call[0]), argsText(call[1])] : [nameText(call?.tool), argsText(call?.args)],
    );
    const r = this.#policy._callEngine(this.#id, (handle) => handle.assessMany(pairs));
    if (r.ok && r.value.length === pairs.length) return r.value.map(decisionFrom);
    const cause = r.ok ? `${r.value.length} decisions for ${pairs.length} calls` : (r.fault ?? r.rejected);
    return pairs.map(([tool]) => faultDecision(tool, cause));
  }

  /**
   * The enabled API and MCP tools of this configuration that match a user's
   * intent (keywords in any language, name, display name, description), best
   * first. `options.category` keeps one category; `options.limit` (default 0:
   * all) caps the list.
   *
   * @param {string} intent
   * @param {{category?: string, limit?: number}} [options]
   * @returns {Candidate[]}
   */
  discover(intent, options = {}) {
    const limit = Math.max(0, Math.min(Number(options.limit ?? 0) | 0, 0xffffffff));
    const found = unwrap(
      this.#policy._callEngine(this.#id, (handle) => handle.discover(String(intent), options.category ?? undefined, limit)),
    );
    return found.map((c) => ({
      name: c.name,
      displayName: c.displayName,
      description: c.description,
      category: c.category ?? null,
      riskLevel: c.riskLevel,
      score: c.score,
      matched: [...c.matched],
    }));
  }

  /**
   * The named tools as a numbered list for the model (display name,
   * description, risk level, example), in `language` (`en` or `zh`).
   *
   * @param {string[]} tools
   * @param {string} [language]
   * @returns {string}
   */
  toolPrompt(tools, language = 'en') {
    const names = [...tools].map(String);
    return unwrap(this.#policy._callEngine(this.#id, (handle) => handle.toolPrompt(names, String(language))));
  }

  /**
   * The HTTP request for calling registry tool `tool` with `args`, without
   * base URL or credentials. Throws `RequestError` (its `findings` list every
   * reason) when parameters are missing or one would change the path; nothing
   * is to be sent then.
   *
   * @param {string} tool
   * @param {unknown} args JSON text, or any value (see `Policy.assess`)
   * @returns {ApiRequest}
   */
  buildRequest(tool, args) {
    const text = argsText(args);
    const r = this.#policy._callEngine(this.#id, (handle) => handle.buildRequest(String(tool), text));
    if (r.ok) {
      const q = r.value;
      return { method: q.method, path: q.path, query: q.query.map(([k, v]) => [k, v]), url: q.url, body: q.body ?? null };
    }
    if (r.payload !== undefined && Array.isArray(r.payload)) {
      throw new RequestError(r.payload.map((f) => ({ code: f.code, message: f.message })));
    }
    throw new PolicyFaultError(r.fault ?? r.rejected);
  }

  /**
   * `Policy.readResponse` for registry tool `tool`: rendered through the
   * tool's `response_template` when it has one.
   *
   * @param {string} tool
   * @param {number} status
   * @param {string} body
   * @returns {{ok: true, result: string} | {ok: false, error: string}}
   */
  readToolResponse(tool, status, body) {
    const code = Math.max(0, Math.min(Number(status) | 0, 65535));
    const text = String(body);
    const r = this.#policy._callEngine(this.#id, (handle) => handle.readToolResponse(String(tool), code, text));
    if (r.ok) return { ok: true, result: r.value };
    if (r.rejected !== undefined) return { ok: false, error: String(r.payload) };
    throw new PolicyFaultError(r.fault);
  }

  /**
   * Adds the optional `risk_level` parameter to tool definitions (an array, or
   * a request body with a `tools` array). `format` forces `openai-chat`,
   * `openai-responses`, `anthropic`, `mcp` or `gemini`; by default each tool's
   * format is recognised. Returns the definitions in the form they came in
   * (JSON text for text; for an object or array, a new one, ready to hand to
   * an SDK) and notes on tools left alone.
   *
   * @param {string | object} tools
   * @param {string} [format]
   * @returns {{tools: string | object, notes: string[]}}
   */
  augmentTools(tools, format) {
    const text = asText(tools, 'tools');
    const a = unwrap(this.#policy._callEngine(this.#id, (handle) => handle.augmentTools(text, format ?? undefined)));
    // The component works on text; what it returns for JSON text is JSON text.
    return { tools: typeof tools === 'string' ? a.tools : JSON.parse(a.tools), notes: [...a.notes] };
  }

  /**
   * Answers one coding agent's before-tool hook event of `format`
   * (`claude-code`, `gemini-cli`), given as the bytes read from standard
   * input: `output` in the agent's documented shape, `error` (a line for
   * standard error, or `null`) when the event could not be read and is
   * answered "ask", and the `exit` code. The component makes the answer, so
   * every runtime prints the same bytes. Throws `RejectedError` for an
   * unknown format.
   *
   * @param {string} format
   * @param {Uint8Array} event
   * @returns {{output: string, error: string | null, exit: number}}
   */
  hook(format, event) {
    const bytes = event instanceof Uint8Array ? event : new TextEncoder().encode(String(event));
    const a = unwrap(this.#policy._callEngine(this.#id, (handle) => handle.hook(String(format), bytes)));
    return { output: a.output, error: a.error ?? null, exit: a.exit };
  }

  /** Frees the engine in the component. */
  dispose() {
    this.#policy._dispose(this.#id);
  }

  [Symbol.dispose]() {
    this.dispose();
  }
}

export * from './gate.js';
export { Flow, StepError } from './flow.js';
export * from './registry.js';
export * from './seeds.js';
export * from './plan.js';
