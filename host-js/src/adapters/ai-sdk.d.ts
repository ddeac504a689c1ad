// Types for 'toolgate/ai-sdk': the gate inside the AI SDK (`ai` 7 and 6).
import type { Gate } from '../index.js';
import type { AdapterOptions } from './calls.js';

export { GatedCallError, AdapterOptions } from './calls.js';

/** A language-model middleware for `wrapLanguageModel` (`ai` 6 and 7). */
export interface ToolgateMiddleware {
  readonly specificationVersion: 'v3';
  transformParams(options: { type: 'generate' | 'stream'; params: any; model: any }): PromiseLike<any>;
  wrapGenerate(options: { doGenerate: () => PromiseLike<any>; doStream: () => PromiseLike<any>; params: any; model: any }): PromiseLike<any>;
  wrapStream(options: { doGenerate: () => PromiseLike<any>; doStream: () => PromiseLike<any>; params: any; model: any }): PromiseLike<any>;
}

/** What `toolApproval` answers (`ai` 7's `ToolApprovalStatus`). */
export type ToolgateApprovalStatus =
  | 'not-applicable'
  | { type: 'denied'; reason?: string }
  | { type: 'user-approval'; reason?: string };

export interface AiSdkGate {
  /** Adds risk_level to the tools' schemas and records the model's raw arguments. */
  readonly middleware: ToolgateMiddleware;
  /** `ai` 7's generic `toolApproval`: allow → not applicable, confirm → the user, deny → denied. */
  toolApproval(options: { toolCall: { toolCallId: string; toolName: string; input: unknown } }): Promise<ToolgateApprovalStatus>;
  /** The tools, each run through the gate (use with `toolApproval`, `ai` 7). */
  tools<T extends Record<string, any>>(tools: T): T;
  /** The tools with a per-tool `needsApproval` from the gate (`ai` 6). */
  approvalTools<T extends Record<string, any>>(tools: T): T;
  /** The arguments the model sent for `callId`, if recorded. */
  rawArgs(callId: string): string | unknown | undefined;
}

export function aiSdkGate(gate: Gate, options?: AdapterOptions): AiSdkGate;
export default aiSdkGate;
