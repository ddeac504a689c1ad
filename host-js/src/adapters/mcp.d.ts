// Types for 'toolgate/mcp': a gated client over @modelcontextprotocol/sdk's Client.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalRequest, ApprovalResponse, Config, Gate, GateOptions, Policy } from '../index.js';

/** Between a server's name and its tool's in a qualified name (`files__search`). */
export const SEPARATOR: '__';

export interface GatedMcpOptions {
  /** Connected clients by server name; `trusted` says whether the server's hints count. */
  servers: Record<string, Client | { client: Client; trusted?: boolean }>;
  /** The rest of the configuration (rules, modes, denied tools…); the servers' tools are added. */
  config?: Config;
  /** The gate's options (audit, store, key, timeoutMs…), kept when the gate is rebuilt. */
  gate?: Omit<GateOptions, 'config' | 'approve'>;
  /** Asks a person; without it a confirmed call stays pending (answer it with `settle`). */
  approve?: (request: ApprovalRequest) => ApprovalResponse | Promise<ApprovalResponse>;
  /** Add `risk_level` to the tools' schemas (default true). */
  augment?: boolean;
  sessionId?: string;
  userId?: string;
}

export class GatedMcpClient {
  constructor(policy: Policy, options: GatedMcpOptions);
  /** The gate in force (rebuilt when a server's tool list changes). */
  readonly gate: Gate;
  /** The configuration in force: the caller's, with every server's tools declared. */
  readonly config: Config;
  /** Lists the tools again (one server, or all) and rebuilds the gate. */
  refresh(server?: string): Promise<void>;
  /** Every server's tools, named `server__tool`, with risk_level added. */
  listTools(): Promise<{ tools: Tool[] }>;
  /** Calls a qualified tool through the gate. */
  callTool(params: { name: string; arguments?: Record<string, unknown> }, options?: { callId?: string }): Promise<CallToolResult>;
  /** Answers a call left pending, and runs it if the gate allows. */
  settle(id: string, response: ApprovalResponse): Promise<CallToolResult>;
  close(): Promise<void>;
}

export function gatedMcp(policy: Policy, options: GatedMcpOptions): Promise<GatedMcpClient>;
