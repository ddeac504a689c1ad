// The adapter blocks of docs/adapters.md, run as written: each code block of "Agent SDK
// adapters" is saved as a module beside the tests (so `toolgate/…` and the
// SDKs resolve from this package) and imported, its free variables (the
// user's model, tools, messages, configuration, `ask`) given by the test.
// The MCP block starts the real filesystem server from node_modules instead
// of through npx (no network), on a temporary directory instead of /srv/docs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MockLanguageModelV3 } from 'ai/test';
import { tool } from 'ai';
import { tool as agentTool, Usage } from '@openai/agents';
import { z } from 'zod';
import { pkg, root } from './paths.js';

process.env.OPENAI_AGENTS_DISABLE_TRACING = '1';
const readme = readFileSync(join(root, 'docs', 'adapters.md'), 'utf8');

/** The first js block after `## \`name\`` in docs/adapters.md ("Agent SDK adapters"). */
function block(name) {
  const section = readme.slice(readme.indexOf('# Agent SDK adapters'));
  const at = section.indexOf(`## \`${name}\``);
  assert.ok(at >= 0, `docs/adapters.md has a section for ${name}`);
  const m = /```js\n([\s\S]*?)```/.exec(section.slice(at));
  assert.ok(m, `the ${name} section has a js block`);
  return m[1];
}

/**
 * Runs `code` as a module in a scratch directory (the working directory
 * until `after` has run: the audit file is opened relative to it), with
 * `given` as free variables; `after(out)` gets `outputs` and the audit lines.
 */
async function runBlock(code, given, outputs, after = async () => {}) {
  const dir = mkdtempSync(join(pkg, 'test', '.readme-'));
  const cwd = process.cwd();
  try {
    process.chdir(dir);
    const prelude = `const { ${Object.keys(given).join(', ')} } = globalThis.__readme;\n`;
    const file = join(dir, 'block.mjs');
    writeFileSync(file, `${prelude}${code}\nglobalThis.__readme.out = { ${outputs.join(', ')} };\n`);
    globalThis.__readme = given;
    await import(pathToFileURL(file).href);
    const out = globalThis.__readme.out;
    await after(out);
    // Nothing is recorded until a call ends (a pending approval is in the store).
    let text = '';
    try {
      text = readFileSync(join(dir, 'audit.jsonl'), 'utf8');
    } catch {
      // No call ended.
    }
    const audit = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    return { ...out, audit };
  } finally {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
    delete globalThis.__readme;
  }
}

const USAGE = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };
const DELETE = JSON.stringify({ sql: 'DELETE FROM sessions WHERE expired', risk_level: 'high' });

test('README toolgate/ai-sdk: a confirmed call becomes an approval request with the summary; the policy saw risk_level', async () => {
  const model = new MockLanguageModelV3({
    doGenerate: {
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'execute_sql', input: DELETE }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage: USAGE,
      warnings: [],
    },
  });
  let ran = 0;
  const tools = { execute_sql: tool({ inputSchema: z.object({ sql: z.string() }), execute: async () => ++ran }) };
  const out = await runBlock(block('toolgate/ai-sdk'), { config: {}, model, tools, messages: [{ role: 'user', content: 'clean up' }] }, ['result', 'gate']);
  const approval = out.result.content.find((p) => p.type === 'tool-approval-request');
  assert.ok(approval, JSON.stringify(out.result.content));
  assert.match(approval.reason, /DELETE FROM sessions/);
  assert.equal(ran, 0);
  const [pending] = await out.gate.pending();
  assert.equal(pending.request.decision.llmRisk, 'high');
  assert.equal(pending.request.callId, 'c1');
  assert.ok(model.doGenerateCalls[0].tools[0].inputSchema.properties.risk_level);
});

test('README toolgate/openai-agents: the interruption asked, approved, run through the gate', async () => {
  let turn = 0;
  const model = {
    async getResponse() {
      turn += 1;
      const output =
        turn === 1
          ? [{ type: 'function_call', callId: 'c1', name: 'execute_sql', arguments: DELETE, status: 'completed' }]
          : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'cleaned' }] }];
      return { usage: new Usage(), output };
    },
    async *getStreamedResponse() {
      throw new Error('not scripted');
    },
  };
  const ran = [];
  const tools = [
    agentTool({ name: 'execute_sql', description: 'SQL', parameters: z.object({ sql: z.string() }), execute: async ({ sql }) => (ran.push(sql), 'ok') }),
  ];
  const asked = [];
  const ask = async (item) => (asked.push(item), true);
  const out = await runBlock(block('toolgate/openai-agents'), { config: {}, model, tools, input: 'clean up', ask }, ['result']);
  assert.equal(asked.length, 1);
  assert.deepEqual(ran, ['DELETE FROM sessions WHERE expired']);
  assert.equal(out.result.finalOutput, 'cleaned');
  assert.equal(out.audit.at(-1).status, 'executed');
  assert.ok(out.audit.at(-1).decision.findings.includes('llm.high'));
});

test('README toolgate/mcp: the real filesystem server, a read allowed by its trusted hint, a write rejected', async () => {
  const docs = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-docs-')));
  try {
    writeFileSync(join(docs, 'note.txt'), 'hello from the docs');
    const server = join(pkg, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
    const npx = "command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/docs']";
    const code = block('toolgate/mcp');
    assert.ok(code.includes(npx));
    const local = code.replace(npx, `command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(server)}, ${JSON.stringify(docs)}]`);
    const asked = [];
    const ask = (request) => (asked.push(request), { answer: 'reject', message: 'not now' });
    const read = { name: 'files__read_text_file', arguments: { path: join(docs, 'note.txt'), risk_level: 'low' } };
    const out = await runBlock(local, { config: {}, ask, call: read }, ['result', 'tools', 'mcp'], async (out) => {
      try {
        assert.ok(out.tools.some((t) => t.name === 'files__write_file' && t.inputSchema.properties.risk_level));
        assert.equal(out.result.isError, undefined, JSON.stringify(out.result));
        assert.match(out.result.content[0].text, /hello from the docs/);
        assert.equal(asked.length, 0);
        const write = await out.mcp.callTool({ name: 'files__write_file', arguments: { path: join(docs, 'new.txt'), content: 'x' } });
        assert.equal(write.isError, true);
        assert.equal(JSON.parse(write.content[0].text).status, 'rejected');
        assert.equal(asked.length, 1);
        assert.throws(() => readFileSync(join(docs, 'new.txt')), /ENOENT/);
      } finally {
        await out.mcp.close();
      }
    });
    assert.deepEqual(
      out.audit.map((l) => [l.tool, l.status]),
      [
        ['mcp:files/read_text_file', 'executing'],
        ['mcp:files/read_text_file', 'executed'],
        ['mcp:files/write_file', 'rejected'],
      ],
    );
  } finally {
    rmSync(docs, { recursive: true, force: true });
  }
});
