// Types for the toolgate package. The WIT interface (wit/toolgate.wit) is the
// contract; these are its JavaScript shapes.
//
// They compile without the DOM library (a Node-only project with `lib:
// ["es2022"]` and `types: ["node"]`) as well as with it: web types that Node's
// declarations lack are written out here (`WebStorage`, `CoreModule`,
// `GateListenerOptions`). `npm run typecheck` checks both.

// The shapes of the component's values and of the JSON it reads and writes
// are generated from the WIT and the Rust types (src/shapes.d.ts, by
// scripts/gen-types.js); what is written here is the package's own API: the
// classes and functions that wrap the component, whose arguments JavaScript
// callers may pass as text or as objects, the errors the package throws, and
// the gate, stores and sinks, which live in JavaScript and have no WIT.
import type {
  Action,
  ApiRequest,
  Candidate,
  CheckedLine,
  Config,
  Context,
  Decision,
  Finding,
  Grant,
  GrantScope,
  HookAnswer,
  Imported,
  PendingRecord,
  PlanDecision,
  PlanStep,
  Rule,
  ToolCall,
} from './shapes.js';
export * from './shapes.js';

/** A tool-definition format for `augmentTools`. */
export type ToolFormat = 'openai-chat' | 'openai-responses' | 'anthropic' | 'mcp' | 'gemini';

/** A source of the toolgate component. */
export type ComponentSource = URL | string | ArrayBuffer | ArrayBufferView | Response | Promise<Response>;

/**
 * A compiled core module (a `WebAssembly.Module`). Written as `object`: Node's
 * declarations have no `WebAssembly` namespace, and the DOM library's
 * `Module` has no members to check anyway.
 */
export type CoreModule = object;

/** The component shipped with this package. */
export const DEFAULT_COMPONENT_URL: URL;

/** The finding code of a decision the host made because the policy faulted. */
export const POLICY_FAULT: 'policy.fault';

/** Loads the policy (the shipped component by default). */
export function loadPolicy(source?: ComponentSource): Promise<Policy>;

/** The canonical JSON form of a parsed tool call, byte-identical in every runtime. */
export function toolCallJson(call: ToolCall): string;

/** The canonical JSON form of a decision, byte-identical in every runtime. */
export function decisionJson(decision: Decision): string;

