// Types shared by the agent SDK adapters.
import type { ToolResult } from '../index.js';

/** A call the gate did not run: its message is the gate's text for the model. */
export class GatedCallError extends Error {
  constructor(result: ToolResult);
  /** `denied`, `rejected`, `expired`, `failed`, … */
  readonly status: ToolResult['status'];
  readonly result: ToolResult;
}

/** Who is calling, recorded with every call. */
export interface AdapterOptions {
  sessionId?: string;
  userId?: string;
  /** The caller's context (`{permissions: [...]}`). */
  context?: unknown;
}
