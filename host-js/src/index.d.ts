// Types for the toolgate package. The WIT interface (wit/toolgate.wit) is the
// contract; these are its JavaScript shapes.

/** How risky a call is judged. */
export type Risk = 'low' | 'medium' | 'high';

/** What the host must do with a call. */
export type Action = 'allow' | 'confirm' | 'deny';

/** Which rule of the decision order decided. */
export type Source = 'config' | 'strict' | 'llm' | 'floor' | 'whitelist' | 'registry' | 'default';

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
  mcp_servers?: Record<string, { trusted?: boolean }>;
  /** Registry level 2: confirm (default) or notify (allow and tell the user). */
  registry_level2?: 'confirm' | 'notify';
}

/** The caller's context for a decision. */
export interface Context {
  /** The permissions the user holds; absent means unknown. */
  permissions?: string[];
}

/** MCP tool annotations, as `tools/list` reports them. */
export interface McpAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  title?: string;
}

/** Settings for one tool: its assessor and that assessor's options. */
export interface ToolConfig {
  kind?: 'sql' | 'command' | 'file' | 'http' | 'api' | 'mcp';
  field?: string;
  dialect?: string;
  allow_functions?: string[];
  path_field?: string;
  roots?: string[];
  method_field?: string;
  default_method?: string;
  allow_hosts?: string[];
  deny_hosts?: string[];
  method?: string;
  url?: string;
  risk_level?: 1 | 2 | 3;
  required_permission?: string;
  enabled?: boolean;
  server?: string;
  annotations?: McpAnnotations;
}

/** The wire format a tool call was recognised as. */
export type CallFormat = 'plain' | 'openai-chat' | 'openai-responses' | 'anthropic' | 'mcp' | 'gemini';

/** A tool call as the model sent it, normalised. */
export interface ToolCall {
  tool: string;
  /** The arguments as JSON text (verbatim when the format sends text; possibly malformed). */
  args: string;
  /** The call's id in its format (`id`, `call_id`), or null. */
  id: string | null;
  format: CallFormat;
}

/** A tool-definition format for `augmentTools`. */
export type ToolFormat = 'openai-chat' | 'openai-responses' | 'anthropic' | 'mcp' | 'gemini';

/** A source of the toolgate component. */
export type ComponentSource = URL | string | ArrayBuffer | ArrayBufferView | Response | Promise<Response>;

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
  constructor(modules: WebAssembly.Module[]);
  /** Decides one call under the default configuration; never throws. */
  assess(tool: string, args: string | object): Decision;
  /** A policy with this configuration; throws RejectedError naming the field. */
  engine(config?: string | Config): Engine;
  /** Reads a tool call in any supported wire format; throws RejectedError without a tool name. */
  parseCall(call: string | object): ToolCall;
  /** The arguments a tool really receives: `risk_level` removed. */
  stripRiskLevel(args: string | object): string;
  /** The prompt guidance for the model, `en` (default) or `zh`. */
  guidance(language?: string): string;
  /** The policy's version. */
  version(): string;
  /** Usage figures: the live instance's linear memory in bytes, and the live engines. */
  stats(): { memoryBytes: number; engines: number };
}

/** A policy with one deployment's configuration. */
export class Engine {
  private constructor();
  /** Decides one call under this configuration, optionally in the caller's context; never throws. */
  assess(tool: string, args: string | object, context?: string | Context): Decision;
  /** Decides a tool call in any supported wire format; never throws. */
  assessCall(call: string | object): Decision;
  /**
   * Decides many calls in one crossing into the component; the decisions are in
   * the same order and equal those of `assess`. Never throws.
   */
  assessMany(calls: Iterable<[string, string | object] | { tool: string; args: string | object }>): Decision[];
  /** Adds the optional `risk_level` parameter to tool definitions. */
  augmentTools(tools: string | object, format?: ToolFormat): { tools: string; notes: string[] };
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
