#!/usr/bin/env node
// Serves the package directory over HTTP for the demo pages: `npm run demo`
// (after `npm run build`), then open the printed address. Loopback only.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDirectory } from './static-server.js';

const pkg = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const server = await serveDirectory(pkg, { port: Number(process.env.PORT ?? 8080) });
const base = `http://127.0.0.1:${server.address().port}`;
console.log(`toolgate demo: ${base}/demo/gate.html (approvals), ${base}/demo/index.html (decisions)`);