/** The toolgate policy, loaded and ready. Calls are synchronous. */
export class Policy {
  constructor(modules: CoreModule[]);
  /**
   * Decides one call under the default configuration; never throws. `args` is
   * JSON text as the model sent it, or any value (what an SDK types as
   * `unknown`), serialised; `undefined` is a call without arguments (`{}`).
   * A value JSON cannot hold (a cycle, a BigInt, a function) is answered
   * `confirm` with `args.invalid`.
   */
  assess(tool: string, args: unknown): Decision;
  /** A policy with this configuration; throws RejectedError naming the field. */
  engine(config?: string | Config): Engine;
  /** Reads a tool call in any supported wire format; throws RejectedError without a tool name. */
  parseCall(call: string | object): ToolCall;
  /** The arguments a tool really receives: `risk_level` removed. */
  stripRiskLevel(args: string | object): string;
  /**
   * The hook answer when no engine could be made (a missing or refused
   * configuration): the agent's "ask" with the error, exit 0; throws
   * `RejectedError` for an unknown format.
   */
  hookUnconfigured(format: string, error: string): { output: string; error: string | null; exit: number };
  /** The prompt guidance for the model, `en` (default) or `zh`. */
  guidance(language?: string): string;
  /** The policy's version. */
  version(): string;
  /** Usage figures: the live instance's linear memory in bytes, the live engines and flows, and the calls into the component so far. */
  stats(): { memoryBytes: number; engines: number; flows: number; crossings: number };
  /**
   * The approval flow of one gate (the component's `gate` interface): each
   * method one crossing, returning the component's JSON text.
   */
  flow(config: string | Config, settings: string | object, keys?: { checkpointKey?: string | Uint8Array; auditKey?: string | Uint8Array }): Flow;
  /** Writes the checkpoint of a pending approval, signed when a key is given. */
  sealCheckpoint(pending: string | PendingRecord, key?: string | Uint8Array): string;
  /** Reads a checkpoint (throws `CheckpointError`); returns its pending approval as canonical JSON. */
  openCheckpoint(checkpoint: string, key?: string | Uint8Array): string;
  /** Seals an audit entry as the line after `previous`. */
  sealAudit(entry: string | object, previous?: string | null): string;
  /** A registry API's response as a result (or an error) for the model. */
  readResponse(status: number, body: string): { ok: true; result: string } | { ok: false; error: string };
  /** Registry entries and tool definitions from an OpenAPI 3 or Swagger 2 document (JSON text or object). */
  importOpenapi(spec: string | object, options?: ImportOptions): Imported;
  /** Layered configuration merged, with where each effective setting came from. */
  layerConfig(layers: Array<{ layer: 'managed' | 'project' | 'user'; config: string | object }>): { config: string; explain: string[] };
  /** `layerConfig` as the component's exact JSON text. */
  layerConfigJson(layers: string): string;
  /** `importOpenapi` as the component's exact JSON text. */
  importOpenapiJson(spec: string, options: string): string;
  /** Verifies an audit log (JSON Lines); throws `AuditBrokenError` at the first broken line. */
  verifyAudit(log: string): { records: number; head: string };
  /** The changes an edit made to a call's arguments, as JSON `[{path, before, after}]`. */
  argsDiff(before: string | object, after: string | object): string;
  /** Whether an answer to `sealed` still covers the `current` decision. */
  recheck(sealed: string | object, current: string | object): 'stands' | 'denied' | 'changed';
  /** Seals an audit entry in a keyed chain (HMAC under `key`, at least 16 bytes). */
  sealAuditKeyed(entry: string | object, previous: string | null | undefined, key: string | Uint8Array): string;
  /** Verifies a keyed audit log. */
  verifyAuditKeyed(log: string, key: string | Uint8Array): { records: number; head: string };
  /** The hash a checkpoint binds of a configuration. */
  configHash(config: string | object): string;
}

/** A policy with one deployment's configuration. */
export class Engine {
  private constructor();
  /**
   * Decides one call under this configuration, optionally in the caller's
   * context; never throws. `args` as in `Policy.assess`.
   */
  assess(tool: string, args: unknown, context?: string | Context): Decision;
  /** Decides a tool call in any supported wire format; never throws. */
  assessCall(call: unknown): Decision;
  /**
   * Reads, decides and formats line `number` (1-based) of a JSON Lines input
   * (its bytes without the newline): `null` for a blank line, else the text to
   * print and the action (`null` for a malformed line). Never throws.
   */
  checkLine(number: number, line: Uint8Array): CheckedLine | null;
  /**
   * `checkLine` in the caller's context (JSON text or an object: the user's
   * permissions, roles and resources); a line may hold a whole plan.
   */
  checkLineIn(number: number, line: Uint8Array, context: string | Context): CheckedLine | null;
  /**
   * Decides every step of a multi-step plan (seed 002 §4.2: steps, their
   * `depends_on` and `$stepN.result…` references) with the results known so
   * far (step number to result) in the caller's context. A step holding a
   * reference to a result not known yet is never allowed. Throws
   * `ToolgateError` when the plan cannot be read.
   */
  assessPlan(plan: string | object, results?: string | Record<string, unknown>, context?: string | Context): PlanDecision;
  /**
   * Argument completion for registry tool `tool` (seed 002 §4.3): names
   * mapped by the tool's `argument_names`, parameters left out filled from
   * the context's `defaults`, a `duration` turned into `btime`/`etime` from
   * `nowMs` (default: now). Returns the completed arguments as JSON text;
   * throws `RequestError` listing every contradiction.
   */
  completeArgs(tool: string, args: unknown, context?: string | Context, nowMs?: number): string;
  /**
   * Answers one coding agent's before-tool hook event (`claude-code`,
   * `gemini-cli`) in that agent's output shape; throws `RejectedError` for an
   * unknown format.
   */
  hook(format: string, event: Uint8Array | string): HookAnswer;
  /**
   * Decides many calls in one crossing into the component; the decisions are in
   * the same order and equal those of `assess`. Never throws.
   */
  assessMany(calls: Iterable<readonly [string, unknown] | { tool: string; args?: unknown }>): Decision[];
  /** The enabled API and MCP tools that match a user's intent, best first. */
  discover(intent: string, options?: { category?: string; limit?: number }): Candidate[];
  /** The named tools as a numbered list for the model. */
  toolPrompt(tools: string[], language?: 'en' | 'zh' | string): string;
  /** The HTTP request for a registry API tool call; throws `RequestError`. */
  buildRequest(tool: string, args: unknown): ApiRequest;
  /** `Policy.readResponse` rendered through the tool's `response_template`, if any. */
  readToolResponse(tool: string, status: number, body: string): { ok: true; result: string } | { ok: false; error: string };
  /**
   * Adds the optional `risk_level` parameter to tool definitions (an array, or
   * a request body with `tools`), returned in the form they came in: JSON text
   * for text, a new object or array for an object or array.
   */
  augmentTools(tools: string, format?: ToolFormat): { tools: string; notes: string[] };
  augmentTools<T extends object>(tools: T, format?: ToolFormat): { tools: T; notes: string[] };
  /** Frees the engine in the component. */
  dispose(): void;
  [Symbol.dispose](): void;
}

