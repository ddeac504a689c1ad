// End-to-end test of `toolgate mcp-proxy` over MCP's Streamable HTTP
// transport, both sides: the MCP TypeScript SDK's Client with its
// StreamableHTTPClientTransport against the gateway listening on loopback,
// the gateway in front of the reference filesystem server (stdio) and of a
// remote server over Streamable HTTP (tests/mcp/http-server.mjs, with a
// bearer token). Run by host-rs/tests/mcp_http.rs:
//   node tests/mcp/http-e2e.mjs TOOLGATE WORKDIR              the checks
//   node tests/mcp/http-e2e.mjs TOOLGATE WORKDIR transcript   one gated session's messages
// Each check asserts; the first failure exits 1 with its message. Every
// process it starts listens on 127.0.0.1 and is stopped when it ends.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const modules = join(root, 'host-js', 'node_modules', '@modelcontextprotocol');
const load = (path) => import(pathToFileURL(join(modules, path)).href);
const { Client } = await load('sdk/dist/esm/client/index.js');
const { StreamableHTTPClientTransport } = await load('sdk/dist/esm/client/streamableHttp.js');
const { ElicitRequestSchema } = await load('sdk/dist/esm/types.js');
const fsServer = join(modules, 'server-filesystem', 'dist', 'index.js');
const notebook = join(here, 'http-server.mjs');

const [toolgate, work, mode] = process.argv.slice(2);
const audit = join(work, 'audit.jsonl');
const pins = join(work, 'pins.json');
const approvals = join(work, 'approvals');
const started = [];
const stderrLog = [];

/** Starts a process and waits for the line `pattern` matches on `stream`; returns it and the match. */
function start(command, args, stream, pattern) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  started.push(child);
  return new Promise((ok, fail) => {
    let seen = '';
    const timer = setTimeout(() => fail(new Error(`${command} ${args.join(' ')}: no ${pattern} in 20 s:\n${seen}`)), 20000);
    child.on('exit', (code) => fail(new Error(`${command} exited (${code}) before ${pattern}:\n${seen}`)));
    const other = stream === 'stdout' ? child.stderr : child.stdout;
    other.on('data', (chunk) => stderrLog.push(chunk.toString()));
    child[stream].on('data', (chunk) => {
      seen += chunk.toString();
      stderrLog.push(chunk.toString());
      const match = seen.match(pattern);
      if (match) {
        clearTimeout(timer);
        ok({ child, match });
      }
    });
  });
}

/** Checks that what answers at `url` is the listener started (`own` tells its answer). */
async function ready(url, own) {
  const until = Date.now() + 5000;
  for (;;) {
    const got = await raw(url, { method: 'GET' }).catch(() => null);
    if (got && own(got)) return;
    if (Date.now() > until) throw new Error(`${url} did not answer: ${JSON.stringify(got)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The gateway listening on 127.0.0.1, in front of `upstream`; its endpoint's URL. */
async function gateway({ name, config, upstream, extra = [] }) {
  const file = join(work, `config-${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const args = ['mcp-proxy', '--listen', '127.0.0.1:0', '--audit', audit, '--pins', pins, '--approvals', approvals,
    '--config', file, '--name', name, ...extra, '--', ...upstream];
  const { match } = await start(toolgate, args, 'stderr', /listening on (http:\/\/\S+)\n/);
  // The gateway's own answer to a GET outside a session: 400, or 401 when it wants a token.
  await ready(match[1], (got) => [400, 401].includes(got.status) && /session|token/i.test(got.text));
  return match[1];
}

/** An SDK client over Streamable HTTP; `elicit` answers the gateway's approval dialogs when given. */
async function connect(url, { elicit = null, token = null } = {}) {
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit });
  const client = new Client({ name: 'http-e2e', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
  const asked = [];
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return elicit(request.params);
    });
  }
  await client.connect(transport);
  return { client, transport, asked };
}

