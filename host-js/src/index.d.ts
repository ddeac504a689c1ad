// Types for the toolgate package. The WIT interface (wit/toolgate.wit) is the
// contract; these are its JavaScript shapes.
//
// They compile without the DOM library (a Node-only project with `lib:
// ["es2022"]` and `types: ["node"]`) as well as with it: web types that Node's
// declarations lack are written out here (`WebStorage`, `CoreModule`,
// `GateListenerOptions`). `npm run typecheck` checks both.

// The WIT's enums are the ones the component's bindings generate (shipped in
// gen/interfaces/): a case added to the WIT reaches these types with no edit
// here.
import type {
  Risk as WitRisk,
  Action as WitAction,
  Source as WitSource,
  CallFormat as WitCallFormat,
} from '../gen/interfaces/toolgate-policy-types.js';

/** How risky a call is judged. */
export type Risk = WitRisk;

/** What the host must do with a call. */
export type Action = WitAction;

/** Which rule of the decision order decided. */
export type Source = WitSource;

/** One reason behind a decision. */
export interface Finding {
  /** A stable dotted code, such as `sql.destructive`. */
  code: string;
  /** A sentence for people. */
  message: string;
}

/** The answer for one tool call. */
export interface Decision {
  action: Action;
  risk: Risk;
  source: Source;
  /** The model's claimed `risk_level`, or null if it sent none (or an invalid one). */
  llmRisk: Risk | null;
  /** Every reason, the deciding one first. */
  findings: Finding[];
  /** One line a confirmation dialog can show. */
  summary: string;
}

/** The configuration of one deployment; every field is optional. */
export interface Config {
  strict?: boolean;
  model_trust?: 'guarded' | 'trust';
  medium_risk?: 'confirm' | 'allow';
  denied_tools?: string[];
  auto_approved_tools?: string[];
  max_args_bytes?: number;
  /** Per-tool settings, by tool name. */
  tools?: Record<string, ToolConfig>;
  /** MCP servers by name, and whether their read-only hints are trusted. */
  mcp_servers?: Record<string, McpServer>;
  /** Registry level 2: confirm (default), notify (allow and tell the user) or inform (seed 002 §6.2: allow, `registry.inform`). */
  registry_level2?: 'confirm' | 'notify' | 'inform';
  /** `seeds`: seeds 001–004 as written (model_trust trust, medium confirm, registry level 2 inform); docs/seeds.md. */
  profile?: 'default' | 'seeds';
  /** What an outbound network read may reach: public (default), allow_hosts or confirm. */
  egress?: 'public' | 'allow_hosts' | 'confirm';
  /** Rules people write: allow, ask or deny what they match (README "Rules and modes"). */
  rules?: Rule[];
  /** How calls no rule decides are treated (seed 004's allow-list is `allowlist`). */
  mode?: 'default' | 'read-only' | 'accept-edits' | 'allowlist';
  /** How long a gate waits for an answer, in milliseconds (seed 004's `approvalTimeout`). */
  approval_timeout_ms?: number;
  /**
   * How command executors run what is allowed: confined, refused where no
   * confinement can be set up unless `unconfined: 'allow'` (unsafe); and
   * their limits: wall time in milliseconds (else two minutes), output bytes
   * (else 16 MiB), processes at once (else 256), memory bytes (else 2 GiB).
   */
  exec?: { unconfined?: 'refuse' | 'allow'; timeout_ms?: number; max_output_bytes?: number; max_processes?: number; max_memory_bytes?: number };
  /**
   * How commands are judged: `history_is_secret` counts content committed to
   * the repository's history as secret (`git log -p`, `git show`, … confirmed
   * with `command.history`); off by default (docs/configuration.md).
   */
  commands?: { history_is_secret?: boolean };
  /**
   * Managed layer only: what lower layers may not loosen (their
   * auto-approvals, allow rules, or modes and trust settings).
   */
  locks?: { auto_approved_tools?: boolean; allow_rules?: boolean; modes?: boolean };
}

/**
 * One rule: an effect, the tools it applies to (a glob on the name) and at
 * most one matcher, judged on what the assessor parsed.
 */
export interface Rule {
  /** A name the decision's finding cites (else `rules[i]`). */
  id?: string;
  effect: 'allow' | 'ask' | 'deny';
  /** Tool-name glob (`alert_*`, `mcp:github/*`). */
  tool?: string;
  /** command: an argv, word for word; a last `*` stands for further arguments. */
  command?: string[];
  /** sql: statement kinds and table globs (`audit.events`, `audit.*`). */
  sql?: { statements: string[]; tables: string[] };
  /** file: operations and path globs (`**` any depth, `*` one segment). */
  file?: { operations: string[]; paths: string[] };
  /** http: methods (empty: any but DELETE), host globs, path globs. */
  http?: { methods?: string[]; hosts: string[]; paths?: string[] };
}

/** An MCP server's settings. */
export interface McpServer {
  /** Whether a read-only hint from this server may allow a call. */
  trusted?: boolean;
}

/** The caller's context for a decision. */
export interface Context {
  /** The permissions the user holds; absent means unknown. */
  permissions?: string[];
  /**
   * The executor runs the call confined (`toolgate exec`): set by executors,
   * never by the model.
   */
  confined?: boolean;
}

/** MCP tool annotations, as `tools/list` reports them. */
export interface McpAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  title?: string;
}

/**
 * Settings for one tool: its assessor and that assessor's options. `kind` may
 * be omitted for the four built-in tools; every other field belongs to the
 * kinds its comment names (the policy refuses it on another kind). A test in
 * the policy (`policy/tests/declarations.rs`) holds these names to the ones
 * the policy accepts.
 */
