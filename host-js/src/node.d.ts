// Types for 'toolgate/node': Node-only stores and sinks of the approval gate.
import type { AuditSink, CheckpointStore } from './index.js';

/** Checkpoints as `<id>.json` files in a directory (shared with the Rust host). */
export class FileStore implements CheckpointStore {
  constructor(dir: string);
  readonly dir: string;
  put(id: string, checkpoint: string): Promise<void>;
  remove(id: string): Promise<void>;
  get(id: string): Promise<string | null>;
  list(): Promise<[string, string][]>;
  claim(id: string, deadline: number): Promise<boolean>;
  claimed(id: string): Promise<boolean>;
  /** Takes back the claim on `id`, whose record was never written. */
  release(id: string): Promise<boolean>;
  /** Removes tombstones past their deadline; resolves with how many. */
  sweep?(now: number): Promise<number>;
}

/** A JSON Lines audit file. */
export class JsonlSink implements AuditSink {
  constructor(path: string);
  append(line: string): Promise<void>;
  last(): Promise<string | null>;
  gap(): Promise<string | null>;
  appendSealed(seal: (previous: string | null) => string | Promise<string>): Promise<string>;
  /** Whether the log holds a record of approval `approval`, looking back to records stamped at `since`. */
  recorded(approval: string, since?: number): Promise<boolean>;
}

/** The context a confining executor gives the policy with each call it will run. */
export const CONFINED_CONTEXT: string;

/** The rights a decision grants a command run by {@link commandExecutor}. */
export function rightsFor(decision: { source: string }, approved?: boolean): 'read' | 'write';

/**
 * A command executor for the gate: runs the call's `command` confined by the
 * Rust `toolgate exec --confine-only --json`, found at `bin` or TOOLGATE_BIN;
 * throws (nothing runs) when there is none. Resolves to the JSON text
 * `{"exit_code", "stdout", "stderr", "stopped"}`.
 */
export function commandExecutor(options?: {
  bin?: string;
  config?: string;
  rights?: 'read' | 'write';
  cwd?: string;
}): (args: string | { command: string | string[] }) => Promise<string>;
