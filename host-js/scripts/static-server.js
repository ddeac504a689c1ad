// A static file server for the package directory, on loopback: the demo
// (`npm run demo`), the browser tests and the browser benchmark serve the
// package the way a web app would ship it.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.css': 'text/css',
};

/**
 * Serves `dir` on 127.0.0.1 (`port` 0: any free one). `onServe(path, body)` is
 * called for every file served. Resolves with the server once it listens.
 */
export function serveDirectory(dir, { port = 0, headers = {}, onServe } = {}) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    try {
      const body = await readFile(join(dir, path));
      onServe?.(path, body);
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', ...headers });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