export interface ToolConfig {
  /** The assessor to use. */
  kind?: 'sql' | 'command' | 'file' | 'http' | 'api' | 'mcp' | 'script';
  /** The argument holding the SQL, command line, operation (file) or URL (http). */
  field?: string;
  /** sql: the SQL dialect (`generic` by default). */
  dialect?: string;
  /** sql: functions to accept as read-only besides the built-in list. */
  allow_functions?: string[];
  /** file, mcp: the argument holding the path. */
  path_field?: string;
  /** file, mcp: directories the tool may read without confirmation. */
  roots?: string[];
  /** file: the one operation the tool performs (`read`), when its arguments name none. */
  operation?: string;
  /** http: the argument holding the method. */
  method_field?: string;
  /** http: the method when the call names none (`GET`). */
  default_method?: string;
  /** http, command: hosts that may be read even if private or local. */
  allow_hosts?: string[];
  /** http, command: hosts that are configured off (denied). */
  deny_hosts?: string[];
  /** api: the HTTP method. */
  method?: string;
  /** api: the URL pattern, with `:name` or `{name}` path parameters. */
  url?: string;
  /** api: another name for `url`. */
  url_pattern?: string;
  /** api, mcp, script: 1 = query, 2 = modify, 3 = delete; api: derived from the method if absent; mcp, script: only 3 changes the decision. */
  risk_level?: 1 | 2 | 3;
  /** api, mcp, script: the permission a user needs (checked against the call's context). */
  required_permission?: string;
  /** api, mcp, script: whether the tool may be called (default true). */
  enabled?: boolean;
  /** any kind: a person confirms every call that is not denied, whatever the model says. */
  always_confirm?: boolean;
  /** mcp: the server the tool belongs to (see `mcp_servers`). */
  server?: string;
  /** mcp: the tool's annotations from `tools/list`. */
  annotations?: McpAnnotations;
  /** mcp: the name the server exposes the tool under (seed 002's `mcp_tool_name`). */
  mcp_tool_name?: string;
  /** api, mcp, script: a name for people and prompts. */
  display_name?: string;
  /** api, mcp: what the tool does, for discovery and prompts. */
  description?: string;
  /** api, mcp: the tool's category, a discovery filter. */
  category?: string;
  /** api, mcp: words that point to the tool in a user's request, any language. */
  keywords?: string[];
  /** api, mcp: an example of a request the tool serves, for prompts. */
  example_prompt?: string;
  /** api, mcp, script: an example of the arguments, for prompts. */
  example_params?: Record<string, unknown>;
  /** api: JSON Schema of the path parameters (its `required` is checked). */
  path_params_schema?: Record<string, unknown>;
  /** api: JSON Schema of the query parameters. */
  query_params_schema?: Record<string, unknown>;
  /** api: JSON Schema of the request body. */
  request_body_schema?: Record<string, unknown>;
  /** api: the one argument whose value is the whole JSON body (a body that is not an object of named fields). */
  body_field?: string;
  /** api: the model's argument names mapped to the API's (seed 002 §7.2: `{"cause": "note"}`); argument completion renames them before the call is decided and its request built. */
  argument_names?: Record<string, string>;
  /** api: how a response becomes the text for the model (`{{path}}`, `{{#list}}…{{/list}}`, `{{^list}}…{{/list}}`). */
  response_template?: string;
}

/** The wire format a tool call was recognised as. */
export type CallFormat = WitCallFormat;

/** A tool call as the model sent it, normalised. */
export interface ToolCall {
  tool: string;
  /** The arguments as JSON text (verbatim when the format sends text; possibly malformed). */
  args: string;
  /** The call's id in its format (`id`, `call_id`/`callId`, `toolCallId`), or null. */
  id: string | null;
  format: CallFormat;
}

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

/** A pending approval as checkpoints hold it (snake_case, times in ms since the epoch). */
export interface PendingRecord {
  id: string;
  session_id?: string | null;
  user_id?: string | null;
  tool: string;
  description?: string;
  args: string;
  call_id?: string | null;
  decision: object;
  requested_at: number;
  deadline: number;
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
  checkLine(number: number, line: Uint8Array): { output: string; action: Action | null } | null;
  /**
   * Answers one coding agent's before-tool hook event (`claude-code`,
   * `gemini-cli`) in that agent's output shape; throws `RejectedError` for an
   * unknown format.
   */
  hook(format: string, event: Uint8Array | string): { output: string; error: string | null; exit: number };
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

/** Where a grant lives: this session (memory), the project or the user (the gate's store). */
export type GrantScope = 'session' | 'project' | 'user';

/** An approval remembered: allow rules the gate applies to later calls until expiry or revocation. */
export interface Grant {
  id: string;
  scope: GrantScope;
  tool: string;
  rules: Rule[];
  created_at: number;
  expires_at: number | null;
  approval_id: string;
  by: string | null;
  session_id: string | null;
  user_id: string | null;
  gate: string;
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

/** A registry tool offered for a user's intent. */
export interface Candidate {
  name: string;
  displayName: string;
  description: string;
  category: string | null;
  /** 1 = query, 2 = modify, 3 = delete. */
  riskLevel: number;
  score: number;
  /** The keywords found in the intent. */
  matched: string[];
}

/** An HTTP request for a registry API tool, without base URL or credentials. */
export interface ApiRequest {
  method: string;
  path: string;
  query: [string, string][];
  url: string;
  body: string | null;
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

/** An OpenAPI import: registry entries, tool definitions, and what people are told. */
export interface Imported {
  tools: Record<string, Record<string, unknown>>;
  definitions: Array<Record<string, unknown>>;
  summary: string[];
  notes: string[];
  /** What a command line prints about the import (counts, operations, notes). */
  report: string[];
}
