// A small MCP server over Streamable HTTP (the TypeScript SDK's server
// transport on node:http), for the gateway's --remote test: it listens on
// 127.0.0.1 (a port of its own, printed as `listening PORT` on standard
// output), wants `Authorization: Bearer TOKEN` on every request, and keeps a
// notebook in memory: `read_notes` (read-only), `add_note` (writes) and
// `notes_written` (how many add_note calls ever reached it, so the test sees
// what the gateway let through). It exits when its standard input closes.
//   node tests/mcp/http-server.mjs TOKEN
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(resolve(here, '..', '..'), 'host-js', 'node_modules', '@modelcontextprotocol');
const load = (path) => import(pathToFileURL(join(modules, path)).href);
const { Server } = await load('sdk/dist/esm/server/index.js');
const { StreamableHTTPServerTransport } = await load('sdk/dist/esm/server/streamableHttp.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = await load('sdk/dist/esm/types.js');

const [token] = process.argv.slice(2);
const notes = [];

function server() {
  const s = new Server({ name: 'notebook', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'read_notes',
        description: 'Lists the notes.',
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: true },
      },
      {
        name: 'add_note',
        description: 'Adds a note.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        annotations: { readOnlyHint: false, destructiveHint: false },
      },
    ],
  }));
  s.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    if (name === 'read_notes') return { content: [{ type: 'text', text: JSON.stringify(notes) }] };
    if (name === 'add_note') {
      notes.push(String(args?.text ?? ''));
      return { content: [{ type: 'text', text: `added note ${notes.length}` }] };
    }
    return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
  });
  return s;
}

const sessions = new Map();
const http = createServer(async (req, res) => {
  if (req.headers.authorization !== `Bearer ${token}`) {
    res.writeHead(401, { 'www-authenticate': 'Bearer' }).end('token required');
    return;
  }
  const id = req.headers['mcp-session-id'];
  let transport = id ? sessions.get(id) : undefined;
  if (!transport) {
    if (id || req.method !== 'POST') {
      res.writeHead(404).end('no such session');
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await server().connect(transport);
  }
  await transport.handleRequest(req, res);
});
http.listen(0, '127.0.0.1', () => console.log(`listening ${http.address().port}`));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
