// Types for 'toolgate/openai-agents': the gate inside the OpenAI Agents SDK.
import type { Gate } from '../index.js';
import type { AdapterOptions } from './calls.js';

export { GatedCallError, AdapterOptions } from './calls.js';

/** The guardrail's name in the run's guardrail results. */
export const GUARDRAIL_NAME: 'toolgate';

/** A tool input guardrail (the SDK's `ToolInputGuardrailDefinition`). */
export interface ToolgateGuardrail {
  type: 'tool_input';
  name: string;
  run(data: { toolCall: { callId: string; name: string; arguments: string }; [key: string]: any }): Promise<{
    outputInfo?: any;
    behavior: { type: 'allow' } | { type: 'rejectContent'; message: string };
  }>;
}

export interface OpenAiAgentsGate {
  /** Wraps a `Model`: records the model's raw arguments and adds risk_level to its function tools. */
  model<M extends { getResponse(request: any): Promise<any>; getStreamedResponse(request: any): AsyncIterable<any> }>(model: M): M;
  /** A function tool with `needsApproval` from the policy, the guardrail, and its run through the gate. */
  tool<T>(tool: T): T;
  tools<T>(tools: T[]): T[];
  readonly guardrail: ToolgateGuardrail;
  /** The arguments the model sent for `callId`, if recorded. */
  rawArgs(callId: string): string | undefined;
}

export function openAiAgentsGate(gate: Gate, options?: AdapterOptions): OpenAiAgentsGate;
export default openAiAgentsGate;
