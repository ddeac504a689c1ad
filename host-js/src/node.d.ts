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

/** Where an SQLite store or sink opens its database: `node:sqlite` (Node 22.13 and later) or `better-sqlite3`. */
export interface SqliteOptions {
  driver?: 'node:sqlite' | 'better-sqlite3';
}

/** Checkpoints, claims and grants in an SQLite database (the Rust and Python hosts' tables). */
export class SqliteStore implements CheckpointStore {
  constructor(path: string, options?: SqliteOptions);
  driver(): Promise<'node:sqlite' | 'better-sqlite3'>;
  put(id: string, checkpoint: string): Promise<void>;
  remove(id: string): Promise<void>;
  get(id: string): Promise<string | null>;
  list(): Promise<[string, string][]>;
  claim(id: string, deadline: number): Promise<boolean>;
  claimed(id: string): Promise<boolean>;
  release(id: string): Promise<boolean>;
  sweep(now: number): Promise<number>;
  close(): Promise<void>;
}

/** The audit chain in an SQLite table `toolgate_audit(seq, line)`, appended under `BEGIN IMMEDIATE`. */
export class SqliteSink implements AuditSink {
  constructor(path: string, options?: SqliteOptions);
  driver(): Promise<'node:sqlite' | 'better-sqlite3'>;
  append(line: string): Promise<void>;
  last(): Promise<string | null>;
  gap(): Promise<string | null>;
  appendSealed(seal: (previous: string | null) => string | Promise<string>): Promise<string>;
  recorded(approval: string, since?: number): Promise<boolean>;
  /** Every line in order, as JSON Lines. */
  export(): Promise<string>;
  close(): Promise<void>;
}

/** libpq `key=value` string, `postgres://` URL, or a `pg` client configuration. */
export type PostgresParams = string | Record<string, unknown>;

/** Checkpoints, claims and grants in PostgreSQL (the Rust and Python hosts' tables), through `pg`. */
export class PostgresStore implements CheckpointStore {
  constructor(params: PostgresParams);
  put(id: string, checkpoint: string): Promise<void>;
  remove(id: string): Promise<void>;
  get(id: string): Promise<string | null>;
  list(): Promise<[string, string][]>;
  claim(id: string, deadline: number): Promise<boolean>;
  claimed(id: string): Promise<boolean>;
  release(id: string): Promise<boolean>;
  /** By the database's clock; `now` is not used. */
  sweep(now: number): Promise<number>;
  /** The database's clock (ms). */
  now(): Promise<number>;
  /** A name for the database, the same for every store and sink on it. */
  database(): Promise<string>;
  close(): Promise<void>;
}

/** The audit chain in PostgreSQL (`toolgate_audit`), appended under the table's EXCLUSIVE lock. */
export class PostgresSink implements AuditSink {
  constructor(params: PostgresParams);
  append(line: string): Promise<void>;
  last(): Promise<string | null>;
  gap(): Promise<string | null>;
  appendSealed(seal: (previous: string | null) => string | Promise<string>): Promise<string>;
  recorded(approval: string, since?: number): Promise<boolean>;
  database(): Promise<string>;
  export(): Promise<string>;
  close(): Promise<void>;
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
