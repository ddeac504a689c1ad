// The adapters' declarations against the real SDKs' types: what the README
// shows compiles (checked by `npm run typecheck`, never run).
import { generateText, wrapLanguageModel, tool, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Agent, tool as agentTool } from '@openai/agents';
import type { Model } from '@openai/agents';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { loadPolicy, Gate } from 'toolgate';
import { aiSdkGate, GatedCallError } from 'toolgate/ai-sdk';
import { openAiAgentsGate } from 'toolgate/openai-agents';
import { gatedMcp } from 'toolgate/mcp';

export async function aiSdk(model: MockLanguageModelV3): Promise<string> {
  const gate = new Gate(await loadPolicy());
  const tg = aiSdkGate(gate, { sessionId: 's' });
  const tools = tg.tools({
    execute_sql: tool({ inputSchema: z.object({ sql: z.string() }), execute: async ({ sql }) => sql.length }),
  });
  const result = await generateText({
    model: wrapLanguageModel({ model, middleware: tg.middleware }),
    tools,
    toolApproval: tg.toolApproval,
    prompt: 'go',
    stopWhen: stepCountIs(3),
  });
  const e: GatedCallError | null = null;
  void e;
  return result.text;
}

export async function agents(model: Model): Promise<unknown> {
  const tg = openAiAgentsGate(new Gate(await loadPolicy()));
  const sql = agentTool({ name: 'execute_sql', description: 'SQL', parameters: z.object({ sql: z.string() }), execute: async ({ sql }) => sql });
  return new Agent({ name: 'db', model: tg.model(model), tools: tg.tools([sql]) });
}

export async function mcp(client: Client): Promise<boolean> {
  const gated = await gatedMcp(await loadPolicy(), { servers: { files: { client, trusted: true } }, approve: () => ({ answer: 'reject' }) });
  const { tools } = await gated.listTools();
  const result = await gated.callTool({ name: tools[0]?.name ?? 'files__read', arguments: {} });
  return result.isError === true;
}
