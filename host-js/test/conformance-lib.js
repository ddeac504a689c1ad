// The conformance runner for JavaScript runtimes, shared by Node and the
// browser page (no Node built-ins here). The twin of tests/conformance/runner.rs:
// same vector format, same checks, same recorded lines.

import { decisionJson, toolCallJson, RejectedError, RequestError } from '../src/index.js';

const textOf = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Parses vector files, given as [name, text] pairs in name order.
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
      const kind = v.kind ?? 'assess';
      cases.push({
        file,
        name: v.name,
        kind,
        config: 'config' in v ? JSON.stringify(v.config) : null,
        context: 'context' in v ? textOf(v.context) : null,
        tool: v.tool ?? '',
        text: textOf(kind === 'call' ? v.call : kind === 'augment' ? v.tools : v.args),
        format: typeof v.format === 'string' ? v.format : null,
        expect: v.expect,
        raw: v,
      });
    });
  }
  return cases;
}

function withEngine(policy, config, f) {
  const engine = policy.engine(config ?? '{}');
  try {
    return f(engine);
  } finally {
    engine.dispose();
  }
}

/** The recorded line of one case, exactly as the Rust runner writes it. */
function lineFor(policy, c) {
  if (c.kind === 'call') {
    let call = 'null';
    let error = 'null';
    try {
      call = toolCallJson(policy.parseCall(c.text));
    } catch (e) {
      if (!(e instanceof RejectedError)) throw e;
      error = JSON.stringify(e.message);
    }
    const decision = withEngine(policy, c.config, (engine) => decisionJson(engine.assessCall(c.text)));
    return `{"call":${call},"error":${error},"decision":${decision}}`;
  }
  if (c.kind === 'augment') {
    try {
      const a = withEngine(policy, c.config, (engine) => engine.augmentTools(c.text, c.format ?? undefined));
      return `{"tools":${JSON.stringify(a.tools)},"notes":${JSON.stringify(a.notes)}}`;
    } catch (e) {
      if (!(e instanceof RejectedError)) throw e;
      return `{"error":${JSON.stringify(e.message)}}`;
    }
  }
  if (c.kind === 'discover') {
    return withEngine(policy, c.config, (engine) => {
      const found = engine.discover(c.raw.intent ?? '', { category: c.raw.category ?? undefined, limit: c.raw.limit ?? 0 });
      const candidates = found.map((f) =>
        JSON.stringify({
          name: f.name,
          display_name: f.displayName,
          description: f.description,
          category: f.category,
          risk_level: f.riskLevel,
          score: f.score,
          matched: f.matched,
        }),
      );
      const prompt =
        typeof c.raw.language === 'string' ? JSON.stringify(engine.toolPrompt(found.map((f) => f.name), c.raw.language)) : 'null';
      return `{"candidates":[${candidates.join(',')}],"prompt":${prompt}}`;
    });
  }
  if (c.kind === 'request') {
    return withEngine(policy, c.config, (engine) => {
      try {
        const r = engine.buildRequest(c.tool, c.text);
        return `{"request":${JSON.stringify({ method: r.method, path: r.path, query: r.query, url: r.url, body: r.body })}}`;
      } catch (e) {
        if (!(e instanceof RequestError)) throw e;
        return `{"error":${JSON.stringify(e.findings.map((f) => ({ code: f.code, message: f.message })))}}`;
      }
    });
  }
  if (c.kind === 'response') {
    const r =
      typeof c.raw.tool === 'string'
        ? withEngine(policy, c.config, (engine) => engine.readToolResponse(c.raw.tool, c.raw.status, c.raw.body))
        : policy.readResponse(c.raw.status, c.raw.body);
    return r.ok ? `{"ok":${JSON.stringify(r.result)}}` : `{"error":${JSON.stringify(r.error)}}`;
  }
  if (c.kind === 'import') {
    const spec = typeof c.raw.spec === 'string' ? c.raw.spec : JSON.stringify(c.raw.spec);
    try {
      return `{"output":${policy.importOpenapiJson(spec, JSON.stringify(c.raw.options ?? {}))}}`;
    } catch (e) {
      if (!(e instanceof RejectedError)) throw e;
      return `{"error":${JSON.stringify(e.message)}}`;
    }
  }
  if (c.config === null && c.context === null) return decisionJson(policy.assess(c.tool, c.text));
  return withEngine(policy, c.config, (engine) =>
    decisionJson(c.context === null ? engine.assess(c.tool, c.text) : engine.assess(c.tool, c.text, c.context)),
  );
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function checkDecision(c, got, failures) {
  const label = `${c.file} / ${c.name}`;
  if (c.expect.action === undefined) failures.push(`${label}: no expected action`);
  for (const key of ['action', 'risk', 'source']) {
    if (c.expect[key] !== undefined && got[key] !== c.expect[key]) {
      failures.push(`${label}: ${key} is ${got[key]}, expected ${c.expect[key]}`);
    }
  }
  const codes = got.findings.map((f) => f.code);
  if (c.expect.findings !== undefined && !same(codes, c.expect.findings)) {
    failures.push(`${label}: findings ${JSON.stringify(codes)}, expected ${JSON.stringify(c.expect.findings)}`);
  }
  for (const code of c.expect.includes ?? []) {
    if (!codes.includes(code)) failures.push(`${label}: findings ${JSON.stringify(codes)} lack ${code}`);
  }
  if (got.summary === '' || got.summary.includes('\n')) failures.push(`${label}: summary is not one line`);
}

function checkError(c, got, failures) {
  if (c.expect.error !== undefined && !(typeof got.error === 'string' && got.error.includes(c.expect.error))) {
    failures.push(`${c.file} / ${c.name}: error ${JSON.stringify(got.error)}, expected one containing ${c.expect.error}`);
  }
}

/** Keys compared the way serde_json compares values (object key order ignored). */
function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}

