// Paths shared by the Node tests.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
export const root = join(pkg, '..');
export const vectorsDir = join(root, 'tests', 'conformance');
export const outDir = join(root, 'target', 'conformance');
export const rustCli = join(root, 'target', 'release', 'toolgate');
export const jsCli = join(pkg, 'bin', 'toolgate.js');

/** The vector files as [name, text] pairs, in name order (as the Rust runner reads them). */
export function vectorFiles() {
  return readdirSync(vectorsDir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => [f, readFileSync(join(vectorsDir, f), 'utf8')]);
}

/** The gate vector files as [name, text] pairs, in name order (as the native runner reads them). */
export function gateFiles() {
  const dir = join(root, 'tests', 'gate');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
}
