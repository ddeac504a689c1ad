#!/usr/bin/env node
// Writes src/shapes.d.ts, the TypeScript shapes of the toolgate policy.
//
// The shapes are defined once, elsewhere; this script only translates them:
//
// - the enums and records of the WIT's `types` interface (wit/toolgate.wit),
//   the typed values the component returns, as this package hands them out:
//   fields in camelCase (as jco lifts them), `option<T>` as `T | null` (the
//   package turns jco's `undefined` into `null`), `list<T>` as `T[]`;
// - the JSON shapes the component reads and writes as text, from their Rust
//   definitions (serde derives) in the shapes crate and in the policy's plain
//   configuration types (policy/src/config.rs): field names as serde writes
//   them, a field with a default optional, `Option<T>` as `T | null` in what
//   the component writes (`?: T` in what it only reads).
//
// `node scripts/gen-types.js --check` fails when the committed file differs
// from what the sources give (test/generated-types.test.js runs it). Node's
// standard library only.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative } from 'node:path';

const HERE = dirname(fileURLToPath(import.meta.url));
const PACKAGE = join(HERE, '..');
const ROOT = join(PACKAGE, '..');
const WIT = join(ROOT, 'wit', 'toolgate.wit');
const OUT = join(PACKAGE, 'src', 'shapes.d.ts');

// The Rust types translated, in output order: [file, Rust name, TypeScript name].
const RUST = [
  ['policy/src/config.rs', 'Config', 'Config'],
  ['policy/src/config.rs', 'ModelTrust', 'ModelTrust'],
  ['policy/src/config.rs', 'MediumRisk', 'MediumRisk'],
  ['policy/src/config.rs', 'Level2', 'RegistryLevel2'],
  ['policy/src/config.rs', 'Profile', 'Profile'],
  ['policy/src/config.rs', 'Egress', 'Egress'],
  ['policy/src/config.rs', 'Mode', 'Mode'],
  ['policy/src/config.rs', 'Exec', 'ExecSettings'],
  ['policy/src/config.rs', 'Unconfined', 'Unconfined'],
  ['policy/src/config.rs', 'Commands', 'CommandSettings'],
  ['policy/src/config.rs', 'Locks', 'Locks'],
  ['policy/src/config.rs', 'McpServer', 'McpServer'],
  ['policy/src/config.rs', 'ToolKind', 'ToolKind'],
  ['policy/src/config.rs', 'ToolConfig', 'ToolConfig'],
  ['policy/src/config.rs', 'Annotations', 'McpAnnotations'],
  ['policy/src/context.rs', 'Context', 'Context'],
  ['shapes/src/rules.rs', 'Rule', 'Rule'],
  ['shapes/src/rules.rs', 'Effect', 'Effect'],
  ['shapes/src/rules.rs', 'SqlMatch', 'SqlMatch'],
  ['shapes/src/rules.rs', 'FileMatch', 'FileMatch'],
  ['shapes/src/rules.rs', 'HttpMatch', 'HttpMatch'],
  ['shapes/src/decision.rs', 'Decision', 'DecisionRecord'],
  ['shapes/src/plan.rs', 'PlanDecision', 'PlanDecision'],
  ['shapes/src/plan.rs', 'PlanStep', 'PlanStep'],
  ['shapes/src/records.rs', 'Pending', 'PendingRecord'],
  ['shapes/src/grants.rs', 'Grant', 'Grant'],
  ['shapes/src/grants.rs', 'Scope', 'GrantScope'],
  ['shapes/src/registry.rs', 'Imported', 'Imported'],
  ['shapes/src/config.rs', 'Layered', 'Layered'],
  ['shapes/src/config.rs', 'Layer', 'Layer'],
];