/** The base class of every error this package throws. */
export class ToolgateError extends Error {}
/** The component could not be loaded. */
export class LoadError extends ToolgateError {}
/** The policy refused an input; the message names the field. */
export class RejectedError extends ToolgateError {}
/** The component trapped or failed; the next call gets a fresh instance. */
export class PolicyFaultError extends ToolgateError {}
/** A checkpoint was refused. */
export class CheckpointError extends ToolgateError {
  kind: 'invalid' | 'format' | 'unsigned' | 'forged';
}
/** An audit log failed verification. */
export class AuditBrokenError extends ToolgateError {
  line: number;
  reason: string;
}

// The seeds' own vocabulary (src/seeds.js): seed 004's events, seed 000 §F's loop.
export * from './seeds.js';

// The approval gate (src/gate.js).

/** The default time a person has to answer, in ms. */
export const DEFAULT_TIMEOUT_MS: number;

/** A gate operation was refused. */
export class GateError extends ToolgateError {
  code: 'unknown' | 'already-answered' | 'invalid-edit' | 'checkpoint' | 'key' | 'audit';
}

/** A tool call to run through the gate. */
export interface GateCall {
  tool: string;
  args: string | object;
  callId?: string | null;
  description?: string;
  sessionId?: string | null;
  userId?: string | null;
  context?: string | Context | null;
}

/** A pending approval, as shown to a person. */
export interface ApprovalRequest {
  id: string;
  sessionId: string | null;
  userId: string | null;
  tool: string;
  description: string;
  /** The arguments as the model sent them. */
  args: string;
  callId: string | null;
  decision: Decision;
  requestedAt: number;
  deadline: number;
  /** The caller's context the decision was made in (JSON), if any. */
  context: string | null;
  /** The hash of the configuration the decision was made under. */
  configHash: string;
  /** The identity of the gate that asked. */
  gate: string;
  /**
   * The narrowest allow rules that cover this call: what "for this session"
   * or "always" grants unless the response passes narrower ones. Empty: no
   * grant may cover it, and a dialog must not offer one.
   */
  proposed: Rule[];
}

/** A grant as `Gate.grants` lists it. */
export type GrantListing = { ok: true; id: string; grant: Grant } | { ok: false; id: string; error: string };

/** A person's answer. */
export type ApprovalResponse = {
  answer: 'approve' | 'reject' | 'edit';
  /** For `edit`: the arguments to run instead (a JSON object). */
  args?: string | object;
  /** For `reject`: a message for the model. */
  message?: string;
  /** An instruction to add to the conversation. */
  instruction?: string;
  /** Who answered, for the audit. */
  by?: string;
  /**
   * With `approve`: remember it ("for this session" or "always"). The rules
   * default to the request's `proposed`; narrower ones must name the call's
   * tool exactly and still cover it, else `GateError('invalid-edit')`.
   */
  remember?: GrantScope | { scope: GrantScope; rules?: Rule[]; expiresAt?: number };
};

