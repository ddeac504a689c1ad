#!/usr/bin/env node
// Where the component's bytes go: reads a core module (or the first core module
// of a component) built with its name section kept, and attributes every
// function body to a part by the crates its (demangled) name mentions — a
// generic instance of a dependency's code over the policy's types counts for the
// dependency, because that is what removing the dependency would save — plus
// the data segments and the remaining sections. Prints a table and the largest
// functions.
//
// The shipped component is stripped; a build with names is
//   CARGO_PROFILE_WASM_STRIP=false cargo build -p toolgate-policy --lib \
//     --target wasm32-unknown-unknown --profile wasm --target-dir target/wasm-names
// then
//   node host-js/bench/size-profile.js target/wasm-names/wasm32-unknown-unknown/wasm/toolgate_policy.wasm [TOP]

import { readFileSync } from 'node:fs';

/** Parts, first match wins: a name mentioning sqlparser anywhere is sqlparser's. */
const PARTS = [
  ['sqlparser', /sqlparser/],
  ['serde_path_to_error', /serde_path_to_error/],
  ['serde / serde_json', /serde_json|serde::|serde\.\.|_serde/],
  ['url / idna', /\burl\b|url::|url\.\.|idna/],
  ['regex-lite', /regex_lite/],
  ['toml', /toml|winnow/],
  ['shell-words', /shell_words/],
  ['sha2 / hmac', /sha2|hmac|digest/],
  ['wit bindings', /wit_bindgen|cabi_|bindings/],
  ['toolgate-shapes', /toolgate_shapes/],
  ['toolgate-policy', /toolgate_policy/],
  ['std / core / alloc', /./],
];

const path = process.argv[2];
const top = Number(process.argv[3] ?? 25);
if (!path) {
  console.error('usage: size-profile.js MODULE.wasm [TOP]');
  process.exit(2);
}
let bytes = readFileSync(path);

/** Reads an unsigned LEB128 at `at`: [value, next offset]. */
function leb(buf, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = buf[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
}

/** The sections of a module or component: {id, start, end} with the payload's bounds. */
function sections(buf) {
  const out = [];
  let at = 8;
  while (at < buf.length) {
    const id = buf[at++];
    let size;
    [size, at] = leb(buf, at);
    out.push({ id, start: at, end: at + size });
    at += size;
  }
  return out;
}

if (bytes[4] === 0x0d) {
  const core = sections(bytes).find((s) => s.id === 1);
  if (!core) throw new Error('the component holds no core module');
  bytes = bytes.subarray(core.start, core.end);
}

const secs = sections(bytes);
let imported = 0;
const names = new Map();
const bodies = [];
const sizes = new Map();
for (const s of secs) {
  if (s.id === 2) {
    // Count imported functions: they come first in the function index space.
    let [n, at] = leb(bytes, s.start);
    for (let i = 0; i < n; i++) {
      let len;
      [len, at] = leb(bytes, at);
      at += len;
      [len, at] = leb(bytes, at);
      at += len;
      const kind = bytes[at++];
      if (kind === 0) {
        imported += 1;
        [, at] = leb(bytes, at);
      } else if (kind === 1) {
        at += 1;
        const flags = bytes[at++];
        [, at] = leb(bytes, at);
        if (flags & 1) [, at] = leb(bytes, at);
      } else if (kind === 2) {
        const flags = bytes[at++];
        [, at] = leb(bytes, at);
        if (flags & 1) [, at] = leb(bytes, at);
      } else if (kind === 3) {
        at += 2;
      } else {
        throw new Error(`import kind ${kind} not understood`);
      }
    }
  }
  if (s.id === 10) {
    let [n, at] = leb(bytes, s.start);
    for (let i = 0; i < n; i++) {
      let size;
      [size, at] = leb(bytes, at);
      bodies.push(size);
      at += size;
    }
  }
  if (s.id === 0) {
    let [len, at] = leb(bytes, s.start);
    const name = bytes.subarray(at, at + len).toString();
    at += len;
    const label = `custom "${name}"`;
    sizes.set(label, (sizes.get(label) ?? 0) + (s.end - s.start));
    if (name === 'name') {
      while (at < s.end) {
        const sub = bytes[at++];
        let size;
        [size, at] = leb(bytes, at);
        const end = at + size;
        if (sub === 1) {
          let [n, p] = leb(bytes, at);
          for (let i = 0; i < n; i++) {
            let idx;
            let l;
            [idx, p] = leb(bytes, p);
            [l, p] = leb(bytes, p);
            names.set(idx, bytes.subarray(p, p + l).toString());
            p += l;
          }
        }
        at = end;
      }
    }
    continue;
  }
  const label = { 1: 'types', 2: 'imports', 3: 'functions', 4: 'table', 5: 'memory', 6: 'globals', 7: 'exports', 9: 'elements', 10: 'code', 11: 'data' }[s.id] ?? `section ${s.id}`;
  sizes.set(label, (sizes.get(label) ?? 0) + (s.end - s.start));
}

/** A legacy-mangled Rust symbol's path, `a::b::c`, or the name unchanged. */
function demangle(name) {
  if (!name.startsWith('_ZN')) return name;
  const parts = [];
  let at = 3;
  while (at < name.length && name[at] !== 'E') {
    let digits = '';
    while (/[0-9]/.test(name[at])) digits += name[at++];
    if (digits === '') break;
    const len = Number(digits);
    parts.push(name.slice(at, at + len));
    at += len;
  }
  if (parts.length > 0 && /^h[0-9a-f]{16}$/.test(parts[parts.length - 1])) parts.pop();
  return parts
    .join('::')
    .replace(/\$LT\$/g, '<').replace(/\$GT\$/g, '>').replace(/\$RF\$/g, '&')
    .replace(/\$u20\$/g, ' ').replace(/\$u7b\$/g, '{').replace(/\$u7d\$/g, '}')
    .replace(/\$C\$/g, ',').replace(/\.\./g, '::');
}

const perPart = new Map(PARTS.map(([p]) => [p, 0]));
const functions = [];
bodies.forEach((size, i) => {
  const name = demangle(names.get(imported + i) ?? `function ${imported + i}`);
  const part = PARTS.find(([, re]) => re.test(name))[0];
  perPart.set(part, perPart.get(part) + size);
  functions.push([size, name]);
});
const total = bytes.length;
const code = sizes.get('code') ?? 0;
const data = sizes.get('data') ?? 0;
const custom = [...sizes].filter(([k]) => k.startsWith('custom')).reduce((a, [, v]) => a + v, 0);
const shipped = total - custom;
const row = (label, n) => console.log(`| ${label} | ${n.toLocaleString('en-US')} | ${((100 * n) / shipped).toFixed(1)} % |`);
console.log(`core module: ${total.toLocaleString('en-US')} B, of which custom sections (stripped when shipped) ${custom.toLocaleString('en-US')} B\n`);
console.log('| part | bytes | share of the stripped module |\n|---|---:|---:|');
for (const [part, n] of [...perPart].sort((a, b) => b[1] - a[1])) if (n > 0) row(`${part} (code)`, n);
row('data (strings, tables)', data);
row('other sections and body lengths', shipped - data - [...perPart.values()].reduce((a, b) => a + b, 0));
console.log(`\nlargest ${top} functions:`);
functions.sort((a, b) => b[0] - a[0]);
for (const [size, name] of functions.slice(0, top)) console.log(`${String(size).padStart(8)}  ${name.slice(0, 160)}`);
void code;
