// One name per tool across the surfaces: a denial, an auto-approval and an
// allow rule written for an MCP tool as the gateway names it
// (`mcp:SERVER/TOOL`) hold for that tool in the gateway (the MCP SDK's client
// in front of the reference filesystem server, the gateway's audit naming the
// tool by that name), in the hook events of Claude Code, Gemini CLI and Codex
// (`mcp__SERVER__TOOL`, through both CLIs), in `toolgate assess` and in the
// JavaScript engine; and never for another server's tool of the same name.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadPolicy } from '../src/index.js';
import { jsCli, pkg, rustCli } from './paths.js';

const CONFIG = {
  mcp_servers: { fs: { trusted: true } },
  denied_tools: ['mcp:fs/move_file'],
  auto_approved_tools: ['mcp:fs/write_file'],
  rules: [{ effect: 'allow', tool: 'mcp:fs/create_directory' }],
};

/** What each surface must decide for the filesystem server's tools, by name. */
// Each but `move_file` writes, so without its name in the configuration a
// person would be asked, as for `edit_file`, which nothing names.
const EXPECTED = {
  move_file: 'deny',
  write_file: 'allow',
  create_directory: 'allow',
  edit_file: 'confirm',
};

function withWork(f) {
  return async () => {
    const work = mkdtempSync(join(tmpdir(), 'toolgate-names-'));
    try {
      await f(work);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  };
}

function args(tool, served) {
  const path = join(served, 'made');
  return {
    move_file: { source: join(served, 'note.txt'), destination: join(served, 'moved.txt') },
    write_file: { path: join(served, 'new.txt'), content: 'x' },
    create_directory: { path },
    edit_file: { path: join(served, 'note.txt'), edits: [{ oldText: 'a note', newText: 'an edit' }] },
  }[tool];
}

test(
  'the gateway decides a tool under the name the rules give it, and audits it by that name',
  withWork(async (work) => {
    const served = join(work, 'served');
    mkdirSync(served);
    writeFileSync(join(served, 'note.txt'), 'a note\n');
    const config = join(work, 'config.json');
    writeFileSync(config, JSON.stringify(CONFIG));
    const audit = join(work, 'audit.jsonl');
    const fsServer = join(pkg, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
    const transport = new StdioClientTransport({
      command: rustCli,
      args: ['mcp-proxy', '--config', config, '--name', 'fs', '--audit', audit, '--approvals', join(work, 'approvals'), '--pins', join(work, 'pins.json'), '--', process.execPath, fsServer, served],
      stderr: 'pipe',
    });
    // No elicitation: a confirmed call answers with a pending approval.
    const client = new Client({ name: 'names', version: '1.0.0' });
    await client.connect(transport);
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name);
      for (const tool of Object.keys(EXPECTED)) assert.ok(listed.includes(tool), `${tool} is listed`);
      for (const [tool, expected] of Object.entries(EXPECTED)) {
        const result = await client.callTool({ name: tool, arguments: args(tool, served) });
        const text = result.content.map((c) => c.text ?? '').join('');
        if (expected === 'allow') assert.notEqual(result.isError, true, `${tool}: ${text}`);
        else if (expected === 'deny') assert.match(text, /"status":"denied"/, tool);
        else assert.match(text, /approv/i, `${tool} waits for a person: ${text}`);
      }
    } finally {
      await client.close();
    }
    const lines = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    // What ran or was refused is audited under the name the rules gave it (a
    // call waiting for a person is audited once it is answered).
    for (const [tool, expected] of Object.entries(EXPECTED).filter(([, e]) => e !== 'confirm')) {
      const line = lines.find((l) => l.tool === `mcp:fs/${tool}`);
      assert.ok(line, `the audit names mcp:fs/${tool}`);
      assert.equal(line.decision.action, expected, tool);
    }
    assert.ok(!lines.some((l) => l.tool === 'mcp:fs/edit_file' && l.status === 'executed'), 'the unnamed write did not run');
  }),
);

/** A hook event for `tool` in each agent's documented shape. */
const EVENTS = {
  'claude-code': (tool, cwd) => ({ session_id: 's', transcript_path: '/t.jsonl', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: {} }),
  'gemini-cli': (tool, cwd) => ({ session_id: 's', transcript_path: '/t.json', cwd, hook_event_name: 'BeforeTool', timestamp: '2026-01-01T00:00:00Z', tool_name: tool, tool_input: {} }),
  codex: (tool, cwd) => ({ session_id: 's', transcript_path: '/t.jsonl', cwd, model: 'gpt', permission_mode: 'default', hook_event_name: 'PreToolUse', turn_id: 't', tool_name: tool, tool_input: {}, tool_use_id: 'c' }),
};

/** The decision an answer in the agent's shape carries (`none`: no opinion). */
function decisionOf(format, out) {
  if (Object.keys(out).length === 0) return 'none';
  if (format === 'gemini-cli') return out.decision;
  return out.hookSpecificOutput.permissionDecision;
}

/** What each agent is told for a decision (Codex acts on deny only, and cannot ask). */
const ANSWER = {
  'claude-code': { allow: 'allow', deny: 'deny', confirm: 'ask' },
  'gemini-cli': { allow: 'allow', deny: 'deny', confirm: 'ask' },
  codex: { allow: 'none', deny: 'deny', confirm: 'deny' },
};

test(
  'a hook event names the tool as the agent does, and the gateway names rules apply to it',
  withWork(async (work) => {
    const config = join(work, 'config.json');
    writeFileSync(config, JSON.stringify(CONFIG));
    for (const [format, event] of Object.entries(EVENTS)) {
      for (const [tool, expected] of [...Object.entries(EXPECTED), ['other:move_file', 'confirm'], ['other:write_file', 'confirm']]) {
        const [server, name] = tool.includes(':') ? tool.split(':') : ['fs', tool];
        const input = JSON.stringify(event(`mcp__${server}__${name}`, work));
        const answers = [rustCli, jsCli].map((cli) => {
          const argv = cli === jsCli ? [process.execPath, cli] : [cli];
          const r = spawnSync(argv[0], [...argv.slice(1), 'hook', '--config', config, format], { input, encoding: 'utf8' });
          assert.equal(r.status, 0, `${format} ${tool}: ${r.stderr}`);
          return r.stdout;
        });
        assert.equal(answers[0], answers[1], `${format} ${tool}: both CLIs answer alike`);
        assert.equal(decisionOf(format, JSON.parse(answers[0])), ANSWER[format][expected], `${format} mcp__${server}__${name}: ${answers[0]}`);
      }
    }
  }),
);

test(
  'toolgate assess and the JavaScript engine decide the gateway names alike',
  withWork(async (work) => {
    const config = join(work, 'config.json');
    writeFileSync(config, JSON.stringify(CONFIG));
    const engine = (await loadPolicy()).engine(CONFIG);
    for (const [tool, expected] of Object.entries(EXPECTED)) {
      const name = `mcp:fs/${tool}`;
      const r = spawnSync(rustCli, ['assess', '--json', '--config', config, name, '{}'], { encoding: 'utf8' });
      assert.equal(JSON.parse(r.stdout).action, expected, `assess ${name}: ${r.stdout}`);
      assert.equal(engine.assess(name, '{}').action, expected, `the JavaScript engine on ${name}`);
    }
    const other = spawnSync(rustCli, ['assess', '--json', '--config', config, 'mcp:other/move_file', '{}'], { encoding: 'utf8' });
    assert.equal(JSON.parse(other.stdout).action, 'confirm', 'another server\'s tool of the same name is not that tool');
  }),
);
