// End-to-end test of `toolgate mcp-proxy`: the MCP TypeScript SDK's Client
// (from host-js/node_modules) against the reference filesystem and
// "everything" servers and a stand-in server whose tools change, through the
// proxy binary. Run by host-rs/tests/mcp_proxy.rs:
//   node tests/mcp/e2e.mjs TOOLGATE WORKDIR           the checks
//   node tests/mcp/e2e.mjs TOOLGATE WORKDIR bench N   the added latency
//   node tests/mcp/e2e.mjs TOOLGATE WORKDIR transcript  one gated session's messages
// Each check asserts; the first failure exits 1 with its message.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const modules = join(root, 'host-js', 'node_modules', '@modelcontextprotocol');
const load = (path) => import(pathToFileURL(join(modules, path)).href);
const { Client } = await load('sdk/dist/esm/client/index.js');
const { StdioClientTransport } = await load('sdk/dist/esm/client/stdio.js');
const { CreateMessageRequestSchema, ElicitRequestSchema } = await load('sdk/dist/esm/types.js');
const fsServer = join(modules, 'server-filesystem', 'dist', 'index.js');
const everything = join(modules, 'server-everything', 'dist', 'index.js');
const changing = join(here, 'changing-server.mjs');

const [toolgate, work, mode, count] = process.argv.slice(2);
const audit = join(work, 'audit.jsonl');
const pins = join(work, 'pins.json');
const stderrLog = [];

