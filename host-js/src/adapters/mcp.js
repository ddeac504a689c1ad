// toolgate for MCP clients: a gated client around @modelcontextprotocol/sdk's
// `Client`, one per server. The policy's configuration is built from each
// server's `tools/list` (every tool declared as an MCP tool of its server, with
// its annotations; `trusted` says whether the server's hints count) and built
// again when a server says its list changed. Tool names are qualified by
// server (`files__search`), so two servers' `search` never collide; the policy
// sees them as `mcp:files/search`, the name its rules match (`mcp:files/*`).
//
// Each call is checked by the gate now and settled later: allowed calls are
// forwarded through `proceed`, confirmed ones when a person approves through
// `settle`, so the gate keeps the audit, deadlines and checkpoints. A result
// with `isError` is recorded as a failure; denied, rejected and expired calls
// come back as `isError` results carrying the gate's text for the model.

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Gate, MemoryStore } from '../gate.js';

/** Between a server's name and its tool's in a qualified name. */
export const SEPARATOR = '__';

/** The annotations the policy reads (others are the server's own business). */
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint', 'title'];

const textResult = (text) => ({ content: [{ type: 'text', text }], isError: true });

/** The text of a tool result's content, for the audit's error. */
function contentText(result) {
  const parts = Array.isArray(result?.content) ? result.content : [];
  const text = parts
    .filter((p) => p?.type === 'text')
    .map((p) => p.text)
    .join('\n');
  return text === '' ? 'the tool reported an error' : text;
}

/** A call the gate did not run, as the tool result the model gets. */
function refused(result) {
  return { ...textResult(result.forModel()), _meta: { toolgate: { status: result.status, approvalId: result.approvalId } } };
}

/**
 * Connects the gate to MCP clients already connected to their servers.
 *
 * @param {import('../index.js').Policy} policy
 * @param {object} options
 * @param {Record<string, import('@modelcontextprotocol/sdk/client/index.js').Client | {client: import('@modelcontextprotocol/sdk/client/index.js').Client, trusted?: boolean}>} options.servers by name
 * @param {object} [options.config] the rest of the configuration (rules, modes, denied tools…)
 * @param {object} [options.gate] the gate's options (audit, store, key, timeoutMs…), kept across
 *   rebuilds; with `audit` sinks, `auditRequired` is on unless set to false
 * @param {(request: object) => Promise<object> | object} [options.approve] asks a person; without it a confirmed call stays pending (answer it with `settle`)
 * @param {boolean} [options.augment] add `risk_level` to the tools' schemas (default true)
 * @param {string} [options.sessionId]
 * @param {string} [options.userId]
 */
export async function gatedMcp(policy, options) {
  const client = new GatedMcpClient(policy, options);
  await client.refresh();
  return client;
}

export class GatedMcpClient {
  #policy;
  #servers = new Map();
  #config;
  #gateOptions;
  #approve;
  #augment;
  #session;
  #gate = null;
  /** Qualified name → {server, name, tool} of the last lists. */
  #tools = new Map();
  #lists = new Map();
  #nextCall = 0;
  #refreshing = Promise.resolve();