/** A raw HTTP request (any Host header), for the checks the SDK never makes. */
function raw(url, { method = 'POST', headers = {}, body = null } = {}) {
  return new Promise((ok, fail) => {
    const req = httpRequest(url, { method, headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => ok({ status: res.statusCode, text, headers: res.headers }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const text = (result) => result.content.map((c) => c.text ?? '').join('\n');
const steps = [];
async function step(name, f) {
  await f();
  steps.push(name);
  console.log(`ok - ${name}`);
}

async function checks() {
  const files = join(work, 'files');
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'hello.txt'), 'hello over HTTP');
  const fsConfig = { mcp_servers: { fs: { trusted: true } }, denied_tools: ['mcp:fs/create_directory'] };
  const url = await gateway({ name: 'fs', config: fsConfig, upstream: [process.execPath, fsServer, files] });
  const origin = new URL(url).origin;
  const answers = [];
  const fs = await connect(url, { elicit: () => answers.shift() });

  await step('over HTTP: tools/list passes through and a read is allowed', async () => {
    const { tools } = await fs.client.listTools();
    assert.ok(tools.find((t) => t.name === 'write_file'), 'write_file listed');
    const result = await fs.client.callTool({ name: 'read_text_file', arguments: { path: join(files, 'hello.txt') } });
    assert.equal(result.isError ?? false, false, text(result));
    assert.equal(text(result), 'hello over HTTP');
    assert.equal(fs.asked.length, 0, 'nobody was asked');
  });

  await step('over HTTP: a write is confirmed through elicitation on the call\'s stream, and runs when accepted', async () => {
    answers.push({ action: 'accept', content: { approve: true } });
    const target = join(files, 'accepted.txt');
    const result = await fs.client.callTool({ name: 'write_file', arguments: { path: target, content: 'approved' } });
    assert.equal(result.isError ?? false, false, text(result));
    assert.equal(readFileSync(target, 'utf8'), 'approved');
    assert.equal(fs.asked.length, 1);
    assert.match(fs.asked[0].message, /accepted\.txt/);
  });

  await step('over HTTP: a declined write never runs, and a denied tool never reaches the server', async () => {
    answers.push({ action: 'decline' });
    const target = join(files, 'declined.txt');
    const declined = await fs.client.callTool({ name: 'write_file', arguments: { path: target, content: 'no' } });
    assert.equal(declined.isError, true);
    assert.equal(existsSync(target), false, 'the file was not written');
    const denied = await fs.client.callTool({ name: 'create_directory', arguments: { path: join(files, 'made') } });
    assert.equal(denied.isError, true);
    assert.match(text(denied), /denied|not allowed|refused/i);
    assert.equal(existsSync(join(files, 'made')), false, 'the directory was not made');
  });

  await step('a session that calls before any tools/list is decided on the server\'s listing, not confirmed for it', async () => {
    const early = await connect(url);
    const result = await early.client.callTool({ name: 'read_text_file', arguments: { path: join(files, 'hello.txt') } });
    assert.equal(result.isError ?? false, false, text(result));
    assert.equal(text(result), 'hello over HTTP');
    await early.client.close();
  });

  await step('without elicitation, a confirmed call is left pending; `toolgate approvals approve` settles it and the retry runs it', async () => {
    const plain = await connect(url);
    const target = join(files, 'later.txt');
    const args = { path: target, content: 'approved later' };
    const first = await plain.client.callTool({ name: 'write_file', arguments: args });
    assert.equal(first.isError, true);
    const id = text(first).match(/approval ([A-Za-z0-9_-]+)/)?.[1];
    assert.ok(id, `the answer names the pending approval: ${text(first)}`);
    assert.match(text(first), /toolgate approvals/);
    assert.equal(existsSync(target), false, 'not run before a person approves');
    const listed = spawnSync(toolgate, ['approvals', 'list', '--unsigned', approvals], { encoding: 'utf8' });
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(id));
    const again = await plain.client.callTool({ name: 'write_file', arguments: args });
    assert.equal(again.isError, true, 'a retry before the approval still waits');
    assert.match(text(again), new RegExp(id), 'and names the same approval');
    const approved = spawnSync(toolgate, ['approvals', 'approve', approvals, id], { encoding: 'utf8' });
    assert.equal(approved.status, 0, approved.stderr + approved.stdout);
    const retry = await plain.client.callTool({ name: 'write_file', arguments: args });
    assert.equal(retry.isError ?? false, false, text(retry));
    assert.equal(readFileSync(target, 'utf8'), 'approved later');
    const once = await plain.client.callTool({ name: 'write_file', arguments: args });
    assert.equal(once.isError, true, 'an approval runs one call');
    const other = text(once).match(/approval ([A-Za-z0-9_-]+)/)?.[1];
    assert.notEqual(other, id, 'the next call waits for an approval of its own');
    const rejected = spawnSync(toolgate, ['approvals', 'reject', '--message', 'not this file', approvals, other], { encoding: 'utf8' });
    assert.equal(rejected.status, 0, rejected.stderr + rejected.stdout);
    const refused = await plain.client.callTool({ name: 'write_file', arguments: args });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /reject/i, text(refused));
    assert.match(text(refused), /not this file/);
    await plain.client.close();
  });

  await step('the endpoint refuses a foreign Origin, a rebound Host, and messages outside a session', async () => {
    const evil = await raw(url, { headers: { origin: 'http://evil.example' }, body: initialize });
    assert.equal(evil.status, 403, evil.text);
    const rebound = await raw(url, { headers: { host: 'evil.example' }, body: initialize });
    assert.equal(rebound.status, 403, rebound.text);
    const local = await raw(url, { headers: { origin }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
    assert.equal(local.status, 400, 'a loopback Origin passes the check; a request without a session is refused');
    const unknown = await raw(url, { headers: { 'mcp-session-id': 'f'.repeat(32) }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
    assert.equal(unknown.status, 404);
  });

  await step('a session the client ends (DELETE) is gone', async () => {
    const session = fs.transport.sessionId;
    assert.ok(session);
    await fs.transport.terminateSession();
    const after = await raw(url, { headers: { 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }) });
    assert.equal(after.status, 404);
  });

  // The remote side: a server over Streamable HTTP that wants a token, the
  // gateway in front of it wanting a token of its own.
  const serverToken = 'server-token-0123456789abcdef';
  const gatewayToken = 'gateway-token-0123456789abcdef';
  writeFileSync(join(work, 'server-token'), serverToken);
  writeFileSync(join(work, 'gateway-token'), `${gatewayToken}\n`);
  const { match } = await start(process.execPath, [notebook, serverToken], 'stdout', /listening (\d+)\n/);
  const remote = `http://127.0.0.1:${match[1]}/mcp`;
  await ready(remote, (got) => got.status === 401 && got.text === 'token required');
  const nbConfig = { mcp_servers: { notebook: { trusted: true } } };
  const nbUrl = await gateway({
    name: 'notebook',
    config: nbConfig,
    upstream: [remote],
    extra: ['--remote', '--remote-token-file', join(work, 'server-token'), '--token-file', join(work, 'gateway-token')],
  });

  await step('with --token-file the gateway wants the bearer token', async () => {
    const none = await raw(nbUrl, { body: initialize });
    assert.equal(none.status, 401, `${none.status} ${none.text} ${JSON.stringify(none.headers)}`);
    const wrong = await raw(nbUrl, { headers: { authorization: `Bearer ${gatewayToken}x` }, body: initialize });
    assert.equal(wrong.status, 401);
  });

  await step('over HTTP to a remote server: a read-only tool is allowed, a write confirmed and run once accepted', async () => {
    const nbAnswers = [{ action: 'accept', content: { approve: true } }, { action: 'decline' }];
    const nb = await connect(nbUrl, { token: gatewayToken, elicit: () => nbAnswers.shift() });
    const { tools } = await nb.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['add_note', 'read_notes']);
    const added = await nb.client.callTool({ name: 'add_note', arguments: { text: 'buy milk' } });
    assert.equal(added.isError ?? false, false, text(added));
    assert.equal(nb.asked.length, 1, 'the write was confirmed');
    const declined = await nb.client.callTool({ name: 'add_note', arguments: { text: 'never' } });
    assert.equal(declined.isError, true);
    const read = await nb.client.callTool({ name: 'read_notes', arguments: {} });
    assert.equal(read.isError ?? false, false, text(read));
    assert.deepEqual(JSON.parse(text(read)), ['buy milk'], 'only the accepted note reached the server');
    assert.equal(nb.asked.length, 2, 'the read asked nobody');
    await nb.client.close();
  });

  await step('the gateway refuses to listen off loopback without a token', async () => {
    const r = spawnSync(toolgate, ['mcp-proxy', '--listen', '0.0.0.0:0', '--audit', audit, '--pins', pins, '--approvals', approvals, '--', process.execPath, fsServer, files], { encoding: 'utf8', timeout: 20000 });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /not a loopback address: give --token-file/);
  });
}

async function transcript() {
  const files = join(work, 'files');
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'notes.txt'), 'buy milk');
  const config = { mcp_servers: { fs: { trusted: true } }, denied_tools: ['mcp:fs/move_file'] };
  const url = await gateway({ name: 'fs', config, upstream: [process.execPath, fsServer, files] });
  console.log(`# toolgate mcp-proxy --listen 127.0.0.1:0 --name fs --config fs.json -- node server-filesystem FILES`);
  console.log(`# ${JSON.stringify(config)}`);
  console.log(`# endpoint ${url}; the client is the MCP TypeScript SDK's, over StreamableHTTPClientTransport`);
  const answers = [{ action: 'accept', content: { approve: true } }];
  const session = await connect(url, { elicit: () => answers.shift() });
  const show = (arrow, message) => {
    const copy = structuredClone(message);
    if (copy.result?.tools) copy.result.tools = [`… ${copy.result.tools.length} tools`];
    if (copy.result?.capabilities) copy.result = { serverInfo: copy.result.serverInfo, '…': '' };
    console.log(`${arrow} ${JSON.stringify(copy)}`);
  };
  const send = session.transport.send.bind(session.transport);
  session.transport.send = (message, options) => {
    show('client → gateway (POST)', message);
    return send(message, options);
  };
  const receive = session.transport.onmessage;
  session.transport.onmessage = (message, extra) => {
    show('gateway → client (SSE)', message);
    receive(message, extra);
  };
  await session.client.listTools();
  await session.client.callTool({ name: 'read_text_file', arguments: { path: join(files, 'notes.txt') } });
  await session.client.callTool({ name: 'write_file', arguments: { path: join(files, 'notes.txt'), content: 'buy oat milk', risk_level: 'medium' } });
  await session.client.callTool({ name: 'move_file', arguments: { source: join(files, 'notes.txt'), destination: '/tmp/elsewhere.txt' } });
  await session.transport.terminateSession();
  await session.client.close();
  console.log(`# audit log (${audit}):`);
  for (const line of readFileSync(audit, 'utf8').trim().split('\n')) console.log(line);
}

function stopAll() {
  for (const child of started) {
    child.stdin?.end();
    child.kill('SIGTERM');
  }
}

try {
  if (mode === 'transcript') await transcript();
  else await checks();
  stopAll();
  process.exit(0);
} catch (e) {
  console.error(`not ok - ${e.stack ?? e}`);
  console.error(stderrLog.join(''));
  stopAll();
  process.exit(1);
}
