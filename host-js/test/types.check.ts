// Type-checked by `npm run typecheck` (never run), twice: as a browser project
// (tsconfig.json: the DOM library, no Node types) and as a Node-only one
// (tsconfig.node.json: `lib: ["es2022"]`, `types: ["node"]`). The declarations
// describe the API as the README and the agent SDKs use it, and reject misuse.
import {
  loadPolicy,
  decisionJson,
  RejectedError,
  Gate,
  type Decision,
  type Config,
  type ApprovalRequest,
  type Status,
  type ToolCall,
  type Context,
  type PlanDecision,
  type PlanStep,
  type PlanRun,
  type StepSummary,
  type CheckedLine,
  runPlan,
} from '../src/index.js';
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

// README, "Node".
export async function readmeNode(): Promise<Action> {
  const policy = await loadPolicy();
  const d = policy.assess('execute_sql', '{"sql":"SELECT * FROM users"}');
  console.log(d.action, d.summary);
  const engine = policy.engine({ denied_tools: ['execute_command'] });
  const action = engine.assess('execute_command', { command: 'ls' }).action;
  engine.dispose();
  return action;
}
type Action = Decision['action'];

// README, the OpenAI-style loop: definitions in as objects come back as objects.
interface ChatTool {
  type: 'function';
  function: { name: string; parameters: Record<string, unknown> };
}
interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export async function readmeOpenAiLoop(requestBody: { model: string; tools: ChatTool[] }, toolCalls: ChatToolCall[]): Promise<string[]> {
  const policy = await loadPolicy();
  const engine = policy.engine({});
  const body = engine.augmentTools(requestBody).tools;
  const model: string = body.model;
  const tools: ChatTool[] = engine.augmentTools(requestBody.tools).tools;
  const text: string = engine.augmentTools(JSON.stringify(tools)).tools;
  // @ts-expect-error objects in, objects out: not JSON text
  const notText: string = engine.augmentTools(requestBody.tools).tools;
  void notText;
  const out = [model, text];
  for (const item of toolCalls) {
    const d = engine.assessCall(item);
    const args = policy.stripRiskLevel(item.function.arguments);
    out.push(`${d.action} ${args}`);
  }
  return out;
}

// The AI SDK: its tool calls type their input as `unknown`.
interface AiSdkToolCall {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
}
export async function aiSdk(call: AiSdkToolCall): Promise<[Decision, Decision, ToolCall]> {
  const policy = await loadPolicy();
  const engine = policy.engine();
  const parsed = policy.parseCall(call);
  const format: 'ai-sdk' | ToolCall['format'] = parsed.format;
  void format;
  return [engine.assess(call.toolName, call.input), engine.assessCall(call), parsed];
}

// The MCP SDK: `tools/call` params, arguments optional.
interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
}
export async function mcp(params: CallToolParams): Promise<Decision[]> {
  const policy = await loadPolicy();
  const engine = policy.engine({
    mcp_servers: { files: { trusted: true } },
    tools: {
      read_text_file: { kind: 'mcp', server: 'files', annotations: { readOnlyHint: true }, path_field: 'path', roots: ['/srv'] },
      mute_alert: {
        kind: 'api',
        method: 'POST',
        url: '/alerts/:id/mute',
        display_name: 'Mute an alert',
        description: 'Silences an alert for a while',
        category: 'alert',
        keywords: ['mute', '屏蔽'],
        example_prompt: 'mute alert 7 for an hour',
        example_params: { id: 7, minutes: 60 },
        path_params_schema: { type: 'object', required: ['id'] },
        request_body_schema: { type: 'object', properties: { minutes: { type: 'integer' } } },
      },
    },
  });
  return engine.assessMany([[params.name, params.arguments], { tool: params.name, args: params.arguments }]);
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

// README, the gate in Node: the events are typed, no cast needed.
declare function showDialog(request: ApprovalRequest): void;
declare function runSql(args: string): Promise<{ rows: unknown[] }>;
export async function readmeGate(args: object, callId: string, key: string | undefined): Promise<string> {
  const gate = new Gate(await loadPolicy(), {
    config: { denied_tools: ['drop_database'] },
    timeoutMs: 60_000,
    store: new FileStore('pending'),
    audit: [new JsonlSink('audit.jsonl')],
    key,
  });
  gate.addEventListener('approval-requested', (e) => showDialog(e.detail));
  gate.addEventListener('approval-responded', (e) => console.log(e.detail.id, e.detail.answer, e.detail.by));
  gate.addEventListener('approval-processed', (e) => {
    const status: Status = e.detail.status;
    const id: string | null = e.detail.id;
    console.log(status, id, e.detail.tool);
  });
  // @ts-expect-error a request has no `answer`
  gate.addEventListener('approval-requested', (e) => e.detail.answer);
  // @ts-expect-error a processed call's status is a Status
  gate.addEventListener('approval-processed', (e) => e.detail.status === 'approved');
  // Other event types still reach EventTarget's own signature.
  gate.addEventListener('something-else', (e: Event) => void e.type);
  // Any JSON value may come back from the tool.
  const result = await gate.run({ tool: 'execute_sql', args, callId }, (args) => runSql(args));
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

// Plans and argument completion (seed 002 §4.2, §4.3): the plan's decision is
// the component's JSON shape (snake_case), completion returns JSON text, and
// `runPlan` hands each step to the executor with the arguments the gate cleared.
export async function plans(): Promise<string> {
  const policy = await loadPolicy();
  const engine = policy.engine({ tools: { ticket: { kind: 'api', method: 'POST', url: '/t', argument_names: { cause: 'note' } } } });
  const context: Context = { permissions: ['tickets'], defaults: { group_id: 1 } };
  const planned: PlanDecision = engine.assessPlan({ plan: 'p', tool_calls: [] }, { '1': { id: 7 } }, context);
  const first: PlanStep | undefined = planned.steps[0];
  const dependsOn: number[] = first?.depends_on ?? [];
  const llm: 'low' | 'medium' | 'high' | null = first?.decision.llm_risk ?? null;
  // @ts-expect-error the plan's JSON is snake_case: a step's decision has no llmRisk
  void first?.decision.llmRisk;
  const completed: string = engine.completeArgs('ticket', { cause: 'x', duration: 60 }, context, Date.now());
  // @ts-expect-error the clock is a number of milliseconds
  engine.completeArgs('ticket', {}, context, new Date());
  const line: CheckedLine | null = engine.checkLineIn(1, new TextEncoder().encode('{}'), context);
  const gate = new Gate(policy);
  const runs: PlanRun[] = await runPlan(gate, '{"tool_calls": []}', (step, args) => `${step.tool} ${args}`, { context });
  const summary: StepSummary | undefined = runs[0]?.summary;
  // @ts-expect-error a step's status is one the gate or the runner writes
  const made: StepSummary['status'] = 'maybe';
  void made;
  return `${completed} ${dependsOn.length} ${llm} ${line?.output} ${summary?.status}`;
}
