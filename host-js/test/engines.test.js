// The Node versions docs/adapters.md states for each entry point are the ones
// its SDK declares (its `engines`, or for the Agents SDK, which declares none,
// its README), read from the installed packages; and toolgate's own `engines`
// is the floor wherever an SDK asks for less.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pkg, root } from './paths.js';

const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
const page = readFileSync(join(root, 'docs', 'adapters.md'), 'utf8');

function installed(name) {
  return JSON.parse(readFileSync(join(pkg, 'node_modules', name, 'package.json'), 'utf8'));
}

/** The lowest major an `engines.node` range admits (`>=22`, `>= 16.0.0`, `20.x || 22.x`). */
function floor(range) {
  const majors = [...String(range).matchAll(/(\d+)(?:\.\d+|\.x)*/g)].map((m) => Number(m[1]));
  assert.ok(majors.length > 0, `a range with a version: ${range}`);
  return Math.min(...majors);
}

/** The table row of the page whose first cell starts with `entry` and mentions `sdk`. */
function row(entry, sdk) {
  const found = page.split('\n').filter((l) => l.startsWith(`| ${entry}`) && l.includes(sdk));
  assert.equal(found.length, 1, `one row for ${entry} with ${sdk}`);
  return found[0].split('|').map((c) => c.trim());
}

const OURS = floor(manifest.engines.node);

for (const [entry, sdk, declared] of [
  ['`toolgate/ai-sdk`', '`ai` 7', () => installed('ai').engines.node],
  ['`toolgate/ai-sdk`', '`ai` 6', () => installed('ai-v6').engines.node],
  ['`toolgate/mcp`', '@modelcontextprotocol/sdk', () => installed('@modelcontextprotocol/sdk').engines.node],
  ['`PostgresStore`', '`pg`', () => installed('pg').engines.node],
  [
    '`toolgate/openai-agents`',
    '@openai/agents',
    () => {
      assert.equal(installed('@openai/agents').engines, undefined, 'the Agents SDK now declares engines: read them instead');
      const readme = readFileSync(join(pkg, 'node_modules', '@openai', 'agents', 'README.md'), 'utf8');
      const m = readme.match(/Node\.js (\d+) or later/);
      assert.ok(m, "the Agents SDK's README names its Node");
      return `>=${m[1]}`;
    },
  ],
]) {
  test(`${entry} with ${sdk}: the page states the Node the SDK declares`, () => {
    const range = declared();
    const cells = row(entry, sdk);
    assert.ok(cells[3].includes(range.replace(/\s+/g, ' ')) || cells[3].includes(`"Node.js ${floor(range)} or later"`), `the row cites ${range}: ${cells[3]}`);
    const needs = cells[2];
    if (floor(range) > OURS) assert.equal(needs, `${floor(range)} or later`, `${entry} with ${sdk} needs Node ${floor(range)}`);
    else assert.equal(needs, "toolgate's", `${entry} with ${sdk} runs wherever toolgate does`);
  });
}

test('the SQLite row names better-sqlite3 as installed and the Node that has node:sqlite', () => {
  const cells = row('`SqliteStore`', 'better-sqlite3');
  const major = Number(installed('better-sqlite3').version.split('.')[0]);
  assert.ok(cells[2].includes(`\`better-sqlite3\` ${major}`), cells[2]);
  const range = installed('better-sqlite3').engines.node;
  const majors = range.split('||').map((r) => floor(r));
  assert.ok(cells[2].includes(`\`${Math.min(...majors)}.x\` to \`${Math.max(...majors)}.x\``), `${cells[2]} states ${range}`);
  assert.ok(majors.includes(OURS), 'better-sqlite3 runs on the oldest Node toolgate supports');
  assert.equal(manifest.peerDependencies['better-sqlite3'].replace(/^\^/, '').split('.')[0], String(major));
});