  constructor(policy, options) {
    this.#policy = policy;
    for (const [name, s] of Object.entries(options.servers ?? {})) {
      if (name.includes(SEPARATOR) || name.includes('/') || name === '') {
        throw new TypeError(`server name \`${name}\` may not be empty or contain \`${SEPARATOR}\` or \`/\``);
      }
      const entry = typeof s?.callTool === 'function' ? { client: s, trusted: false } : { client: s.client, trusted: s.trusted === true };
      this.#servers.set(name, entry);
      // The client's own handler for this notification, if any, is replaced.
      entry.client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refresh(name).catch(() => {}));
    }
    this.#config = { ...(options.config ?? {}) };
    const gate = { ...(options.gate ?? {}) };
    // One store for every rebuilt gate: pending approvals outlive a refresh.
    if (gate.store === undefined) {
      gate.store = new MemoryStore();
      gate.unsigned ??= gate.key === undefined;
    }
    // With an audit log, a call the gateway cannot record is refused with the
    // reason, never run unrecorded (`auditRequired: false` says otherwise).
    if ((gate.audit ?? []).length > 0) gate.auditRequired ??= true;
    this.#gateOptions = gate;
    this.#approve = options.approve ?? null;
    this.#augment = options.augment !== false;
    this.#session = { sessionId: options.sessionId, userId: options.userId };
  }

  /** The gate in force (rebuilt when a list changes). */
  get gate() {
    return this.#gate;
  }

  /** The configuration in force: the caller's, with every server's tools declared. */
  get config() {
    const tools = { ...(this.#config.tools ?? {}) };
    const servers = { ...(this.#config.mcp_servers ?? {}) };
    for (const [server, entry] of this.#servers) {
      servers[server] ??= { trusted: entry.trusted };
      for (const tool of this.#lists.get(server) ?? []) {
        const annotations = {};
        for (const key of HINTS) if (tool.annotations?.[key] !== undefined) annotations[key] = tool.annotations[key];
        tools[`mcp:${server}/${tool.name}`] ??= { kind: 'mcp', server, annotations };
      }
    }
    return { ...this.#config, tools, mcp_servers: servers };
  }

  /**
   * Lists the tools of `server` (or of every server) again and rebuilds the
   * gate's configuration from them. Called on `notifications/tools/list_changed`.
   */
  refresh(server) {
    const run = async () => {
      const names = server === undefined ? [...this.#servers.keys()] : [server];
      let failure = null;
      for (const name of names) {
        const { client } = this.#servers.get(name);
        const tools = [];
        try {
          let cursor;
          do {
            const page = await client.listTools(cursor === undefined ? {} : { cursor });
            tools.push(...page.tools);
            cursor = page.nextCursor;
          } while (cursor !== undefined);
        } catch (e) {
          // A list that cannot be read leaves the server without tools: its
          // calls are refused, never decided on definitions that may be stale.
          tools.length = 0;
          failure ??= e;
        }
        this.#lists.set(name, tools);
      }
      this.#tools = new Map();
      for (const [name, list] of this.#lists) {
        for (const tool of list) this.#tools.set(`${name}${SEPARATOR}${tool.name}`, { server: name, name: tool.name, tool });
      }
      this.#gate = new Gate(this.#policy, { ...this.#gateOptions, config: this.config });
      if (failure !== null) throw failure;
    };
    const done = this.#refreshing.then(run, run);
    // Calls wait for a refresh under way, and go on after a failed one.
    this.#refreshing = done.catch(() => {});
    return done;
  }

  /**
   * Every server's tools for the model, named `server__tool`, with
   * `risk_level` added to their schemas (unless `augment: false`).
   */
  async listTools() {
    await this.#refreshing;
    const tools = [...this.#tools].map(([qualified, { tool }]) => ({ ...tool, name: qualified }));
    return { tools: this.#augment ? this.#gate.engine.augmentTools(tools, 'mcp').tools : tools };
  }

  /**
   * Calls a qualified tool through the gate: `{name, arguments}` as the model
   * sent it (`risk_level` included; the server never sees it). Resolves with
   * the server's result, or an `isError` result with the gate's text.
   *
   * @param {{name: string, arguments?: Record<string, unknown>}} params
   * @param {{callId?: string}} [options]
   */
  async callTool(params, options = {}) {
    await this.#refreshing;
    const entry = this.#tools.get(String(params?.name));
    if (entry === undefined) return textResult(`unknown tool \`${params?.name}\`: the servers list ${[...this.#tools.keys()].join(', ') || 'none'}`);
    const gate = this.#gate;
    const callId = options.callId ?? `mcp-${++this.#nextCall}`;
    const check = await gate.check({
      tool: `mcp:${entry.server}/${entry.name}`,
      args: params.arguments ?? {},
      callId,
      description: entry.tool.description,
      ...this.#session,
    });
    const run = this.#runner(entry);
    if (check.result !== null) return refused(check.result);
    if (check.proceed !== null) return run.outcome(await check.proceed(run.execute));
    if (this.#approve === null) {
      const p = check.pending;
      return {
        ...textResult(JSON.stringify({ status: 'pending', approval_id: p.id, reason: `a person must approve this call: ${p.decision.summary}` })),
        _meta: { toolgate: { status: 'pending', approvalId: p.id } },
      };
    }
    return this.#asked(gate, check.pending, run);
  }

  /** Asks `approve` and settles the answer, or `none` at the deadline. */
  async #asked(gate, pending, run) {
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve({ answer: 'none' }), Math.max(0, pending.deadline - Date.now()));
    });
    let response;
    try {
      response = await Promise.race([Promise.resolve().then(() => this.#approve(pending)), late]);
    } catch (e) {
      response = { answer: 'reject', message: e instanceof Error ? e.message : String(e) };
    } finally {
      clearTimeout(timer);
    }
    return run.outcome(await gate.settle(pending.id, response, run.execute));
  }

  /**
   * Answers a call left pending (no `approve` option): runs it if the gate
   * allows, and resolves with the tool result.
   */
  async settle(id, response) {
    await this.#refreshing;
    const request = (await this.#gate.pending()).find((p) => p.ok && p.request.id === id)?.request;
    const match = request === undefined ? null : /^mcp:([^/]+)\/(.*)$/.exec(request.tool);
    const entry = match === null ? undefined : this.#tools.get(`${match[1]}${SEPARATOR}${match[2]}`);
    if (entry === undefined) return textResult(`no pending approval \`${id}\` for a listed tool`);
    const run = this.#runner(entry);
    return run.outcome(await this.#gate.settle(id, response, run.execute));
  }

  /** Forwards to the server; the server's `isError` result is the gate's failure. */
  #runner(entry) {
    const { client } = this.#servers.get(entry.server);
    let served = null;
    return {
      execute: async (args) => {
        served = await client.callTool({ name: entry.name, arguments: JSON.parse(args) });
        if (served?.isError === true) throw new Error(contentText(served));
        return served;
      },
      outcome: (result) => {
        if (result.status === 'executed' || (result.status === 'failed' && served !== null)) return served;
        return refused(result);
      },
    };
  }

  /** Closes every client. */
  async close() {
    for (const { client } of this.#servers.values()) await client.close();
  }
}
