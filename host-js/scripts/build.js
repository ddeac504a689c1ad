#!/usr/bin/env node
// Builds the JavaScript package's generated part from source: the toolgate
// component from the Rust workspace (the very bytes the Rust host embeds), then
// jco's transpiled glue and core module into gen/. Nothing in gen/ is committed
// or edited by hand.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');
const root = join(pkg, '..');
const gen = join(pkg, 'gen');
const component = join(gen, 'toolgate.wasm');

rmSync(gen, { recursive: true, force: true });
mkdirSync(gen, { recursive: true });

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: 'inherit' });

run('cargo', ['run', '--quiet', '--release', '--package', 'toolgate-component', '--', component], root);
run(
  process.execPath,
  [
    join(pkg, 'node_modules', '@bytecodealliance', 'jco', 'dist', 'jco.js'),
    'transpile',
    component,
    '--name', 'toolgate',
    '--out-dir', gen,
    // Synchronous instantiation from a compiled module that the host layer
    // fetches or receives as bytes: the same glue serves Node and browsers, and
    // a fresh instance after a fault needs no await.
    '--instantiation', 'sync',
    '--no-nodejs-compat',
    '--quiet',
  ],
  pkg,
);
// jco lifts every string out of the component with `new TextDecoder()`,
// which drops a leading byte-order mark: a tool named "\u{feff}execute_command"
// would reach the JavaScript caller as "execute_command" while Rust keeps it,
// and the two runtimes would disagree. Strings cross unchanged, as in wasmtime.
const glue = join(gen, 'toolgate.js');
const text = readFileSync(glue, 'utf8');
const decoder = 'new TextDecoder()';
const found = text.split(decoder).length - 1;
if (found !== 1) {
  throw new Error(`expected one \`${decoder}\` in jco's glue, found ${found}: check how this jco version decodes strings`);
}
writeFileSync(glue, text.replace(decoder, "new TextDecoder('utf-8', { ignoreBOM: true })"));
console.log(`toolgate: built ${readdirSync(gen).join(', ')}`);