export type Status = 'executed' | 'failed' | 'denied' | 'rejected' | 'expired' | 'cancelled';

/**
 * One gate's flow in the component (src/flow.js): `begin`, `settle` and
 * `finish` return a step's JSON text (`run`, `ask` or `done`), `open` a
 * pending approval's, `gap` an audit line. `now` is ms since the Unix epoch;
 * `previous` the audit log's last line. Throws `StepError`.
 */
export class Flow {
  begin(call: string, id: string, now: number, previous?: string | null): string;
  open(checkpoint: string): string;
  settle(checkpoint: string, answer: string, now: number, previous?: string | null): string;
  finish(ticket: string, ran: string, now: number, previous?: string | null): string;
  gap(what: string, now: number, previous?: string | null): string;
  /** A sealed grant's JSON, if this flow's key signed it and it has not expired at `now`. */
  openGrant(grant: string, now: number): string;
  /** The audit line recording that a sealed grant was revoked at `now`. */
  revoke(grant: string, now: number, previous?: string | null): string;
  dispose(): void;
  [Symbol.dispose](): void;
}

/** A step of the flow could not be taken. */
export class StepError extends ToolgateError {
  kind: 'checkpoint' | 'invalid';
  /** For `invalid`, what is wrong; for `checkpoint`, the component's detail. */
  detail: string | number | null;
  /** For `checkpoint`: the component's `{kind, detail}`. */
  checkpoint?: { kind: CheckpointError['kind']; detail: string | number | null };
}


/** What `Gate.check` decided. */
export interface CheckResult {
  decision: Decision;
  /** For `confirm`: the stored request, to answer with `Gate.settle`. */
  pending: ApprovalRequest | null;
  /** For `deny`: the refusal, recorded; hand `forModel()` to the model. */
  result: ToolResult | null;
  /** For `allow` (and shadow mode): runs the call once. */
  proceed: ((execute: Executor) => Promise<ToolResult>) | null;
}

/** What the gate tells the caller. */
export class ToolResult {
  status: Status;
  output: string | null;
  error: string | null;
  reason: string | null;
  message: string | null;
  instruction: string | null;
  decision: Decision;
  executedArgs: string | null;
  approvalId: string | null;
  auditError: string | null;
  /** The tool-result message body for the model. */
  forModel(): string;
}

/** Where pending approvals are checkpointed. */
export interface CheckpointStore {
  put(id: string, checkpoint: string): Promise<void>;
  remove(id: string): Promise<void>;
  get(id: string): Promise<string | null>;
  list(): Promise<[string, string][]>;
  /** Claims `id` once, atomically; `false` when any gate claimed it already. */
  claim(id: string, deadline: number): Promise<boolean>;
  /** Whether `id` was claimed (its tombstone is there). */
  claimed?(id: string): Promise<boolean>;
  /**
   * Takes back the claim on `id`, whose record was never written (a full log,
   * a holder that died in between): the approval is pending again.
   */
  release?(id: string): Promise<boolean>;
  /** Removes tombstones past their deadline; resolves with how many. */
  sweep?(now: number): Promise<number>;
}

/** Where audit lines go. */
export interface AuditSink {
  append(line: string): Promise<void>;
  last?(): Promise<string | null>;
  /** What was found torn and set aside, for the gate to record as a gap. */
  gap?(): Promise<string | null>;
  /**
   * Seals and appends one line under the sink's writer lock, from its own
   * last line; `seal` may be async (the gate claims inside it).
   */
  appendSealed?(seal: (previous: string | null) => string | Promise<string>): Promise<string>;
  /** Whether the log holds a record of approval `approval`, looking back to records stamped at `since`. */
  recorded?(approval: string, since?: number): Promise<boolean>;
}

export class MemoryStore implements CheckpointStore {
  put(id: string, checkpoint: string): Promise<void>;
  remove(id: string): Promise<void>;
  get(id: string): Promise<string | null>;
  list(): Promise<[string, string][]>;
  claim(id: string, deadline: number): Promise<boolean>;
  claimed(id: string): Promise<boolean>;
  release(id: string): Promise<boolean>;
  /** Removes tombstones past their deadline; resolves with how many. */
  sweep?(now: number): Promise<number>;
}

