// The npm package as a consumer gets it (`npm pack`): it ships what loads and
// nothing else, with its README and license, states the Node versions it runs
// on, and stays within the byte budgets written in tests/size-budget.json. A
// size is a byte count, not a timing, so it is checked here; raise a budget
// deliberately, in a commit of its own that says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pkg, root } from './paths.js';

const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
const budget = JSON.parse(readFileSync(join(root, 'tests', 'size-budget.json'), 'utf8'));

/** What `npm pack` would put in the tarball: paths, packed and unpacked bytes. */
const packed = (() => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: pkg,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [info] = JSON.parse(out);
  return { files: info.files.map((f) => f.path).sort(), size: info.size, unpackedSize: info.unpackedSize };
})();

/**
 * The package files a module loads: its relative static and dynamic imports
 * and the assets it resolves with `new URL('…', import.meta.url)`; for a
 * declaration file, the declarations it imports.
 */
function references(file) {
  const text = readFileSync(join(pkg, file), 'utf8');
  const found = [];
  const patterns = [
    /\bfrom\s+'(\.{1,2}\/[^']+)'/g,
    /\bimport\s*\(\s*'(\.{1,2}\/[^']+)'\s*\)/g,
    /\bimport\s+'(\.{1,2}\/[^']+)'/g,
    /new URL\(\s*'(\.{1,2}\/[^']+)',\s*import\.meta\.url\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const m of text.matchAll(pattern)) found.push(normalize(join(dirname(file), m[1])));
  }
  // A declaration file's `.js` imports name the declarations beside that module.
  return file.endsWith('.d.ts') ? found.map((f) => f.replace(/\.js$/, '.d.ts')) : found;
}

/** Every package file reachable from the manifest's entry points (declarations included). */
function reachable() {
  const entries = [manifest.main, ...Object.values(manifest.bin)];
  for (const target of Object.values(manifest.exports)) {
    entries.push(...(typeof target === 'string' ? [target] : Object.values(target)));
  }
  const seen = new Set();
  const queue = entries.map((e) => normalize(e));
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    if (file.endsWith('.js') || file.endsWith('.d.ts')) queue.push(...references(file));
  }
  return seen;
}

test('the package ships every file that loads, and no other code', () => {
  const loads = reachable();
  for (const file of loads) {
    assert.ok(packed.files.includes(file), `${file} is loaded but not packed`);
  }
  const docs = new Set(['package.json', 'README.md', 'LICENSE']);
  const extra = packed.files.filter((f) => !loads.has(f) && !docs.has(f));
  assert.deepEqual(extra, [], 'packed files nothing loads');
  // The core modules jco writes beside its glue are cut from the component at load.
  assert.ok(!packed.files.some((f) => /\.core\d*\.wasm$/.test(f)), packed.files.join(', '));
});

test('the package carries its README and the Apache-2.0 license text of the repository', () => {
  assert.ok(packed.files.includes('README.md'));
  assert.ok(packed.files.includes('LICENSE'));
  assert.equal(manifest.license, 'Apache-2.0');
  const license = readFileSync(join(pkg, 'LICENSE'), 'utf8');
  assert.equal(license, readFileSync(join(root, 'LICENSE'), 'utf8'), 'host-js/LICENSE differs from LICENSE');
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  assert.match(license, /END OF TERMS AND CONDITIONS/);
});

test('generated glue is not public API', () => {
  for (const key of Object.keys(manifest.exports)) {
    assert.ok(!key.startsWith('./gen'), `${key} is exported`);
  }
});

test('require() loads the package on the Node versions `engines` names', () => {
  // require(esm) is what sets the minimum: it fails on a module graph with
  // top-level await, and exists unflagged from 20.19 and 22.12.
  assert.equal(manifest.engines.node, '^20.19.0 || >=22.12.0');
  const [major, minor] = process.versions.node.split('.').map(Number);
  const supported = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22;
  assert.ok(supported, `this Node ${process.version} is outside engines`);
  const require = createRequire(import.meta.url);
  const api = require('../src/index.js');
  assert.equal(typeof api.loadPolicy, 'function');
  const node = require('../src/node.js');
  assert.equal(typeof node.FileStore, 'function');
});

test('the component and the tarball stay within their byte budgets', () => {
  const component = readFileSync(join(pkg, 'gen', 'toolgate.wasm'));
  const gzip = gzipSync(component, { level: 9 }).length;
  const figures = `component ${component.length} B raw / ${gzip} B gzip; tarball ${packed.size} B packed / ${packed.unpackedSize} B unpacked`;
  console.log(`size: ${figures}`);
  assert.ok(component.length <= budget.component_raw, `component ${component.length} B > budget ${budget.component_raw} B`);
  assert.ok(gzip <= budget.component_gzip, `component gzip ${gzip} B > budget ${budget.component_gzip} B`);
  assert.ok(packed.size <= budget.package_packed, `tarball ${packed.size} B > budget ${budget.package_packed} B`);
  assert.ok(
    packed.unpackedSize <= budget.package_unpacked,
    `unpacked package ${packed.unpackedSize} B > budget ${budget.package_unpacked} B`,
  );
});

test('the budgets file names every budget and why', () => {
  for (const key of ['component_raw', 'component_gzip', 'package_packed', 'package_unpacked']) {
    assert.ok(Number.isInteger(budget[key]) && budget[key] > 0, key);
  }
  assert.ok(typeof budget.reason === 'string' && budget.reason.length > 0, 'reason');
});
