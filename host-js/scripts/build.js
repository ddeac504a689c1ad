#!/usr/bin/env node
// Builds the JavaScript package's generated part from source: the toolgate
// component from the Rust workspace (the very bytes the Rust host embeds), then
// jco's transpiled glue and core module into gen/, and the command line's
// grammar (shapes/cli.json, the one declaration every CLI reads) beside them.
// Nothing in gen/ is committed or edited by hand.

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minifySync } from 'oxc-minify';

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
let text = readFileSync(glue, 'utf8');
text = replaceOnce(text, 'new TextDecoder()', "new TextDecoder('utf-8', { ignoreBOM: true })", 'how this jco version decodes strings');
// The glue calls its debug logger several times on every crossing, and the
// logger reads `process.env` each time (a call into the runtime in Node): about
// 1 µs of every call for a trace nobody asked for. It logs nothing else.
text = replaceOnce(
  text,
  "const _debugLog = (...args) => {\n    if (!globalThis?.process?.env?.JCO_DEBUG) { return; }\n    console.debug(...args);\n  };",
  'const _debugLog = () => {};',
  'how this jco version logs',
);
// Where WebAssembly has no `promising` (Node 20 and 22, most browsers today),
// the glue's instantiation calls it anyway, once per export, and catches the
// TypeError: V8 renders each such message by re-parsing the calling function,
// the glue's largest, about 1 ms a throw, 13 ms of every start. The same
// fallback, taken without throwing:
const promising = 'WebAssembly.promising(';
if (!text.includes(promising)) {
  throw new Error(`expected \`${promising}\` in jco's glue: check how this jco version instantiates`);
}
text = `${text.replaceAll(promising, 'promisingOrSelf(')}
/** The function as JSPI's \`WebAssembly.promising\` wraps it, or unchanged where there is none. */
function promisingOrSelf(f) {
  return typeof WebAssembly.promising === 'function' ? WebAssembly.promising(f) : f;
}
`;
// Minified, the glue is a third of the text to download and parse: Node and
// browsers compile its one large instantiation function before the first call.
const minified = minifySync('toolgate.js', text, { module: true, compress: true, mangle: true });
if (minified.errors.length > 0) {
  throw new Error(`minifying jco's glue failed: ${minified.errors.map((e) => e.message).join('; ')}`);
}
writeFileSync(glue, minified.code);
copyFileSync(join(root, 'shapes', 'cli.json'), join(gen, 'cli.json'));
console.log(`toolgate: built ${readdirSync(gen).join(', ')}`);

/** `text` with the one occurrence of `from` replaced, or an error naming `what` to check. */
function replaceOnce(text, from, to, what) {
  const found = text.split(from).length - 1;
  if (found !== 1) {
    throw new Error(`expected one \`${from}\` in jco's glue, found ${found}: check ${what}`);
  }
  return text.replace(from, () => to);
}