/** What `WebStorageStore` uses of a Web Storage object (`localStorage`, `sessionStorage`). */
export interface WebStorage {
  readonly length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Checkpoints in `localStorage` (or any Web Storage object). */
export class WebStorageStore implements CheckpointStore {
  constructor(storage: WebStorage, prefix?: string);
  put(id: string, checkpoint: string): Promise<void>;
  remove(id: string): Promise<void>;
  get(id: string): Promise<string | null>;
  list(): Promise<[string, string][]>;
  claim(id: string, deadline: number): Promise<boolean>;
  claimed(id: string): Promise<boolean>;
  release(id: string): Promise<boolean>;
  /** Removes tombstones past their deadline; resolves with how many. */
  sweep?(now: number): Promise<number>;
}

export class MemorySink implements AuditSink {
  lines: string[];
  append(line: string): Promise<void>;
  last(): Promise<string | null>;
}

export class CallbackSink implements AuditSink {
  constructor(f: (line: string) => unknown);
  append(line: string): Promise<void>;
  last(): Promise<string | null>;
}

export interface GateOptions {
  config?: string | Config;
  timeoutMs?: number;
  toolTimeouts?: Record<string, number> | Map<string, number>;
  shadow?: boolean;
  key?: string | Uint8Array;
  /** Checkpoints without a signature, on purpose (a store given without a key is refused otherwise). */
  unsigned?: boolean;
  /** The gate's identity, bound into its checkpoints. */
  identity?: string;
  /** Fail closed: a call whose write-ahead audit record cannot be written is not run. */
  auditRequired?: boolean;
  /** Keys the audit chain: every hash an HMAC under this key (at least 16 bytes). */
  auditKey?: string | Uint8Array;
  store?: CheckpointStore;
  audit?: AuditSink[];
  approve?: (request: ApprovalRequest) => ApprovalResponse | Promise<ApprovalResponse>;
  /** Dispatch `approval-expiring` this long (ms) before an unanswered approval's deadline. */
  warnBeforeMs?: number;
}

/** The detail of `approval-responded`: a person answered an approval. */
export interface ApprovalResponded {
  id: string;
  answer: ApprovalResponse['answer'];
  /** Who answered, if the response said. */
  by: string | null;
}

/** The detail of `approval-processed`: a call went through the gate. */
export interface ApprovalProcessed {
  /** The approval's id, or null for a call that needed none. */
  id: string | null;
  tool: string;
  status: Status;
}

/** The gate's events, by type. */
export interface GateEventMap {
  /** An approval awaits a person: show it, then `respond`. */
  'approval-requested': CustomEvent<ApprovalRequest>;
  'approval-responded': CustomEvent<ApprovalResponded>;
  'approval-processed': CustomEvent<ApprovalProcessed>;
  /** An unanswered approval nears its deadline (with the `warnBeforeMs` option). */
  'approval-expiring': CustomEvent<{ id: string; deadline: number }>;
  /** A grant passed with a call was refused (forged, unsigned, expired) and did not apply. */
  'grant-refused': CustomEvent<{ id: string | null; code: string; reason: string }>;
}

/** Options of `addEventListener`, written out: Node's declarations have no global `AddEventListenerOptions`. */
export interface GateListenerOptions {
  capture?: boolean;
  once?: boolean;
  passive?: boolean;
  signal?: AbortSignal;
}

/**
 * Runs a call the gate let through, with the arguments as JSON text. Any
 * JSON value may come back: text is the output as it is, anything else is
 * serialised.
 */
export type Executor = (args: string) => unknown;

/** The approval gate. Its events are in `GateEventMap`. */
export class Gate extends EventTarget {
  constructor(policy: Policy, options?: GateOptions);
  readonly engine: Engine;
  run(call: GateCall, execute: Executor): Promise<ToolResult>;
  pending(): Promise<({ ok: true; request: ApprovalRequest } | { ok: false; id: string; error: GateError })[]>;
  resume(id: string, execute: Executor): Promise<ToolResult>;
  /** Closes pending approvals past their deadline (expired, never run) and removes old tombstones. */
  sweep(): Promise<number>;
  /**
   * Takes back the claims a holder that died left without their record (the
   * approval is pending again), and removes the checkpoints of recorded ones;
   * resolves with how many. `pending` and `sweep` do it first.
   */
  recover(): Promise<number>;
  /** The grants of this session and of the store, each opened and checked. */
  grants(): Promise<GrantListing[]>;
  /** Revokes a grant (audited); resolves with whether there was one. */
  revoke(id: string): Promise<boolean>;
  respond(id: string, response: ApprovalResponse): void;
  cancel(id: string): void;
  /** Decides `call` now; a `confirm` is stored for `settle` (check-now / settle-later). */
  check(call: GateCall): Promise<CheckResult>;
  /** Answers a request `check` left pending (here or in another process sharing the store) and runs `execute` if allowed. */
  settle(id: string, response: ApprovalResponse, execute: Executor): Promise<ToolResult>;
  addEventListener<K extends keyof GateEventMap>(
    type: K,
    listener: ((this: Gate, event: GateEventMap[K]) => void) | { handleEvent(event: GateEventMap[K]): void } | null,
    options?: boolean | GateListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: ((event: Event) => void) | { handleEvent(event: Event): void } | null,
    options?: boolean | GateListenerOptions,
  ): void;
  removeEventListener<K extends keyof GateEventMap>(
    type: K,
    listener: ((this: Gate, event: GateEventMap[K]) => void) | { handleEvent(event: GateEventMap[K]): void } | null,
    options?: boolean | { capture?: boolean },
  ): void;
  removeEventListener(
    type: string,
    listener: ((event: Event) => void) | { handleEvent(event: Event): void } | null,
    options?: boolean | { capture?: boolean },
  ): void;
}

/** A call cannot become an HTTP request. */
export class RequestError extends ToolgateError {
  findings: Finding[];
}

export const DEFAULT_MAX_RESPONSE_BYTES: number;

/** Sends registry API requests with the caller's base URL and credentials. */
export class ApiClient {
  constructor(
    policy: Policy,
    baseUrl: string,
    options?: { headers?: Record<string, string>; timeoutMs?: number; maxResponseBytes?: number; fetch?: typeof fetch },
  );
  execute(request: Pick<ApiRequest, 'method' | 'url' | 'body'>, reader?: { engine: Engine; tool: string }): Promise<string>;
  executor(engine: Engine, tool: string): (args: string) => Promise<string>;
}

/** What an OpenAPI import takes. */
export interface ImportOptions {
  /** Keep only operations with one of these tags or operation ids. */
  only?: string[];
  /** Leave out operations with one of these tags or operation ids. */
  exclude?: string[];
  /** The category of every entry, instead of each operation's first tag. */
  category?: string;
}

// Multi-step plans through a gate (src/plan.js).

/** One step's run as every host writes it. */
export interface StepSummary {
  step: number;
  tool: string;
  /** `executed`, `failed`, `denied`, `rejected`, `expired`, `cancelled`, `skipped` or `unresolved`. */
  status: Status | 'skipped' | 'unresolved';
  /** The arguments run (after an edit), or the step's as decided. */
  args: string;
  output: string | null;
  reason: string | null;
}

/** One step of `runPlan`: its result through the gate (null when not run) and its summary. */
export interface PlanRun {
  step: number;
  tool: string;
  args: string;
  result: ToolResult | null;
  summary: StepSummary;
}

/**
 * Runs a multi-step plan (seed 002 §4.2) through `gate`, step by step: before
 * each step the plan is decided again with the results known so far
 * substituted, and the resolved call goes through `Gate.run` (decided,
 * asked about, run, audited). `execute(step, args)` runs one step's tool. A
 * step whose dependency did not succeed is skipped; one whose reference names
 * what a result lacks is not run.
 */
export function runPlan(
  gate: Gate,
  plan: string | object,
  execute: (step: PlanStep, args: string) => unknown,
  options?: { context?: string | Context },
): Promise<PlanRun[]>;

