// The conformance runner for JavaScript runtimes, shared by Node and the
// browser page (no Node built-ins here). Same vector format and checks as
// tests/conformance/runner.rs.

import { decisionJson } from '../src/index.js';

/**
 * Parses vector files, given as [name, text] pairs in name order.
 * @returns {{file: string, name: string, config: string | null, tool: string, args: string, expect: object}[]}
 */
export function parseVectors(files) {
  const cases = [];
  for (const [file, text] of files) {
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let v;
      try {
        v = JSON.parse(line);
      } catch (e) {
        throw new Error(`${file}:${i + 1}: ${e.message}`);
      }
      cases.push({
        file,
        name: v.name,
        config: 'config' in v ? JSON.stringify(v.config) : null,
        tool: v.tool,
        args: typeof v.args === 'string' ? v.args : JSON.stringify(v.args),
        expect: v.expect,
      });
    });
  }
  return cases;
}

/**
 * Runs every case on `policy`. Returns the decision lines (canonical JSON, one
 * per case, in order) and every failed expectation.
 */
export function runVectors(policy, cases) {
  const lines = [];
  const failures = [];
  for (const c of cases) {
    let decision;
    if (c.config === null) {
      decision = policy.assess(c.tool, c.args);
    } else {
      const engine = policy.engine(c.config);
      decision = engine.assess(c.tool, c.args);
      engine.dispose();
    }
    lines.push(decisionJson(decision));
    if (c.expect.action === undefined) failures.push(`${c.file} / ${c.name}: no expected action`);
    for (const key of ['action', 'risk', 'source']) {
      if (c.expect[key] !== undefined && decision[key] !== c.expect[key]) {
        failures.push(`${c.file} / ${c.name}: ${key} is ${decision[key]}, expected ${c.expect[key]}`);
      }
    }
    const codes = decision.findings.map((f) => f.code);
    if (c.expect.findings !== undefined && JSON.stringify(codes) !== JSON.stringify(c.expect.findings)) {
      failures.push(`${c.file} / ${c.name}: findings ${JSON.stringify(codes)}, expected ${JSON.stringify(c.expect.findings)}`);
    }
    for (const code of c.expect.includes ?? []) {
      if (!codes.includes(code)) failures.push(`${c.file} / ${c.name}: findings ${JSON.stringify(codes)} lack ${code}`);
    }
    if (decision.summary === '' || decision.summary.includes('\n')) {
      failures.push(`${c.file} / ${c.name}: summary is not one line`);
    }
  }
  return { lines, failures };
}
