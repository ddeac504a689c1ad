#!/usr/bin/env node
// How many of GTFOBins' snippets a model's "low" rating gets past the guarded
// floor, per GTFOBins function (shell, command, file-read, upload, …), and how
// many benign calls rated low stay allowed.
//
//   node tests/bench/gtfobins-floor.mjs [path/to/toolgate]   (default target/release/toolgate)
//
// The snippets are GTFOBins' own (tests/bench/gtfobins-snippets.json names the
// commit they were taken from). Each snippet's code, all its lines, is one
// execute_command call rated low. Its placeholders are filled with what an
// attacker would name: the file read is a key (~/.ssh/id_rsa), the file written
// a start-up file that exists (~/.bashrc), the library and command are files the
// line does not show. The benign calls are every vector of
// tests/conformance/floor*.jsonl that is rated low and expected to be allowed.
// Prints one table; exits 0 (a measurement, not a test).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = process.argv[2] ?? join(root, 'target', 'release', 'toolgate');
const data = JSON.parse(readFileSync(join(root, 'tests', 'bench', 'gtfobins-snippets.json'), 'utf8'));

/** GTFOBins' placeholders and what the benchmark puts in their place. */
const PLACEHOLDERS = [
  ['/path/to/input-file', '~/.ssh/id_rsa'],
  ['/path/to/ouput-file', '~/.bashrc'],
  ['/path/to/output-file', '~/.bashrc'],
  ['/path/to/input-dir', '~/.ssh'],
  ['/path/to/output-dir', '~/.config/autostart'],
  ['/path/to/temp-file', '/tmp/gtfo-temp'],
  ['/path/to/temp-dir', '/tmp/gtfo-dir'],
  ['/path/to/temp-socket', '/tmp/gtfo-socket'],
  ['/path/to/command', '/tmp/gtfo-payload'],
  ['/path/to/script', '/tmp/gtfo-script'],
  ['/path/to/lib', '/tmp/gtfo-lib'],
  ['/path/to/dir', '/tmp/gtfo-dir'],
];
const fill = (code) => PLACEHOLDERS.reduce((text, [from, to]) => text.split(from).join(to), code);

function decide(calls) {
  const dir = mkdtempSync(join(tmpdir(), 'gtfo-floor-'));
  const file = join(dir, 'calls.jsonl');
  writeFileSync(file, calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
  let out;
  try {
    out = execFileSync(cli, ['check', file], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (e) {
    out = e.stdout; // exit 10: some calls confirm
  }
  return out.trim().split('\n').map((line) => JSON.parse(line));
}

const snippets = data.snippets;
const decisions = decide(snippets.map((s) => ({ tool: 'execute_command', args: { command: fill(s.code), risk_level: 'low' } })));
if (decisions.length !== snippets.length) throw new Error(`${decisions.length} decisions for ${snippets.length} snippets`);
const rows = new Map();
const passed = [];
snippets.forEach((s, i) => {
  const row = rows.get(s.function) ?? { total: 0, allow: 0 };
  row.total += 1;
  if (decisions[i].action === 'allow') {
    row.allow += 1;
    passed.push(`${s.function}\t${s.program}#${s.index}\t${JSON.stringify(fill(s.code))}`);
  }
  rows.set(s.function, row);
});

const conformance = join(root, 'tests', 'conformance');
const benign = readdirSync(conformance)
  .filter((f) => f.startsWith('floor') && f.endsWith('.jsonl'))
  .flatMap((f) => readFileSync(join(conformance, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)))
  .filter((v) => v.args?.risk_level === 'low' && v.expect?.action === 'allow' && !v.config && !v.context);
const benignDecisions = decide(benign.map((v) => ({ tool: v.tool, args: v.args })));
const benignAllowed = benignDecisions.filter((d) => d.action === 'allow').length;

console.log(`GTFOBins ${data.source.commit.slice(0, 12)}: snippets rated low that the floor lets pass (allow)`);
console.log('function               allowed / snippets');
let all = 0;
let allowed = 0;
for (const [fn, row] of [...rows].sort()) {
  console.log(`${fn.padEnd(22)} ${String(row.allow).padStart(7)} / ${row.total}`);
  all += row.total;
  allowed += row.allow;
}
console.log(`${'all'.padEnd(22)} ${String(allowed).padStart(7)} / ${all}`);
console.log(`benign calls rated low (floor*.jsonl) allowed: ${benignAllowed} / ${benign.length}`);
if (process.env.GTFO_LIST) writeFileSync(process.env.GTFO_LIST, passed.join('\n') + '\n');
