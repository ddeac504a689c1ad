// Seed 002's monitoring flow end to end in Node, in CI: the example's scripted
// conversation against its stand-in server, checked call by call (the twin of
// host-rs/tests/monitoring.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../examples/monitoring.js';

test('mute, list, and a denied delete', async () => {
  const { transcript, received, statuses, audit } = await run();
  for (const line of transcript) console.log(line);
  assert.deepEqual(statuses, ['executed', 'executed', 'denied']);
  const t = transcript.join('\n');
  assert.ok(t.includes('[discover] alert_mute_create (level 2'), t);
  assert.ok(t.includes('[gate] executed (confirm · risk medium · source default)'), t);
  assert.ok(t.includes('the operator approves'), t);
  assert.ok(t.includes('tool result → model: {"status":"executed","output":"{\\"id\\":123}"}'), t);
  assert.ok(t.includes('[gate] executed (allow · risk low · source registry)'), t);
  assert.ok(t.includes('lacks the permission `/alert-rules/del`'), t);
  // Two executions (each with its write-ahead record) and one denial.
  assert.ok(t.includes('audit: 5 records, chain verified'), t);
  assert.equal(received.length, 2, JSON.stringify(received));
  assert.deepEqual(
    received.map((r) => [r.method, r.target, r.body]),
    [
      ['POST', '/api/n9e/busi-group/1/alert-mutes', '{"targets":["host-01"],"cause":"CPU 告警维护","duration":3600}'],
      ['GET', '/api/n9e/busi-group/1/alert-rules?query=cpu', ''],
    ],
  );
  assert.ok(received.every((r) => r.authorization === 'Bearer demo-user-token'));
  assert.match(audit.split('\n')[4], /"status":"denied"/);
});
