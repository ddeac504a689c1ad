// Type-checked by `npm run typecheck` (never run): the declarations describe
// the API as the README uses it, and reject misuse.
import { loadPolicy, decisionJson, RejectedError, Gate, type Decision, type Config, type ApprovalRequest } from '../src/index.js';
import { FileStore, JsonlSink } from '../src/node.js';

export async function example(): Promise<string> {
  const policy = await loadPolicy();
  const d: Decision = policy.assess('execute_sql', { sql: 'SELECT 1' });
  const action: 'allow' | 'confirm' | 'deny' = d.action;
  const claimed: 'low' | 'medium' | 'high' | null = d.llmRisk;
  const config: Config = { denied_tools: ['execute_command'], model_trust: 'guarded', tools: { q: { kind: 'sql', dialect: 'mysql' } } };
  const engine = policy.engine(config);
  engine.assess('execute_command', '{"command":"ls"}');
  engine.augmentTools([{ name: 'a', input_schema: { type: 'object' } }]);
  engine.dispose();
  // @ts-expect-error model_trust has two values only
  policy.engine({ model_trust: 'blind' });
  // @ts-expect-error a decision's action is not a boolean
  const wrong: boolean = d.action;
  void wrong;
  try {
    policy.engine('{}');
  } catch (e) {
    if (e instanceof RejectedError) return e.message;
  }
  return `${action} ${claimed} ${decisionJson(d)} ${policy.guidance('zh')} ${policy.stripRiskLevel('{}')}`;
}

export async function gateExample(): Promise<string> {
  const policy = await loadPolicy();
  const gate = new Gate(policy, { timeoutMs: 60_000, store: new FileStore('/tmp/x'), audit: [new JsonlSink('/tmp/a.jsonl')] });
  gate.addEventListener('approval-requested', (e) => {
    const request = (e as CustomEvent<ApprovalRequest>).detail;
    gate.respond(request.id, { answer: 'edit', args: { sql: 'SELECT 1' }, instruction: 'check first' });
  });
  // @ts-expect-error an answer is approve, reject or edit
  gate.respond('x', { answer: 'maybe' });
  const result = await gate.run({ tool: 'execute_sql', args: { sql: 'DELETE FROM t' } }, async (args) => args);
  return result.forModel();
}

export async function checkSettleExample(): Promise<string> {
  const policy = await loadPolicy();
  const gate = new Gate(policy);
  // The events are typed: no cast needed.
  gate.addEventListener('approval-processed', (e) => {
    const status: string = e.detail.status;
    void status;
  });
  gate.addEventListener('approval-requested', (e) => gate.cancel(e.detail.id));
  const checked = await gate.check({ tool: 'execute_sql', args: { sql: 'DELETE FROM t' } });
  if (checked.pending !== null) {
    // Any JSON value is an output.
    const r = await gate.settle(checked.pending.id, { answer: 'approve' }, () => ({ rows: 1 }));
    return r.forModel();
  }
  if (checked.proceed !== null) return (await checked.proceed(() => 42)).forModel();
  const flow = policy.flow({}, { identity: 'g' });
  const step: string = flow.begin('{"tool":"t","args":"{}"}', 'id-1', Date.now());
  flow.dispose();
  return checked.result?.forModel() ?? step;
}
