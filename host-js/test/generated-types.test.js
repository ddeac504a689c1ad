// The TypeScript shapes (src/shapes.d.ts) are generated from the WIT and the
// Rust types by scripts/gen-types.js: the committed file must be what the
// generator prints now, so a field added to a shape reaches the declarations
// in the same change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { render } from '../scripts/gen-types.js';

const committed = () => readFileSync(new URL('../src/shapes.d.ts', import.meta.url), 'utf8');

test('src/shapes.d.ts is what scripts/gen-types.js prints', () => {
  assert.equal(committed(), render(), 'src/shapes.d.ts is stale: run node host-js/scripts/gen-types.js');
});

test('the shapes come from their sources', () => {
  const text = committed();
  // A WIT record in camelCase, its option as null; a serde struct as written.
  assert.match(text, /export interface Decision \{[^}]*\n {2}llmRisk: Risk \| null;/);
  assert.match(text, /export interface DecisionRecord \{[^}]*\n {2}llm_risk: Risk \| null;/);
  // A serde alias is another optional member.
  const tool = text.slice(text.indexOf('export interface ToolConfig {'));
  assert.ok(tool.slice(0, tool.indexOf('\n}\n')).includes('\n  url_pattern?: string;'));
  assert.match(text, /export type Mode = 'default' \| 'read-only' \| 'accept-edits' \| 'allowlist';/);
});

test('the package ships the generated shapes', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.ok(pkg.files.includes('src/'), 'src/ (with shapes.d.ts) is in the package');
});
