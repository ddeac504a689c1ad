// A small, fast MCP server over stdio for the gateway's load tests and its
// benchmark (host-rs/tests/mcp_load.rs, tests/bench/mcp-gateway.mjs), framed
// by hand so that the server itself costs as little as possible.
// Usage: node echo-server.mjs
//
// Its one tool, `echo` (read-only), answers with its `message` argument,
// after `delay_ms` milliseconds when that argument is given (a tool that
// takes time, so concurrent calls can be seen to overlap). It answers
// `initialize`, `tools/list` and `ping`, ignores notifications, and answers
// anything else with "method not found".
import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const tools = [
  {
    name: 'echo',
    description: 'Answers with its message.',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string' }, delay_ms: { type: 'number' } },
    },
    annotations: { readOnlyHint: true },
  },
];

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method } = message;
  if (id === undefined || id === null) return;
  if (method === 'initialize') {
    send({
      jsonrpc: '2.0',
      id,
      result: {
        protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'echo', version: '1.0.0' },
      },
    });
  } else if (method === 'tools/list') {
    send({ jsonrpc: '2.0', id, result: { tools } });
  } else if (method === 'tools/call') {
    const args = message.params?.arguments ?? {};
    const answer = () =>
      send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(args.message ?? '') }] } });
    if (typeof args.delay_ms === 'number' && args.delay_ms > 0) setTimeout(answer, Math.min(args.delay_ms, 10000));
    else answer();
  } else if (method === 'ping') {
    send({ jsonrpc: '2.0', id, result: {} });
  } else {
    send({ jsonrpc: '2.0', id, error: { code: -32601, message: `method not found: ${method}` } });
  }
});
process.stdin.on('end', () => process.exit(0));
