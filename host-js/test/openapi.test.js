// Import an API and call every operation: the Petstore document imported by
// the component, and each of its 19 operations called the way a model calls
// it, through the gate (approved when confirmed), into the exact request a
// loopback stand-in server must receive (tests/openapi/petstore-calls.jsonl).
// host-rs/tests/openapi.rs is the twin.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { loadPolicy, Gate, ApiClient } from '../src/index.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

function startServer(received) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      // A zero-length body is no body (fetch declares one for a POST without).
      const body = Buffer.concat(chunks).toString('utf8');
      received.push([req.method, req.url, body === '' ? null : body]);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test('every Petstore operation becomes the request the server expects', async () => {
  const policy = await loadPolicy();
  const spec = parseYaml(readFileSync(join(root, 'tests/openapi/petstore-openapi.yaml'), 'utf8'));
  const imported = policy.importOpenapi(spec);
  assert.equal(imported.summary.length, 19);
  const received = [];
  const server = await startServer(received);
  try {
    const asked = [];
    const gate = new Gate(policy, {
      config: JSON.stringify({ tools: imported.tools }),
      approve: (request) => {
        asked.push(request.tool);
        return { answer: 'approve', by: 'tester' };
      },
    });
    const client = new ApiClient(policy, `http://127.0.0.1:${server.address().port}`);
    const cases = readFileSync(join(root, 'tests/openapi/petstore-calls.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
    for (const { tool, args, expect } of cases) {
      const decision = gate.engine.assess(tool, args);
      assert.equal(decision.action, expect.action, `${tool}: ${decision.summary}`);
      const before = received.length;
      const result = await gate.run({ tool, args }, client.executor(gate.engine, tool));
      assert.equal(result.status, 'executed', `${tool}: ${result.forModel()}`);
      assert.equal(received.length, before + 1, `${tool}: one request`);
      const [method, target, body] = received.at(-1);
      assert.equal(method, expect.method, tool);
      assert.equal(target, expect.target, tool);
      assert.equal(body, expect.body, tool);
      assert.ok(body === null || !body.includes('risk_level'), `${tool}: risk_level is never sent`);
    }
    assert.deepEqual(cases.map((c) => c.tool).sort(), Object.keys(imported.tools).sort());
    assert.deepEqual(asked, cases.filter((c) => c.expect.action === 'confirm').map((c) => c.tool));
  } finally {
    server.close();
  }
});

test('a malformed argument reaches a person, not the server', async () => {
  const policy = await loadPolicy();
  const spec = parseYaml(readFileSync(join(root, 'tests/openapi/petstore-openapi.yaml'), 'utf8'));
  const engine = policy.engine(JSON.stringify({ tools: policy.importOpenapi(spec).tools }));
  const d = engine.assess('getPetById', '{"petId":"1; DROP TABLE pets","risk_level":"low"}');
  assert.equal(d.action, 'confirm');
  assert.equal(d.findings[0].code, 'args.schema');
  assert.match(d.findings[0].message, /`petId`: an integer/);
});

test('a response template turns the response into the text for the model', async () => {
  const policy = await loadPolicy();
  const engine = policy.engine(
    JSON.stringify({
      tools: { pets: { kind: 'api', method: 'GET', url: '/pets', response_template: '{{#items}}- {{name}}\n{{/items}}{{^items}}no pets{{/items}}' } },
    }),
  );
  assert.deepEqual(engine.readToolResponse('pets', 200, '{"items":[{"name":"rex"},{"name":"tom"}]}'), { ok: true, result: '- rex\n- tom\n' });
  assert.deepEqual(engine.readToolResponse('pets', 200, '{"dat":{"items":[]},"error":""}'), { ok: true, result: 'no pets' });
  assert.deepEqual(engine.readToolResponse('pets', 500, 'boom'), { ok: false, error: 'HTTP 500: boom' });
});