const camel = (name) => name.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());
const pascal = (name) => camel(name).replace(/^[a-z]/, (c) => c.toUpperCase());
/** Rustdoc links (`[`x`]`, `[text](target)`) as plain text. */
const plain = (line) => line.replace(/\[(`[^`]*`)\](\([^)]*\))?/g, '$1').replace(/\*\//g, '*\\/');

function docComment(lines, indent) {
  const text = lines.map(plain);
  if (text.length === 0) return '';
  if (text.length === 1) return `${indent}/** ${text[0]} */\n`;
  return `${indent}/**\n${text.map((l) => `${indent} *${l ? ` ${l}` : ''}`).join('\n')}\n${indent} */\n`;
}

function fail(message) {
  throw new Error(`gen-types: ${message}`);
}

// --- The WIT's `types` interface --------------------------------------------

function interfaceBody(text, name) {
  const opening = `interface ${name} {`;
  const start = text.indexOf(opening);
  if (start < 0) fail(`no interface ${name} in ${WIT}`);
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(start + opening.length, i);
  }
  return fail(`interface ${name} is not closed`);
}

function witItems(text) {
  const items = [];
  let doc = [];
  let current = null;
  for (const raw of interfaceBody(text, 'types').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('///')) {
      doc.push(line.slice(3).trim());
      continue;
    }
    if (line === '' || line.startsWith('//')) continue;
    const head = /^(enum|record) ([a-z0-9-]+) \{$/.exec(line);
    if (head) {
      current = { kind: head[1], name: head[2], doc, members: [] };
      items.push(current);
    } else if (line === '}') {
      current = null;
    } else if (current?.kind === 'enum') {
      current.members.push({ name: line.replace(/,$/, ''), doc });
    } else if (current?.kind === 'record') {
      const field = /^([a-z0-9-]+): (.+),$/.exec(line);
      if (!field) fail(`cannot read the WIT field \`${line}\` of ${current.name}`);
      current.members.push({ name: field[1], type: field[2], doc });
    } else {
      fail(`cannot read the WIT line \`${line}\` in interface types`);
    }
    doc = [];
  }
  return items;
}

function witType(type) {
  const simple = { string: 'string', bool: 'boolean', u8: 'number', u16: 'number', u32: 'number', u64: 'number', s32: 'number', s64: 'number' };
  if (simple[type]) return simple[type];
  let m = /^option<(.+)>$/.exec(type);
  if (m) return `${witType(m[1])} | null`;
  m = /^list<(.+)>$/.exec(type);
  if (m) {
    const inner = witType(m[1]);
    return /[ |]/.test(inner) && !inner.startsWith('[') ? `(${inner})[]` : `${inner}[]`;
  }
  m = /^tuple<([^,]+), ([^,]+)>$/.exec(type);
  if (m) return `[${witType(m[1])}, ${witType(m[2])}]`;
  if (/^[a-z0-9-]+$/.test(type)) return pascal(type);
  return fail(`no TypeScript type for the WIT type \`${type}\``);
}

function renderWit(items) {
  let out = '';
  for (const item of items) {
    out += '\n' + docComment(item.doc, '');
    if (item.kind === 'enum') {
      out += `export type ${pascal(item.name)} = ${item.members.map((m) => `'${m.name}'`).join(' | ')};\n`;
    } else {
      out += `export interface ${pascal(item.name)} {\n`;
      for (const f of item.members) out += docComment(f.doc, '  ') + `  ${camel(f.name)}: ${witType(f.type)};\n`;
      out += '}\n';
    }
  }
  return out;
}

// --- Rust types with serde derives ------------------------------------------

/** The attributes and doc lines above `pub struct|enum NAME {` and its body lines. */
function rustItem(file, name) {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const at = lines.findIndex((l) => new RegExp(`^pub (struct|enum) ${name} \\{$`).test(l));
  if (at < 0) fail(`no \`pub struct|enum ${name} {\` in ${file}`);
  const kind = /^pub (struct|enum)/.exec(lines[at])[1];
  const doc = [];
  const attrs = [];
  for (let i = at - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (l.startsWith('///')) doc.unshift(l.slice(3).trim());
    else if (l.startsWith('#[') || l.startsWith(')]') || /^[A-Za-z, ]+,?$/.test(l) || l.startsWith('Clone')) attrs.unshift(l);
    else break;
  }
  const body = [];
  for (let i = at + 1; i < lines.length && lines[i] !== '}'; i++) body.push(lines[i]);
  const header = attrs.join(' ');
  return { kind, name, doc, header, body };
}

function serdeArgs(attr) {
  const m = /#\[serde\((.*)\)\]/.exec(attr);
  return m ? m[1] : '';
}

function renameCase(name, rule) {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[ _]/);
  switch (rule) {
    case 'lowercase': return name.toLowerCase();
    case 'snake_case': return words.join('_');
    case 'kebab-case': return words.join('-');
    case 'camelCase': return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
    case undefined: return name;
    default: return fail(`serde rename_all = "${rule}" is not translated`);
  }
}

function members(item) {
  const out = [];
  let doc = [];
  let attrs = [];
  for (const raw of item.body) {
    const line = raw.trim();
    if (line.startsWith('///')) doc.push(line.slice(3).trim());
    else if (line.startsWith('#[')) attrs.push(line);
    else if (line === '' || line.startsWith('//')) continue;
    else {
      out.push({ line, doc, attrs: attrs.join(' ') });
      doc = [];
      attrs = [];
    }
  }
  return out;
}

