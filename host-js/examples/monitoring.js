#!/usr/bin/env node
// Seed 002 end to end in Node: an assistant reaches a monitoring system's HTTP
// API through registry tools, under the approval gate. The twin of
// host-rs/examples/monitoring.rs: the same stand-in server (alert rules, alert
// mutes, targets) on loopback, the same scripted conversation — "mute
// host-01's CPU alerts for 1 hour" confirmed and approved, a level-1 list run
// unasked, a delete the user lacks the permission for denied and never sent —
// and the same audit. `node examples/monitoring.js` prints the transcript;
// test/monitoring.test.js runs it in CI.
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPolicy, Gate, ApiClient } from '../src/index.js';
import { JsonlSink } from '../src/node.js';

/** The user's API token: given to the client by the application, never seen by the model. */
const TOKEN = 'Bearer demo-user-token';
const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

/** The stand-in monitoring API: a handful of seed 002's endpoints. */
function startServer(received) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method, target: req.url, authorization: req.headers.authorization ?? null, body });
      const send = (status, payload) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(payload);
      };
      if (req.headers.authorization !== TOKEN) return send(401, '{"dat":null,"error":"unauthorized"}');
      const path = req.url.split('?')[0];
      if (req.method === 'GET' && path === '/api/n9e/targets') {
        return send(200, '{"dat":{"list":[{"ident":"host-01","status":"up"},{"ident":"host-02","status":"down"}],"total":2},"error":""}');
      }
      if (req.method === 'GET' && path.endsWith('/alert-rules')) {
        return send(200, '{"dat":[{"id":11,"name":"cpu usage > 90%","severity":2},{"id":12,"name":"disk full","severity":1}],"error":""}');
      }
      if (req.method === 'POST' && path.endsWith('/alert-mutes')) return send(200, '{"dat":{"id":123},"error":""}');
      if (req.method === 'DELETE' && path.endsWith('/alert-rules')) return send(200, '{"dat":"deleted","error":""}');
      return send(404, '{"dat":null,"error":"no such endpoint"}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Runs the scripted conversation against a fresh stand-in server. */
export async function run() {
  const received = [];
  const server = await startServer(received);
  const transcript = [];
  const say = (line) => transcript.push(line);
  try {
    const registry = readFileSync(join(root, 'examples', 'monitoring', 'registry.json'), 'utf8');
    const auditPath = join(mkdtempSync(join(tmpdir(), 'toolgate-monitoring-')), 'audit.jsonl');
    const policy = await loadPolicy();
    const gate = new Gate(policy, {
      config: registry,
      audit: [new JsonlSink(auditPath)],
      // The person who approves: shown the request, approves it.
      approve: (request) => {
        say(
          `  [approval] ${request.decision.summary} — risk ${request.decision.risk}; findings ${request.decision.findings.map((f) => f.code).join(', ')}`,
        );
        say('  [approval] the operator approves');
        return { answer: 'approve', by: 'operator' };
      },
    });
    const client = new ApiClient(policy, `http://127.0.0.1:${server.address().port}`, { headers: { authorization: TOKEN } });
    // The user may mute alerts but not delete rules.
    const context = { permissions: ['/alert-mutes/add'] };
    const turns = [
      ['帮我屏蔽 host-01 的 CPU 告警 1 小时', 'alert_mute_create', '{"id":1,"targets":["host-01"],"cause":"CPU 告警维护","duration":3600}'],
      ['看看业务组 1 的告警规则', 'alert_rules_list', '{"id":1,"query":"cpu"}'],
      ['删除告警规则 11（CPU 那条）', 'alert_rule_delete', '{"id":1,"ids":[11]}'],
    ];
    const statuses = [];
    for (const [intent, tool, args] of turns) {
      say(`user: ${intent}`);
      const candidates = gate.engine.discover(intent, { limit: 3 });
      say(`  [discover] ${candidates.map((c) => `${c.name} (level ${c.riskLevel}, score ${c.score})`).join(', ')}`);
      const prompt = gate.engine.toolPrompt(candidates.map((c) => c.name), 'zh');
      say(`  [prompt] ${prompt.split('\n').length} lines for the model`);
      say(`model: call ${tool} ${args}`);
      const call = { tool, args, context, sessionId: 'session-1', userId: 'user-7', callId: `call_${tool}` };
      const result = await gate.run(call, client.executor(gate.engine, tool));
      const d = result.decision;
      say(`  [gate] ${result.status} (${d.action} · risk ${d.risk} · source ${d.source})`);
      say(`tool result → model: ${result.forModel()}`);
      statuses.push(result.status);
    }
    const audit = readFileSync(auditPath, 'utf8');
    const { records, head } = policy.verifyAudit(audit);
    say(`audit: ${records} records, chain verified (head ${head.slice(0, 16)})`);
    for (const r of received) say(`server received: ${r.method} ${r.target} ${r.body}`);
    return { transcript, received, statuses, audit };
  } finally {
    server.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { transcript } = await run();
  for (const line of transcript) console.log(line);
}
