// toolgate/mcp against the real MCP SDK: two in-process servers (McpServer over
// InMemoryTransport) reached by the SDK's Client, both with a `search` tool.
// Allow, confirm approved and rejected, deny, the model's risk_level reaching
// the policy (and never the server), isError recorded as a failure, and the
// configuration rebuilt on tools/list_changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import { loadPolicy, MemorySink } from '../src/index.js';
import { gatedMcp } from 'toolgate/mcp';

const policy = await loadPolicy();

/** A server named `name` whose tools record what they received in `seen`. */
function server(name, seen) {
  const s = new McpServer({ name, version: '1.0.0' });
  const record = (tool) => async (args) => {
    seen.push({ tool, args });
    return { content: [{ type: 'text', text: `${name}:${tool} ok` }] };
  };
  s.registerTool('search', { description: `search ${name}`, inputSchema: { q: z.string() }, annotations: { readOnlyHint: true } }, record('search'));
  s.registerTool('delete_note', { description: 'delete a note', inputSchema: { id: z.string() }, annotations: { destructiveHint: true } }, record('delete_note'));
  s.registerTool('broken', { description: 'always fails', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
    content: [{ type: 'text', text: 'disk on fire' }],
    isError: true,
  }));
  return s;
}

async function connect(s) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await s.connect(b);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(a);
  return client;
}

async function setup({ approve, config } = {}) {
  const seen = { notes: [], wiki: [] };
  const servers = { notes: server('notes', seen.notes), wiki: server('wiki', seen.wiki) };
  const sink = new MemorySink();
  const requests = [];
  const mcp = await gatedMcp(policy, {
    servers: { notes: { client: await connect(servers.notes), trusted: true }, wiki: await connect(servers.wiki) },
    config,
    gate: { audit: [sink] },
    approve: approve === undefined ? undefined : (request) => {
      requests.push(request);
      return approve(request);
    },
  });
  const lines = () => sink.lines.map((l) => JSON.parse(l));
  return { mcp, seen, servers, sink, lines, requests };
}

test('tools are qualified by server, schemas gain risk_level, two `search` tools do not collide', async () => {
  const { mcp, seen } = await setup();
  const { tools } = await mcp.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['notes__broken', 'notes__delete_note', 'notes__search', 'wiki__broken', 'wiki__delete_note', 'wiki__search']);
  const search = tools.find((t) => t.name === 'wiki__search');
  assert.deepEqual(search.inputSchema.properties.risk_level.enum, ['low', 'medium', 'high']);
  assert.equal(search.annotations.readOnlyHint, true);
  await mcp.callTool({ name: 'notes__search', arguments: { q: 'x' } });
  assert.deepEqual(seen.notes, [{ tool: 'search', args: { q: 'x' } }]);
  assert.deepEqual(seen.wiki, []);
  // The same read-only hint from the untrusted server does not allow.
  const untrusted = await mcp.callTool({ name: 'wiki__search', arguments: { q: 'x' } });
  assert.equal(untrusted._meta.toolgate.status, 'pending');
  assert.deepEqual(seen.wiki, []);
  await mcp.close();
});

test('allow: a trusted read-only tool is forwarded, risk_level stripped, the run audited', async () => {
  const { mcp, seen, lines } = await setup();
  const result = await mcp.callTool({ name: 'notes__search', arguments: { q: 'plans', risk_level: 'low' } });
  assert.equal(result.isError, undefined);
  assert.equal(result.content[0].text, 'notes:search ok');
  assert.deepEqual(seen.notes, [{ tool: 'search', args: { q: 'plans' } }]);
  const last = lines().at(-1);
  assert.equal(last.tool, 'mcp:notes/search');
  assert.equal(last.status, 'executed');
  assert.ok(last.decision.findings.includes('llm.low'));
  await mcp.close();
});

test("confirm, approved: the person sees the model's risk_level and the summary; runs once", async () => {
  const { mcp, seen, lines, requests } = await setup({ approve: () => ({ answer: 'approve' }) });
  const result = await mcp.callTool({ name: 'notes__delete_note', arguments: { id: '7', risk_level: 'high' } });
  assert.equal(result.content[0].text, 'notes:delete_note ok');
  assert.equal(requests.length, 1);
  assert.equal(requests[0].decision.llmRisk, 'high');
  assert.match(requests[0].decision.summary, /mcp:notes\/delete_note/);
  assert.deepEqual(seen.notes, [{ tool: 'delete_note', args: { id: '7' } }]);
  assert.equal(lines().at(-1).status, 'executed');
  await mcp.close();
});