/** A client connected to COMMAND through the proxy (or directly when `proxy` is null). */
async function connect({ proxy = [], server, elicit = null, config = null, sample = null }) {
  let command = process.execPath;
  let args = server;
  if (proxy) {
    command = toolgate;
    const options = ['--audit', audit, '--pins', pins, ...proxy];
    if (config) {
      const file = join(work, `config-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, JSON.stringify(config));
      options.push('--config', file);
    }
    args = ['mcp-proxy', ...options, '--', process.execPath, ...server];
  }
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  const capabilities = { ...(elicit ? { elicitation: {} } : {}), ...(sample ? { sampling: {} } : {}) };
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities });
  if (sample) client.setRequestHandler(CreateMessageRequestSchema, async (request) => sample(request.params));
  const asked = [];
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return elicit(request.params);
    });
  }
  await client.connect(transport);
  transport.stderr?.on('data', (chunk) => stderrLog.push(chunk.toString()));
  return { client, transport, asked };
}

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
  writeFileSync(join(files, 'hello.txt'), 'hello from the file system');
  const fsConfig = {
    mcp_servers: { fs: { trusted: true } },
    denied_tools: ['mcp:fs/create_directory'],
  };
  const answers = [];
  const fs = await connect({
    proxy: ['--name', 'fs', '--augment'],
    server: [fsServer, files],
    config: fsConfig,
    elicit: () => answers.shift(),
  });

  await step('tools/list passes through, with risk_level added by --augment', async () => {
    const { tools } = await fs.client.listTools();
    const write = tools.find((t) => t.name === 'write_file');
    assert.ok(write, 'write_file listed');
    assert.equal(write.annotations.destructiveHint, true);
    assert.ok(write.inputSchema.properties.risk_level, 'risk_level added');
  });

  await step('a read is allowed and reaches the server', async () => {
    const result = await fs.client.callTool({ name: 'read_text_file', arguments: { path: join(files, 'hello.txt') } });
    assert.equal(result.isError ?? false, false, text(result));
    assert.equal(text(result), 'hello from the file system');
    assert.equal(fs.asked.length, 0, 'nobody was asked');
  });

  await step('a write is confirmed through elicitation and runs when accepted', async () => {
    answers.push({ action: 'accept', content: { approve: true } });
    const target = join(files, 'accepted.txt');
    const result = await fs.client.callTool({ name: 'write_file', arguments: { path: target, content: 'approved', risk_level: 'high' } });
    assert.equal(result.isError ?? false, false, text(result));
    assert.equal(readFileSync(target, 'utf8'), 'approved');
    assert.equal(fs.asked.length, 1);
    const { message, requestedSchema } = fs.asked[0];
    assert.match(message, /write_file/);
    assert.match(message, /accepted\.txt/, 'the arguments are shown');
    assert.equal(requestedSchema.properties.approve.type, 'boolean');
  });

  await step('a write declined in the elicitation never runs', async () => {
    answers.push({ action: 'decline' });
    const target = join(files, 'declined.txt');
    const result = await fs.client.callTool({ name: 'write_file', arguments: { path: target, content: 'no' } });
    assert.equal(result.isError, true);
    assert.match(text(result), /reject|not approve|declined/i);
    assert.equal(existsSync(target), false, 'the file was not written');
  });

  await step('a denied tool never reaches the server', async () => {
    const target = join(files, 'denied-dir');
    const result = await fs.client.callTool({ name: 'create_directory', arguments: { path: target } });
    assert.equal(result.isError, true);
    assert.match(text(result), /denied|deny/i);
    assert.equal(existsSync(target), false, 'the directory was not created');
    assert.equal(fs.asked.length, 2, 'nobody was asked about a denied call');
  });
  await fs.client.close();

  await step('without the elicitation capability, a confirmed call is an error that says how to approve', async () => {
    const plain = await connect({ proxy: ['--name', 'fs'], server: [fsServer, files], config: fsConfig });
    await plain.client.listTools();
    const target = join(files, 'unasked.txt');
    const result = await plain.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(result.isError, true);
    assert.match(text(result), /person must approve/);
    assert.match(text(result), /mcp:fs\/write_file/);
    assert.equal(existsSync(target), false);
    await plain.client.close();
  });

  await step('everything else passes through unchanged: ping, prompts, resources, progress, the server\'s own requests', async () => {
    const config = {
      mcp_servers: { everything: { trusted: true } },
      rules: [{ effect: 'allow', tool: 'mcp:everything/trigger-sampling-request' }],
    };
    const sampled = [];
    const sample = (params) => {
      sampled.push(params);
      return { model: 'stand-in', role: 'assistant', content: { type: 'text', text: 'sampled through the gateway' } };
    };
    const direct = await connect({ proxy: null, server: [everything, 'stdio'], sample });
    const proxied = await connect({ proxy: ['--name', 'everything'], server: [everything, 'stdio'], config, sample });
    for (const c of [direct, proxied]) await c.client.ping();
    assert.deepEqual(await proxied.client.listPrompts(), await direct.client.listPrompts());
    const resources = await direct.client.listResources();
    assert.deepEqual(await proxied.client.listResources(), resources);
    const uri = resources.resources[0].uri;
    assert.deepEqual(await proxied.client.readResource({ uri }), await direct.client.readResource({ uri }));
    await proxied.client.listTools();
    const echo = await proxied.client.callTool({ name: 'echo', arguments: { message: 'through' } });
    assert.match(text(echo), /through/);
    const progress = [];
    const long = await proxied.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    assert.equal(long.isError ?? false, false, text(long));
    assert.ok(progress.length >= 2, `progress notifications passed through (${progress.length})`);
    const sampling = await proxied.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say hi', maxTokens: 10 } });
    assert.equal(sampling.isError ?? false, false, text(sampling));
    assert.match(text(sampling), /sampled through the gateway/, 'the server\'s sampling request reached the client and its answer the server');
    assert.equal(sampled.length, 1);
    await direct.client.close();
    await proxied.client.close();
  });

  const state = join(work, 'changing');
  mkdirSync(state, { recursive: true });
  const changingConfig = { mcp_servers: { changing: { trusted: true } } };
  await step('a changed tool definition is caught and confirmed until approved', async () => {
    writeFileSync(join(state, 'version'), '1');
    const first = await connect({ proxy: ['--name', 'changing'], server: [changing, state], config: changingConfig });
    await first.client.listTools();
    const before = await first.client.callTool({ name: 'lookup', arguments: { word: 'one', risk_level: 'low' } });
    assert.equal(text(before), 'one: found');
    assert.doesNotMatch(readFileSync(join(state, 'calls'), 'utf8'), /risk_level/, 'risk_level is stripped before the server');
    writeFileSync(join(state, 'version'), '2');
    const { tools } = await first.client.listTools();
    assert.match(tools.find((t) => t.name === 'lookup').description, /id_rsa/, 'the listing itself passes through');
    const after = await first.client.callTool({ name: 'lookup', arguments: { word: 'two' } });
    assert.equal(after.isError, true, 'the changed tool is no longer allowed unasked');
    assert.match(text(after), /definition changed/);
    assert.match(stderrLog.join(''), /mcp\.pin-changed: the definition of tool `lookup` of server `changing` changed/);
    const listed = spawnSync(toolgate, ['mcp', 'pins', 'list', '--pins', pins], { encoding: 'utf8' });
    const lookup = listed.stdout.trim().split('\n').map((l) => JSON.parse(l)).find((p) => p.tool === 'lookup');
    assert.equal(typeof lookup.changed, 'string', listed.stdout + listed.stderr);
    const approved = spawnSync(toolgate, ['mcp', 'pins', 'approve', '--pins', pins, 'changing', 'lookup'], { encoding: 'utf8' });
    assert.equal(approved.status, 0, approved.stderr);
    // The running gateway reads the approval at the tool's next call.
    const again = await first.client.callTool({ name: 'lookup', arguments: { word: 'three' } });
    assert.equal(text(again), 'three: found');
    await first.client.close();
    const calls = readFileSync(join(state, 'calls'), 'utf8');
    assert.doesNotMatch(calls, /"two"/, 'the confirmed call never reached the server');
  });

  await step('a server cannot name itself into trust: without --name the name is the program\'s', async () => {
    const c = await connect({ proxy: [], server: [changing, state], config: changingConfig });
    await c.client.listTools();
    const result = await c.client.callTool({ name: 'lookup', arguments: { word: 'self-named' } });
    assert.equal(result.isError, true, 'the read-only hint of an untrusted server does not allow');
    assert.match(text(result), /mcp:node\/lookup/);
    await c.client.close();
    assert.doesNotMatch(readFileSync(join(state, 'calls'), 'utf8'), /self-named/);
  });

  await step('an approval nobody answers ends at its deadline, and the call is not run', async () => {
    const c = await connect({
      proxy: ['--name', 'fs'],
      server: [fsServer, files],
      config: { ...fsConfig, approval_timeout_ms: 700 },
      elicit: () => new Promise(() => {}),
    });
    await c.client.listTools();
    const target = join(files, 'unanswered.txt');
    const result = await c.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(result.isError, true);
    assert.match(text(result), /nobody answered/);
    assert.equal(existsSync(target), false);
    await c.client.close();
  });

  await step('a client line that is not JSON gets a parse error, and the gateway exits when the client closes', async () => {
    const proxy = spawn(toolgate, ['mcp-proxy', '--name', 'changing', '--audit', audit, '--pins', pins, '--', process.execPath, changing, state], { stdio: ['pipe', 'pipe', 'ignore'] });
    const lines = [];
    let buffered = '';
    proxy.stdout.on('data', (chunk) => {
      buffered += chunk;
      const parts = buffered.split('\n');
      buffered = parts.pop();
      lines.push(...parts.filter(Boolean).map((l) => JSON.parse(l)));
    });
    proxy.stdin.write('this is not json\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    const deadline = Date.now() + 10_000;
    while (lines.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(lines[0].error.code, -32700);
    assert.equal(lines[0].id, null);
    assert.deepEqual(lines[1], { jsonrpc: '2.0', id: 7, result: {} });
    const exited = new Promise((r) => proxy.on('exit', (code) => r(code)));
    proxy.stdin.end();
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('hung'), 10_000))]);
    if (code === 'hung') proxy.kill('SIGKILL');
    assert.equal(code, 0);
  });

  await step('a killed server is reported to the client, not left hanging', async () => {
    const c = await connect({ proxy: ['--name', 'changing'], server: [changing, state], config: changingConfig });
    await c.client.listTools();
    const pending = c.client.callTool({ name: 'slow', arguments: {} }).then(
      () => 'answered',
      (e) => e.message,
    );
    await new Promise((r) => setTimeout(r, 300));
    process.kill(Number(readFileSync(join(state, 'pid'), 'utf8')), 'SIGKILL');
    const outcome = await Promise.race([pending, new Promise((r) => setTimeout(() => r('hung'), 10_000))]);
    assert.match(outcome, /MCP server exited/);
    // The gateway exits too, though the client has not closed its side.
    const pid = c.transport.pid;
    let alive = true;
    for (let i = 0; alive && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        process.kill(pid, 0);
      } catch {
        alive = false;
      }
    }
    assert.equal(alive, false, 'the gateway exited after its server died');
    await c.client.close();
  });

  await step('a server that writes garbage is reported to the client', async () => {
    const c = await connect({ proxy: ['--name', 'changing'], server: [changing, state], config: changingConfig });
    await c.client.listTools();
    const outcome = await Promise.race([
      c.client.callTool({ name: 'garbage', arguments: {} }).then(() => 'answered', (e) => e.message),
      new Promise((r) => setTimeout(() => r('hung'), 10_000)),
    ]);
    assert.match(outcome, /not JSON/);
    await c.client.close();
  });
  console.log(JSON.stringify({ steps: steps.length }));
}

/** The median time of N echo calls, directly and through the proxy. */
async function bench(n) {
  const config = { mcp_servers: { everything: { trusted: true } } };
  const result = {};
  for (const [name, proxy] of [['direct', null], ['proxy', ['--name', 'everything']]]) {
    const c = await connect({ proxy, server: [everything, 'stdio'], config });
    await c.client.listTools();
    const times = [];
    for (let i = 0; i < n + 10; i++) {
      const start = process.hrtime.bigint();
      await c.client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
      if (i >= 10) times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    result[name] = { median_ms: times[Math.floor(times.length / 2)], calls: n };
    await c.client.close();
  }
  result.added_ms = result.proxy.median_ms - result.direct.median_ms;
  console.log(JSON.stringify(result));
}

/** One gated session with the filesystem server, every message printed as it crosses. */
async function transcript() {
  const files = join(work, 'files');
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'notes.txt'), 'buy milk');
  const config = { mcp_servers: { fs: { trusted: true } }, denied_tools: ['mcp:fs/move_file'] };
  const answers = [{ action: 'accept', content: { approve: true } }];
  const session = await connect({ proxy: ['--name', 'fs'], server: [fsServer, files], config, elicit: () => answers.shift() });
  const show = (arrow, message) => {
    const copy = structuredClone(message);
    if (copy.result?.tools) copy.result.tools = [`… ${copy.result.tools.length} tools`];
    if (copy.result?.capabilities) copy.result = { serverInfo: copy.result.serverInfo, '…': '' };
    console.log(`${arrow} ${JSON.stringify(copy)}`);
  };
  const send = session.transport.send.bind(session.transport);
  session.transport.send = (message, options) => {
    show('client → proxy', message);
    return send(message, options);
  };
  const receive = session.transport.onmessage;
  session.transport.onmessage = (message, extra) => {
    show('proxy → client', message);
    receive(message, extra);
  };
  await session.client.listTools();
  await session.client.callTool({ name: 'read_text_file', arguments: { path: join(files, 'notes.txt') } });
  await session.client.callTool({ name: 'write_file', arguments: { path: join(files, 'notes.txt'), content: 'buy oat milk', risk_level: 'medium' } });
  await session.client.callTool({ name: 'move_file', arguments: { source: join(files, 'notes.txt'), destination: '/tmp/elsewhere.txt' } });
  await session.client.close();
}

try {
  if (mode === 'bench') await bench(Number(count ?? 200));
  else if (mode === 'transcript') await transcript();
  else await checks();
  process.exit(0);
} catch (e) {
  console.error(`not ok - ${e.stack ?? e}`);
  console.error(stderrLog.join(''));
  process.exit(1);
}