/**
 * Runs every case on `policy`. Returns the recorded lines (one per case, in
 * order) and every failed expectation.
 */
export function runVectors(policy, cases) {
  const lines = [];
  const failures = [];
  for (const c of cases) {
    const line = lineFor(policy, c);
    lines.push(line);
    const got = JSON.parse(line);
    if (c.kind === 'call') {
      checkError(c, got, failures);
      for (const [key, value] of Object.entries(c.expect.call ?? {})) {
        if (!same(got.call?.[key], value)) {
          failures.push(`${c.file} / ${c.name}: call.${key} is ${JSON.stringify(got.call?.[key])}, expected ${JSON.stringify(value)}`);
        }
      }
      checkDecision(c, got.decision, failures);
    } else if (c.kind === 'augment') {
      if (c.expect.error !== undefined) {
        checkError(c, got, failures);
      } else if (typeof got.tools !== 'string') {
        failures.push(`${c.file} / ${c.name}: failed with ${got.error}`);
      } else {
        if (c.expect.output !== undefined && !deepEqual(JSON.parse(got.tools), c.expect.output)) {
          failures.push(`${c.file} / ${c.name}: output ${got.tools}, expected ${JSON.stringify(c.expect.output)}`);
        }
        if (c.expect.notes !== undefined && !same(got.notes, c.expect.notes)) {
          failures.push(`${c.file} / ${c.name}: notes ${JSON.stringify(got.notes)}, expected ${JSON.stringify(c.expect.notes)}`);
        }
      }
    } else if (c.kind === 'discover') {
      const label = `${c.file} / ${c.name}`;
      const names = got.candidates.map((x) => x.name);
      if (c.expect.names !== undefined && !same(names, c.expect.names)) {
        failures.push(`${label}: candidates ${JSON.stringify(names)}, expected ${JSON.stringify(c.expect.names)}`);
      }
      if (c.expect.matched !== undefined && !same(got.candidates[0]?.matched, c.expect.matched)) {
        failures.push(`${label}: matched ${JSON.stringify(got.candidates[0]?.matched)}`);
      }
      if (c.expect.prompt !== undefined && got.prompt !== c.expect.prompt) failures.push(`${label}: prompt ${JSON.stringify(got.prompt)}`);
      for (const part of c.expect.prompt_includes ?? []) {
        if (!String(got.prompt).includes(part)) failures.push(`${label}: prompt lacks ${part}`);
      }
    } else if (c.kind === 'request') {
      const label = `${c.file} / ${c.name}`;
      if (c.expect.errors !== undefined) {
        const codes = (got.error ?? []).map((f) => f.code);
        if (!same(codes, c.expect.errors)) failures.push(`${label}: errors ${JSON.stringify(codes)}, expected ${JSON.stringify(c.expect.errors)}`);
      }
      for (const [key, value] of Object.entries(c.expect.request ?? {})) {
        if (!deepEqual(got.request?.[key], value)) {
          failures.push(`${label}: request.${key} is ${JSON.stringify(got.request?.[key])}, expected ${JSON.stringify(value)}`);
        }
      }
    } else if (c.kind === 'import') {
      const label = `${c.file} / ${c.name}`;
      if (c.expect.output !== undefined && !deepEqual(got.output, c.expect.output)) {
        failures.push(`${label}: output is ${JSON.stringify(got.output)}, expected ${JSON.stringify(c.expect.output)}`);
      }
      if (c.expect.summary !== undefined && !deepEqual(got.output?.summary, c.expect.summary)) {
        failures.push(`${label}: summary is ${JSON.stringify(got.output?.summary)}, expected ${JSON.stringify(c.expect.summary)}`);
      }
      if (c.expect.error !== undefined && !(typeof got.error === 'string' && got.error.includes(c.expect.error))) {
        failures.push(`${label}: error is ${JSON.stringify(got.error)}, expected one containing ${JSON.stringify(c.expect.error)}`);
      }
    } else if (c.kind === 'response') {
      for (const key of ['ok', 'error']) {
        if (c.expect[key] !== undefined && got[key] !== c.expect[key]) {
          failures.push(`${c.file} / ${c.name}: ${key} is ${JSON.stringify(got[key])}, expected ${JSON.stringify(c.expect[key])}`);
        }
      }
    } else {
      checkDecision(c, got, failures);
    }
  }
  return { lines, failures };
}