test('confirm, rejected: never forwarded, an isError result with the text for the model', async () => {
  const { mcp, seen, lines } = await setup({ approve: () => ({ answer: 'reject', message: 'keep it' }) });
  const result = await mcp.callTool({ name: 'notes__delete_note', arguments: { id: '7' } });
  assert.equal(result.isError, true);
  const body = JSON.parse(result.content[0].text);
  assert.equal(body.status, 'rejected');
  assert.equal(body.message, 'keep it');
  assert.deepEqual(seen.notes, []);
  assert.equal(lines().at(-1).status, 'rejected');
  await mcp.close();
});

test('confirm without an approver stays pending; settle answers it later', async () => {
  const { mcp, seen } = await setup();
  const result = await mcp.callTool({ name: 'wiki__delete_note', arguments: { id: '9' } });
  assert.equal(result.isError, true);
  const id = result._meta.toolgate.approvalId;
  assert.equal(JSON.parse(result.content[0].text).status, 'pending');
  assert.deepEqual(seen.wiki, []);
  const done = await mcp.settle(id, { answer: 'approve' });
  assert.equal(done.content[0].text, 'wiki:delete_note ok');
  assert.deepEqual(seen.wiki, [{ tool: 'delete_note', args: { id: '9' } }]);
  await mcp.close();
});

test("deny: never forwarded, even with the model's low; rules match mcp:server/*", async () => {
  const { mcp, seen, lines } = await setup({ config: { rules: [{ effect: 'deny', tool: 'mcp:wiki/*' }] }, approve: () => ({ answer: 'approve' }) });
  const result = await mcp.callTool({ name: 'wiki__search', arguments: { q: 'x', risk_level: 'low' } });
  assert.equal(result.isError, true);
  assert.equal(JSON.parse(result.content[0].text).status, 'denied');
  assert.deepEqual(seen.wiki, []);
  assert.equal(lines().at(-1).status, 'denied');
  await mcp.close();
});

test('a server result with isError is recorded as a failure and returned as the server sent it', async () => {
  const { mcp, lines } = await setup();
  const result = await mcp.callTool({ name: 'notes__broken', arguments: {} });
  assert.equal(result.isError, true);
  assert.equal(result.content[0].text, 'disk on fire');
  const last = lines().at(-1);
  assert.equal(last.status, 'failed');
  assert.equal(last.error, 'disk on fire');
  await mcp.close();
});

test('an unknown tool is refused, never guessed', async () => {
  const { mcp } = await setup();
  const result = await mcp.callTool({ name: 'search', arguments: {} });
  assert.equal(result.isError, true);
  await mcp.close();
});

test('tools/list_changed rebuilds the configuration: a new tool is declared with its annotations', async () => {
  const { mcp, servers } = await setup();
  const refreshed = new Promise((resolve) => {
    const before = mcp.gate;
    const poll = setInterval(() => {
      if (mcp.gate !== before) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
    setTimeout(() => {
      clearInterval(poll);
      resolve();
    }, 2000).unref();
  });
  servers.notes.registerTool('list_tags', { description: 'tags', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
    content: [{ type: 'text', text: 'tags' }],
  }));
  await refreshed;
  assert.ok(mcp.config.tools['mcp:notes/list_tags'], JSON.stringify(Object.keys(mcp.config.tools)));
  const result = await mcp.callTool({ name: 'notes__list_tags', arguments: {} });
  assert.equal(result.content[0].text, 'tags');
  await mcp.close();
});

test('a server whose tools/list fails is left without tools: its calls are refused', async () => {
  const seen = [];
  const client = await connect(server('gone', seen));
  await client.close();
  await assert.rejects(gatedMcp(policy, { servers: { gone: client } }), 'the first listing reports the failure');
  const { GatedMcpClient } = await import('toolgate/mcp');
  const gated = new GatedMcpClient(policy, { servers: { gone: client } });
  await assert.rejects(gated.refresh());
  assert.deepEqual((await gated.listTools()).tools, []);
  const result = await gated.callTool({ name: 'gone__search', arguments: { q: 'x', risk_level: 'low' } });
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /unknown tool/);
  assert.deepEqual(seen, []);
});
