// The gate-vector runner for JavaScript runtimes, shared by Node and the
// browser page (no Node built-ins here). The twin of tests/gate/runner.rs: the
// same script semantics, the same output text per step.
//
// - a flow is created at its first use (`create` makes it explicitly and
//   outputs `{"ok":true}` or the error);
// - `settle` and `open` take the checkpoint of the last `ask` step unless they
//   name one; `tamper: [from, to]` replaces the first `from` in it; `finish`
//   the ticket of the last `run` step unless it names one;
// - a `run` step's `grant` is held, as a host keeps it: a `begin` with
//   `"granted": true` passes every held grant with its call (each tampered with
//   as `grant_tamper: [from, to]` says); `revoke` takes the last held grant (or
//   the step's `grant`), outputs `{"line":L}` and drops it; `open_grant` opens
//   the last held grant;
// - `previous` is the last audit line any step produced (or the step's own
//   `previous`), so a script's lines form one chain;
// - a step's output is the component's text, or for an error
//   `{"error":"checkpoint","kind":K,"detail":D}` / `{"error":"invalid","detail":D}`.

import { StepError, RejectedError } from '../src/index.js';

/** A field as text: strings as they are, other JSON values as JSON, null and absent as null. */
const text = (v) => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));
const str = (v, otherwise) => (typeof v === 'string' ? v : otherwise);
const u64 = (v) => (Number.isSafeInteger(v) && v >= 0 ? v : 0);

/** The checkpoint a step takes: its own, or the last one asked, tampered with as the step says. */
function taken(step, last) {
  const cp = text(step.checkpoint) ?? last ?? '';
  const [from, to] = Array.isArray(step.tamper) ? step.tamper : [];
  if (typeof from !== 'string' || typeof to !== 'string') return cp;
  const at = cp.indexOf(from);
  return at < 0 ? cp : cp.slice(0, at) + to + cp.slice(at + from.length);
}

function errorText(e) {
  if (!(e instanceof StepError)) throw e;
  if (e.kind === 'invalid') return JSON.stringify({ error: 'invalid', detail: e.detail });
  return JSON.stringify({ error: 'checkpoint', kind: e.checkpoint.kind, detail: e.checkpoint.detail ?? null });
}

/** Runs one script; returns the outputs of its steps, one text each. */
export function runScript(policy, script) {
  const specs = script.flows ?? {};
  const flows = new Map();
  let checkpoint = null;
  let ticket = null;
  let previous = null;
  const held = [];
  const outputs = [];
  try {
    for (const step of script.steps ?? []) {
      const name = str(step.flow, 'a');
      if (!flows.has(name)) {
        const spec = Object.hasOwn(specs, name) ? specs[name] : {};
        try {
          flows.set(name, {
            ok: policy.flow(text(spec.config) ?? '{}', text(spec.settings) ?? '{}', {
              checkpointKey: text(spec.checkpoint_key) ?? undefined,
              auditKey: text(spec.audit_key) ?? undefined,
            }),
          });
        } catch (e) {
          if (!(e instanceof RejectedError)) throw e;
          flows.set(name, { error: e.message });
        }
      }
      const flow = flows.get(name);
      const prev = 'previous' in step ? text(step.previous) : previous;
      const now = u64(step.now);
      let out;
      const doing = str(step.do, '');
      if (flow.error !== undefined) out = JSON.stringify({ error: 'create', detail: flow.error });
      else if (doing === 'create') out = '{"ok":true}';
      else {
        const f = flow.ok;
        try {
          if (doing === 'begin') {
            let call = text(step.call) ?? '';
            if (step.granted === true) {
              const [from, to] = Array.isArray(step.grant_tamper) ? step.grant_tamper : [];
              const tamper = (g) => (typeof from === 'string' && typeof to === 'string' && g.includes(from) ? g.replace(from, () => to) : g);
              const value = JSON.parse(call);
              value.grants = held.map(tamper);
              call = JSON.stringify(value);
            }
            out = f.begin(call, str(step.id, ''), now, prev);
          } else if (doing === 'open_grant') out = f.openGrant(text(step.grant) ?? held.at(-1) ?? '', now);
          else if (doing === 'revoke') out = JSON.stringify({ line: f.revoke(text(step.grant) ?? held.pop() ?? '', now, prev) });
          else if (doing === 'open') out = f.open(taken(step, checkpoint));
          else if (doing === 'settle') out = f.settle(taken(step, checkpoint), text(step.answer) ?? '', now, prev);
          else if (doing === 'finish') out = f.finish(text(step.ticket) ?? ticket ?? '', text(step.ran) ?? '', now, prev);
          else if (doing === 'gap') out = JSON.stringify({ line: f.gap(str(step.what, ''), now, prev) });
          else throw new Error(`unknown step \`${doing}\``);
        } catch (e) {
          out = errorText(e);
        }
      }
      // What the next steps take from this one.
      let value = null;
      try {
        value = JSON.parse(out);
      } catch {
        value = null;
      }
      if (value !== null && typeof value === 'object') {
        if (value.step === 'ask') checkpoint = text(value.checkpoint);
        else if (value.step === 'run') {
          ticket = text(value.ticket);
          const sealed = text(value.grant?.sealed);
          if (sealed !== null) held.push(sealed);
        }
        const line = text(value.audit) ?? text(value.line);
        if (line !== null) previous = line;
      }
      outputs.push(out);
    }
  } finally {
    for (const f of flows.values()) f.ok?.dispose();
  }
  return outputs;
}

/**
 * Runs every script of the vector files (given as [name, text] pairs in name
 * order). Returns the output lines (all steps, in order), the case count and
 * the failures (a case whose outputs differ from its `expect`).
 */
export function runGateVectors(policy, files) {
  const lines = [];
  const failures = [];
  let count = 0;
  for (const [file, source] of files) {
    const names = new Set();
    for (const line of source.split('\n')) {
      if (line.trim() === '') continue;
      const script = JSON.parse(line);
      if (names.has(script.name)) throw new Error(`${file}: two cases named \`${script.name}\``);
      names.add(script.name);
      count += 1;
      const outputs = runScript(policy, script);
      lines.push(...outputs);
      const expected = (script.expect ?? []).map((v) => JSON.stringify(v));
      if (expected.length !== outputs.length || expected.some((e, i) => e !== outputs[i])) {
        failures.push({ file, name: script.name, expected, got: outputs });
      }
    }
  }
  return { count, lines, failures };
}