function rustType(type, names, reads) {
  type = type.trim();
  const simple = { String: 'string', '&str': 'string', bool: 'boolean', u8: 'number', u16: 'number', u32: 'number', u64: 'number', usize: 'number', i64: 'number', 'serde_json::Value': 'unknown', Value: 'unknown' };
  if (simple[type]) return simple[type];
  let m = /^Option<(.+)>$/.exec(type);
  if (m) return reads ? rustType(m[1], names, reads) : `${rustType(m[1], names, reads)} | null`;
  m = /^(?:Vec|BTreeSet)<(.+)>$/.exec(type);
  if (m) {
    const inner = rustType(m[1], names, reads);
    return / /.test(inner) && !inner.startsWith('[') && !inner.startsWith('Record') ? `(${inner})[]` : `${inner}[]`;
  }
  m = /^(?:BTreeMap|serde_json::Map)<String, (.+)>$/.exec(type);
  if (m) return `Record<string, ${rustType(m[1], names, reads)}>`;
  m = /^\(([^,]+), ([^,]+)\)$/.exec(type);
  if (m) return `[${rustType(m[1], names, reads)}, ${rustType(m[2], names, reads)}]`;
  const last = type.split('::').pop();
  if (names.has(last)) return names.get(last);
  if (last === 'Action' || last === 'Risk' || last === 'Source' || last === 'Finding') return last;
  return fail(`no TypeScript type for the Rust type \`${type}\``);
}

function renderRust(entries) {
  const names = new Map(entries.map(([, rust, ts]) => [rust, ts]));
  let out = '';
  for (const [file, rust, ts] of entries) {
    const item = rustItem(file, rust);
    const header = serdeArgs(item.header.match(/#\[serde\([^\]]*\)\]/g)?.join(' ') ?? '');
    const rule = /rename_all = "([^"]+)"/.exec(header)?.[1];
    const allDefault = /(^|[ ,(])default([ ,)]|$)/.test(header);
    // A type the component only reads (Deserialize without Serialize).
    const reads = !/\bSerialize\b/.test(item.header);
    out += '\n' + docComment(item.doc, '');
    if (item.kind === 'enum') {
      const cases = [];
      for (const v of members(item)) {
        const variant = /^([A-Z][A-Za-z0-9]*),?$/.exec(v.line);
        if (!variant) fail(`${rust}: the variant \`${v.line}\` carries data`);
        const rename = /rename = "([^"]+)"/.exec(serdeArgs(v.attrs))?.[1];
        cases.push(`'${rename ?? renameCase(variant[1], rule)}'`);
        for (const alias of serdeArgs(v.attrs).matchAll(/alias = "([^"]+)"/g)) cases.push(`'${alias[1]}'`);
      }
      out += `export type ${ts} = ${cases.join(' | ')};\n`;
      continue;
    }
    out += `export interface ${ts} {\n`;
    for (const f of members(item)) {
      const field = /^pub ([a-z0-9_]+): (.+),$/.exec(f.line);
      if (!field) fail(`${rust}: cannot read the field \`${f.line}\``);
      const args = serdeArgs(f.attrs);
      if (/\bskip\b|skip_deserializing|flatten/.test(args)) fail(`${rust}.${field[1]}: serde(${args}) is not translated`);
      const key = /rename = "([^"]+)"/.exec(args)?.[1] ?? renameCase(field[1], rule);
      const optional = allDefault || /(^|[ ,])default\b|skip_serializing_if/.test(args);
      const type = rustType(field[2], names, reads);
      out += docComment(f.doc, '  ') + `  ${key}${optional ? '?' : ''}: ${type};\n`;
      for (const alias of args.matchAll(/alias = "([^"]+)"/g)) {
        out += `  /** Another name for \`${key}\`. */\n  ${alias[1]}${optional ? '?' : ''}: ${type};\n`;
      }
    }
    out += '}\n';
  }
  return out;
}

export function render() {
  const rel = (p) => relative(ROOT, p);
  const files = [...new Set(RUST.map(([f]) => f))];
  return (
    `// The shapes of the toolgate policy in TypeScript. Generated by\n` +
    `// host-js/scripts/gen-types.js from ${rel(WIT)} (the \`types\` interface) and\n` +
    `// the serde types of ${files.join(', ')}:\n` +
    `// do not edit; run \`node scripts/gen-types.js\` instead.\n` +
    `\n// The component's typed values, as this package returns them.\n` +
    renderWit(witItems(readFileSync(WIT, 'utf8'))) +
    `\n// The JSON the component reads and writes as text (field names as written).\n` +
    renderRust(RUST)
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = render();
  if (process.argv.includes('--check')) {
    if (readFileSync(OUT, 'utf8') !== text) {
      console.error(`${relative(ROOT, OUT)} is stale: run node host-js/scripts/gen-types.js`);
      process.exit(1);
    }
  } else {
    writeFileSync(OUT, text);
  }
}
