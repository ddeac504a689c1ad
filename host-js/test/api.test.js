// The API client in JavaScript: results and errors for the model, and a call
// that cannot become a request is never sent (the twin of host-rs/tests/api.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { loadPolicy, ApiClient, RequestError } from '../src/index.js';

const policy = await loadPolicy();

async function server(status, body, delayMs = 0) {
  const seen = [];
  const s = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
    setTimeout(() => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    }, delayMs);
  });
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${s.address().port}`, seen, close: () => s.close() };
}

const get = (url) => ({ method: 'GET', url, body: null });

test('results and errors for the model', async () => {
  const ok = await server(200, '{"dat":[1,2],"error":""}');
  assert.equal(await new ApiClient(policy, ok.url).execute(get('/x')), '[1,2]');
  ok.close();
  const missing = await server(404, '{"dat":null,"error":"no such endpoint"}');
  await assert.rejects(new ApiClient(policy, missing.url).execute(get('/x')), { message: 'HTTP 404: no such endpoint' });
  missing.close();
  const big = await server(200, '0123456789'.repeat(10));
  await assert.rejects(new ApiClient(policy, big.url, { maxResponseBytes: 16 }).execute(get('/x')), /larger than 16 bytes/);
  big.close();
  const slow = await server(200, '{}', 1500);
  await assert.rejects(new ApiClient(policy, slow.url, { timeoutMs: 200 }).execute(get('/x')), /no answer within/);
  slow.close();
  const closed = await server(200, '{}');
  closed.close();
  await new Promise((r) => setTimeout(r, 50));
  await assert.rejects(new ApiClient(policy, closed.url).execute(get('/x')), /^Error: the request failed/);
});

test('a call that cannot become a request is never sent', async () => {
  const engine = policy.engine({ tools: { rules: { kind: 'api', method: 'GET', url: '/groups/:id/rules' } } });
  const s = await server(200, '{}');
  const client = new ApiClient(policy, s.url, { headers: { authorization: 'Bearer t' } });
  await assert.rejects(client.executor(engine, 'rules')('{"id":"1/../../admin"}'), (e) => e instanceof RequestError && /path parameter `id`/.test(e.message));
  await assert.rejects(client.executor(engine, 'rules')('{}'), /missing required parameters: `id`/);
  assert.equal(s.seen.length, 0);
  assert.equal(await client.executor(engine, 'rules')('{"id":7}'), '{}');
  assert.deepEqual(s.seen, [{ method: 'GET', url: '/groups/7/rules', authorization: 'Bearer t' }]);
  s.close();
});
