// The seeds' own vocabulary in the JavaScript host, played with the seeds'
// own examples; the fixtures under tests/seeds/ are the Rust host's too
// (host-rs/tests/seeds.rs), so both give the same answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  loadPolicy,
  Gate,
  interactionOf,
  isRiskConfirmationQuestion,
  isAffirmative,
  TextConfirmation,
} from '../src/index.js';
import { root } from './paths.js';

const fixture = (name) =>
  readFileSync(join(root, 'tests', 'seeds', name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

test('seed 004: gate events in the seed\'s shape', () => {
  const cases = fixture('seed-004-events.jsonl');
  assert.ok(cases.length >= 10);
  for (const c of cases) assert.deepEqual(interactionOf(c.event, c.language), c.expect, c.name);
});

test('seed 000 §F: questions and replies', () => {
  const cases = fixture('seed-000-confirmation.jsonl');
  assert.ok(cases.length >= 15);
  for (const c of cases) {
    if ('text' in c) assert.equal(isRiskConfirmationQuestion(c.text), c.question, c.name);
    else assert.equal(isAffirmative(c.reply), c.affirmative, c.name);
  }
});

test('seed 002 §7.4 through the loop; the confirmed call is still the policy\'s', async () => {
  const dialogue = new TextConfirmation();
  const question = '这是一个高风险操作，我检测到有以下长时间运行的会话：\n- 会话 ID: 12345\n\n确认要终止这个会话吗？请回复"确认"继续。';
  assert.equal(dialogue.onModel(question), question);
  assert.equal(dialogue.open, question);
  assert.deepEqual(dialogue.onUser('确认'), { kind: 'confirmed', question });
  assert.deepEqual(dialogue.onUser('确认'), { kind: 'not-asked' });
  assert.equal(dialogue.onModel('Should I proceed? It is risky.', true), null);
  assert.equal(dialogue.onModel('Risky. Proceed?'), 'Risky. Proceed?');
  assert.deepEqual(dialogue.onUser('no'), { kind: 'declined', question: 'Risky. Proceed?' });
  const policy = await loadPolicy();
  const engine = policy.engine('[{"name": "dbm_kill_sessions", "type": "api", "method": "POST", "url_pattern": "/api/n9e/dbm/sessions/kill", "risk_level": 3}]');
  try {
    assert.equal(engine.assess('dbm_kill_sessions', { instance_id: 3, session_ids: [12345] }).action, 'confirm');
  } finally {
    engine.dispose();
  }
});

test('the guidance gives seed 000 §F\'s example question, and it reads as one', async () => {
  const policy = await loadPolicy();
  for (const [language, example] of [
    ['en', 'This operation (init system) may be risky. Should I proceed?'],
    ['zh', '这个操作（init system）可能有风险，是否继续？'],
  ]) {
    assert.ok(policy.guidance(language).includes(`"${example}"`), language);
    assert.ok(isRiskConfirmationQuestion(example), example);
  }
});

test('seed 004: a registry tool\'s description reaches the request and the seed\'s event', async () => {
  const definition = readFileSync(join(root, 'tests', 'config', 'seed-002-definition.json'), 'utf8');
  const described = JSON.parse(definition);
  const policy = await loadPolicy();
  const gate = new Gate(policy, { config: definition });
  const seen = [];
  gate.addEventListener('approval-requested', (e) => seen.push(interactionOf(e, 'zh')));
  const call = {
    tool: 'alert_mute_create',
    args: { group_id: 1, tags: [{ key: 'ident', func: '==', value: 'db-master-01' }], cause: '数据库维护', btime: 1704153600, etime: 1704164400 },
  };
  const checked = await gate.check(call);
  assert.equal(checked.decision.action, 'confirm');
  assert.equal(checked.pending.description, described.description);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].type, 'USER_INTERACTION_REQUESTED');
  assert.equal(seen[0].operationType, 'TOOL_APPROVAL');
  assert.equal(seen[0].prompt, '是否批准调用工具 "alert_mute_create"?');
  assert.equal(seen[0].metadata.toolApproval.toolDescription, described.description);
  gate.dispose?.();
});
