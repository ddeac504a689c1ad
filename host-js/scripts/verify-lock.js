#!/usr/bin/env node
// Checks that node_modules holds exactly the versions package-lock.json pins.
//
// The test command installs with `npm install` rather than `npm ci`: the
// registry some machines reach serves only their own platform's optional
// native binaries (of the build tools' dependencies), so a lockfile written
// there cannot list the other platforms' binaries, and `npm ci` refuses any
// lockfile that lacks them. `npm install` honours the pinned versions all the
// same; this check proves it.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const lock = JSON.parse(readFileSync(join(pkg, 'package-lock.json'), 'utf8'));
const problems = [];
let checked = 0;
for (const [path, entry] of Object.entries(lock.packages ?? {})) {
  if (path === '' || entry.link || entry.extraneous) continue;
  const manifest = join(pkg, path, 'package.json');
  if (!existsSync(manifest)) {
    // Optional packages are skipped on platforms they are not for.
    if (!entry.optional) problems.push(`${path}: not installed`);
    continue;
  }
  const installed = JSON.parse(readFileSync(manifest, 'utf8')).version;
  if (installed !== entry.version) problems.push(`${path}: ${installed} installed, ${entry.version} locked`);
  checked += 1;
}
if (problems.length > 0) {
  console.error(`verify-lock: node_modules does not match package-lock.json:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`verify-lock: ${checked} packages match package-lock.json`);
