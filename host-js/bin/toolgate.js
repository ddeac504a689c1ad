#!/usr/bin/env node
// `toolgate` for Node: the same help, usage errors, output and exit codes as
// the Rust CLI, byte for byte. The commands, options, help, usage errors and
// exit codes are declared once, in `shapes/cli.json`, and parsed and laid out
// by ./grammar.js as the Rust CLI does (docs/cli.md sums the rules up);
// `check`'s lines are read and formatted by the component; and
// test/cli.test.js runs both CLIs over a table of argument lists and inputs.

import { readFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { pathToFileURL } from 'node:url';
import { loadPolicy, decisionJson, RejectedError, RequestError, ToolgateError, AuditBrokenError, PolicyFaultError } from '../src/index.js';
import { EXIT, UsageError, fill, grammar, helpText, parseArgs, printable, runsHere } from './grammar.js';

/** The component's merge of configuration layers, as its JSON text; a refusal is the error. */
function unwrapLayers(policy, layers) {
  try {
    return policy.layerConfigJson(JSON.stringify(layers));
  } catch (e) {
    if (e instanceof RejectedError) throw new ToolgateError(e.message);
    throw e;
  }
}

/** A comma-separated option value as a list (no empty items). */
function list(value) {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * An OpenAPI document's JSON text: JSON as it is, YAML converted (the import
 * itself is the component's, so both CLIs import alike).
 */
async function specJson(text) {
  try {
    JSON.parse(text);
    return text;
  } catch {
    // not JSON: YAML below
  }
  // Loaded only here: no other command pays for the YAML reader at start-up.
  const { parse: parseYaml } = await import('yaml');
  let value;
  try {
    value = parseYaml(text, { maxAliasCount: 1000 });
  } catch {
    throw new ToolgateError('the document is neither JSON nor YAML');
  }
  return JSON.stringify(value ?? null);
}

/**
 * Compact JSON text laid out with two-space indents, as the Rust CLI prints
 * (`{}` and `[]` stay closed), copying every string and number as written.
 */
function prettyJson(text) {
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      if (text[i + 1] === close) {
        out += c + close;
        i += 1;
      } else {
        depth += 1;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth -= 1;
      out += newline() + c;
    } else if (c === ',') {
      out += `,${newline()}`;
    } else if (c === ':') {
      out += ': ';
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * JSON text with DEL, the C1 controls, the line and paragraph separators and the
 * bidirectional marks written as \uXXXX escapes (JSON.stringify leaves them raw): the
 * same value, one record a line, nothing that moves a terminal's cursor. The twin of
 * the Rust host's `toolgate_shapes::jsonl::escape_controls`.
 */
function jsonLine(value) {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The gate over a checkpoint directory that `grants list` and `grants revoke` work with. */
async function grantsGate(policy, opts) {
  const { Gate } = await import('../src/index.js');
  const { FileStore, JsonlSink } = await import('../src/node.js');
  const key = await readKey(opts.value('--key-file'));
  const audit = opts.value('--audit') === null ? [] : [new JsonlSink(opts.value('--audit'))];
  const auditKey = opts.value('--audit-key-file') === null ? undefined : await readKey(opts.value('--audit-key-file'));
  return new Gate(policy, { key, store: new FileStore(opts.operands[0]), audit, auditKey });
}

/** Why a file could not be read, in the words the Rust CLI uses. */
function ioReason(e) {
  switch (e?.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'not a directory';
    default:
      return 'read error';
  }
}

/** A key file's bytes (one trailing newline ignored); an empty or short key is an error. */
async function readKey(path) {
  let key = await readBytes(path);
  if (key.at(-1) === 0x0a) key = key.subarray(0, key.at(-2) === 0x0d ? -2 : -1);
  if (key.length < 16) {
    throw new ToolgateError(`the key file ${path} holds ${key.length} bytes; a key has at least 16 (make one with \`head -c 32 /dev/urandom > key\`)`);
  }
  return new Uint8Array(key);
}

/** A record line's `hash`, or null. */
function lineHash(line) {
  try {
    const hash = JSON.parse(line)?.hash;
    return typeof hash === 'string' ? hash : null;
  } catch {
    return null;
  }
}

async function readStdin() {
  const chunks = [];
  try {
    for await (const chunk of process.stdin) chunks.push(chunk);
  } catch (e) {
    throw new ToolgateError(`cannot read standard input: ${ioReason(e)}`);
  }
  return Buffer.concat(chunks);
}

async function readBytes(path) {
  if (path === undefined || path === null || path === '-') return readStdin();
  try {
    return await readFile(path);
  } catch (e) {
    throw new ToolgateError(`cannot read ${path}: ${ioReason(e)}`);
  }
}

/** A whole input as text; input that is not UTF-8 is an error, never guessed at. */
async function readText(path) {
  const bytes = await readBytes(path);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const what = path === undefined || path === null || path === '-' ? 'standard input' : path;
    throw new ToolgateError(`cannot read ${what}: not valid UTF-8`);
  }
}

/** Splits bytes into lines at '\n' (the component reads the rest of each line). */
function byteLines(bytes) {
  const lines = [];
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    lines.push(bytes.subarray(start, end));
    start = end + 1;
  }
  // A final newline ends the last line; it does not start another.
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) lines.pop();
  return lines;
}

/** The largest `--now` every CLI takes exactly (2^53 - 1: a JavaScript number's whole numbers). */
const MAX_NOW_MS = 2 ** 53 - 1;

/** An option's value as a whole number from 0 to `max`: ASCII digits only, worded as in the Rust CLI. */
function wholeNumber(text, option, max) {
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!(n <= max)) throw new ToolgateError(`${option} ${printable(text)}: give a whole number from 0 to ${max}`);
  return n;
}

/** An id given on the command line as JSON: a whole number written as one, anything else a string. */
function idJson(text) {
  return /^(0|[1-9][0-9]*)$/.test(text) ? text : JSON.stringify(text);
}

/** Why the component cannot read a context, in its own words; null when it can. */
function contextError(engine, context) {
  const found = engine.assess('', '{}', context).findings.find((f) => f.code === 'context.invalid');
  return found === undefined ? null : found.message;
}

/**
 * The caller's context the command line gives, as the component reads it
 * (null when it gives none): the flags as one context, and with `--context
 * FILE` the list `[FILE, flags]`, which the component merges; the file's text
 * goes as written (see `context_text` in the Rust CLI).
 */
async function contextText(engine, opts) {
  const strings = (name) => `[${list(opts.value(name)).map((s) => JSON.stringify(s)).join(',')}]`;
  const fields = [];
  if (opts.value('--permissions') !== null) fields.push(`"permissions":${strings('--permissions')}`);
  if (opts.value('--roles') !== null) fields.push(`"roles":${strings('--roles')}`);
  if (opts.value('--groups') !== null) fields.push(`"resources":{"group_id":[${list(opts.value('--groups')).map(idJson).join(',')}]}`);
  if (opts.value('--default-group') !== null) fields.push(`"defaults":{"group_id":${idJson(opts.value('--default-group'))}}`);
  const flags = fields.length === 0 ? null : `{${fields.join(',')}}`;
  const path = opts.value('--context');
  let file = null;
  if (path !== null) {
    const text = await readText(path);
    const error = contextError(engine, text);
    if (error !== null) throw new ToolgateError(`context ${path}: ${error}`);
    if (!/^[ \t\r\n]*$/.test(text)) file = text;
  }
  if (file === null && flags === null) return null;
  if (flags === null) return file;
  const [what, text] = file === null ? ['context', flags] : [`context ${path}`, `[${file},${flags}]`];
  const error = contextError(engine, text);
  if (error !== null) throw new ToolgateError(`${what}: ${error}`);
  return text;
}

/** Reasons as `code: message`, joined by `; `. */
function findingsText(findings) {
  return findings.map((f) => `${f.code}: ${f.message}`).join('; ');
}

/** The human-readable form of a decision (identical in the Rust CLI). */
function render(d) {
  let text = `${d.action} · risk ${d.risk} · source ${d.source}`;
  if (d.llmRisk !== null) text += ` · model said ${d.llmRisk}`;
  text += `\n${d.summary}\n`;
  for (const f of d.findings) text += `  ${f.code.padEnd(24)} ${f.message}\n`;
  return text;
}

function exitFor(actions) {
  if (actions.includes('deny')) return EXIT.DENY;
  if (actions.includes('confirm')) return EXIT.CONFIRM;
  return EXIT.OK;
}

function write(text) {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (e) => (e ? reject(e) : resolve()));
  });
}

async function engineFor(policy, configPath) {
  const text = configPath === null ? '{}' : await readText(configPath);
  try {
    return policy.engine(text);
  } catch (e) {
    const what = configPath === null ? 'default configuration' : `configuration ${configPath}`;
    throw new ToolgateError(`${what}: ${e.message}`);
  }
}

/**
 * Decides every call of a JSON Lines input. Each line's bytes go to the
 * component, which says whether it is blank, malformed or a call, and what to
 * print: one crossing per line, and the same bytes in every runtime.
 */
async function check(engine, context, path) {
  const lines = byteLines(await readBytes(path ?? '-'));
  const actions = [];
  const counts = { allow: 0, confirm: 0, deny: 0 };
  let malformed = 0;
  const out = [];
  lines.forEach((bytes, index) => {
    const checked = context === null ? engine.checkLine(index + 1, bytes) : engine.checkLineIn(index + 1, bytes, context);
    if (checked === null) return;
    out.push(`${checked.output}\n`);
    if (checked.action === null) {
      malformed += 1;
      return;
    }
    counts[checked.action] += 1;
    actions.push(checked.action);
  });
  await write(out.join(''));
  process.stderr.write(
    `toolgate: ${counts.allow + counts.confirm + counts.deny} calls: ${counts.allow} allow, ` +
      `${counts.confirm} confirm, ${counts.deny} deny; ${malformed} malformed lines\n`,
  );
  return malformed > 0 ? EXIT.MALFORMED : exitFor(actions);
}

/**
 * Answers one hook event from standard input, always in the agent's shape:
 * when no engine can be made (a missing or refused configuration) or the
 * policy faults, the component's `hook-unconfigured` answers "ask" with the
 * error, exit 0, so the agent asks a person instead of blocking every tool
 * (exit 2) or running it on its own permissions. Only an unknown format is a
 * usage error.
 */
async function hook(policy, configPath, format) {
  let answer;
  try {
    let event = null;
    let failed = null;
    try {
      event = await readBytes('-');
    } catch (e) {
      failed = errorText(e);
    }
    let engine = null;
    if (failed === null) {
      try {
        engine = await engineFor(policy, configPath);
      } catch (e) {
        failed = errorText(e);
      }
    }
    if (engine !== null) {
      try {
        answer = engine.hook(format, event);
      } catch (e) {
        if (e instanceof RejectedError) throw e;
        failed = errorText(e);
      }
    }
    if (failed !== null) answer = policy.hookUnconfigured(format, failed);
  } catch (e) {
    if (e instanceof RejectedError) {
      process.stderr.write(fill(grammar.errors.report, { message: e.message }));
      return EXIT.USAGE;
    }
    process.stderr.write(`toolgate: error: ${errorText(e)}\n`);
    return EXIT.USAGE;
  }
  if (answer.error !== null) process.stderr.write(`${answer.error}\n`);
  try {
    await write(`${answer.output}\n`);
  } catch {
    // A closed pipe leaves the agent without an answer; there is no one left to tell.
  }
  return answer.exit;
}

async function load(globals) {
  const source = globals.component === null ? undefined : pathToFileURL(globals.component);
  return loadPolicy(source);
}

/**
 * `exec`: the Rust binary named by TOOLGATE_BIN runs it (the confinement
 * is built there); without one, a clear error and nothing runs.
 */
function execThroughRust(argv) {
  const bin = process.env.TOOLGATE_BIN;
  if (!bin) {
    throw new ToolgateError(
      "'exec' runs commands confined, which only the Rust CLI does: install the Rust toolgate binary and set TOOLGATE_BIN to its path",
    );
  }
  const r = spawnSync(bin, argv, { stdio: 'inherit' });
  if (r.error) throw new ToolgateError(`'exec': cannot run TOOLGATE_BIN (${bin}): ${r.error.message}`);
  return r.status ?? 128 + (osConstants.signals[r.signal] ?? 0);
}

async function run(argv) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(fill(grammar.errors.report, { message: e.message }));
      return EXIT.USAGE;
    }
    throw e;
  }
  if (opts.help) {
    await write(helpText());
    return EXIT.OK;
  }
  if (opts.command === 'exec') {
    // The confinement is the Rust binary's (bubblewrap, seccomp, cgroups):
    // run it when TOOLGATE_BIN names it, never anything unconfined here.
    return execThroughRust(argv);
  }
  const policy = await load(opts.globals);
  if (opts.version) {
    await write(`toolgate ${policy.version()}\n`);
    return EXIT.OK;
  }
  if (!runsHere(opts.spec, 'js')) {
    throw new ToolgateError(`'${opts.command}' is in the Rust CLI only`);
  }
  switch (opts.command) {
    case 'assess': {
      const engine = await engineFor(policy, opts.value('--config'));
      const context = await contextText(engine, opts);
      const [tool, argsJson = '{}'] = opts.operands;
      const args = argsJson === '-' ? await readText('-') : argsJson;
      const decision = context === null ? engine.assess(tool, args) : engine.assess(tool, args, context);
      if (decision.findings.some((f) => f.code === 'args.invalid')) {
        process.stderr.write(
          'toolgate: note: ARGS_JSON is not a JSON object; the policy answers confirm, as it would for a model\'s malformed arguments\n',
        );
      }
      await write(opts.flag('--json') ? `${decisionJson(decision)}\n` : render(decision));
      return exitFor([decision.action]);
    }
    case 'check': {
      const engine = await engineFor(policy, opts.value('--config'));
      return check(engine, await contextText(engine, opts), opts.operands[0]);
    }
    case 'discover': {
      const limit = opts.value('--limit') === null ? 0 : wholeNumber(opts.value('--limit'), '--limit', 0xffffffff);
      const engine = await engineFor(policy, opts.value('--config'));
      const found = engine.discover(opts.operands[0], { category: opts.value('--category') ?? undefined, limit });
      await write(
        found
          .map((c) =>
            jsonLine({
              name: c.name,
              display_name: c.displayName,
              description: c.description,
              category: c.category,
              risk_level: c.riskLevel,
              score: c.score,
              matched: c.matched,
            }),
          )
          .map((line) => `${line}\n`)
          .join(''),
      );
      return EXIT.OK;
    }
    case 'tool-prompt': {
      const engine = await engineFor(policy, opts.value('--config'));
      const text = engine.toolPrompt(opts.operands, opts.value('--lang') ?? 'en');
      await write(text.endsWith('\n') ? text : `${text}\n`);
      return EXIT.OK;
    }
    case 'build-request': {
      const now = opts.value('--now') === null ? Date.now() : wholeNumber(opts.value('--now'), '--now', MAX_NOW_MS);
      const engine = await engineFor(policy, opts.value('--config'));
      const context = await contextText(engine, opts);
      const [tool, argsJson = '{}'] = opts.operands;
      const args = argsJson === '-' ? await readText('-') : argsJson;
      let request;
      try {
        request = engine.buildRequest(tool, engine.completeArgs(tool, args, context ?? '', now));
      } catch (e) {
        if (e instanceof RequestError) throw new ToolgateError(`no request for ${printable(tool)}: ${findingsText(e.findings)}`);
        throw e;
      }
      await write(`${jsonLine({ method: request.method, path: request.path, query: request.query, url: request.url, body: request.body })}\n`);
      return EXIT.OK;
    }
    case 'read-response': {
      const given = opts.value('--status');
      let status = 200;
      if (given !== null) {
        status = /^[0-9]+$/.test(given) ? Number(given) : NaN;
        if (!(status >= 100 && status <= 599)) throw new ToolgateError(`--status ${printable(given)}: give an HTTP status code from 100 to 599`);
      }
      const engine = await engineFor(policy, opts.value('--config'));
      const [tool, file] = opts.operands;
      const body = await readText(file ?? '-');
      const read = engine.readToolResponse(tool, status, body);
      if (!read.ok) throw new ToolgateError(`the response is an error: ${read.error}`);
      await write(`${read.result}\n`);
      return EXIT.OK;
    }
    case 'augment': {
      const engine = await engineFor(policy, opts.value('--config'));
      const tools = await readText(opts.operands[0] ?? '-');
      let augmented;
      try {
        augmented = engine.augmentTools(tools, opts.value('--format') ?? undefined);
      } catch (e) {
        if (e instanceof PolicyFaultError) throw e;
        throw new ToolgateError(e.message);
      }
      await write(`${augmented.tools}\n`);
      for (const note of augmented.notes) process.stderr.write(`toolgate: note: ${note}\n`);
      return EXIT.OK;
    }
    case 'hook':
      return hook(policy, opts.value('--config'), opts.operands[0]);
    case 'guidance':
      await write(policy.guidance(opts.value('--lang') ?? 'en'));
      return EXIT.OK;
    case 'import-openapi': {
      const spec = await specJson(await readText(opts.operands[0] ?? '-'));
      const options = { only: list(opts.value('--only')), exclude: list(opts.value('--exclude')), category: opts.value('--category') ?? undefined };
      const text = policy.importOpenapiJson(spec, JSON.stringify(options));
      const imported = JSON.parse(text);
      // The component's text of {tools, definitions}, laid out as the Rust CLI
      // does, without a parse that could reorder keys or rewrite numbers.
      const cut = text.lastIndexOf(',"summary":[');
      await write(`${prettyJson(`${text.slice(0, cut)}}`)}\n`);
      process.stderr.write(imported.report.map((line) => `${line}\n`).join(''));
      return EXIT.OK;
    }
    case 'config explain': {
      const layers = [];
      for (const [layer, path] of [['managed', opts.value('--managed')], ['project', opts.operands[0] ?? null], ['user', opts.value('--user')]]) {
        if (path !== null) layers.push({ layer, config: await readText(path) });
      }
      const merged = JSON.parse(unwrapLayers(policy, layers));
      await write(merged.explain.map((line) => `${line}\n`).join(''));
      return EXIT.OK;
    }
    case 'config check': {
      const engine = await engineFor(policy, opts.operands[0]);
      engine.dispose();
      // What the configuration says against itself (seed 002's own example is
      // such a text) is told, and the check still passes.
      const read = JSON.parse(unwrapLayers(policy, [{ layer: 'project', config: await readText(opts.operands[0]) }]));
      await write(read.explain.filter((line) => line.startsWith('warning: ')).map((line) => `${line}\n`).join(''));
      await write('ok\n');
      return EXIT.OK;
    }
    case 'audit verify': {
      const log = await readText(opts.operands[0]);
      const keyFile = opts.value('--key-file');
      const headKept = opts.value('--head');
      try {
        const { records, head } =
          keyFile === null ? policy.verifyAudit(log) : policy.verifyAuditKeyed(log, await readKey(keyFile));
        if (headKept !== null && !log.split('\n').some((line) => lineHash(line) === headKept)) {
          await write(`broken: the head ${printable(headKept)} kept elsewhere is not in the log: it was cut or rewritten\n`);
          return EXIT.BROKEN;
        }
        await write(`ok: ${records} records, head ${head}\n`);
        // Whether the chain is keyed, on standard error: what a verification proves depends on it.
        process.stderr.write(
          keyFile === null
            ? 'toolgate: the chain was checked unkeyed: anyone who can write the log can erase a record and recompute every hash after it; a gate with a key keys its chain with it (verify with --key-file)\n'
            : 'toolgate: the chain is keyed: every hash is an HMAC under the key file, so nobody without it can rewrite the log and recompute the chain\n',
        );
        return EXIT.OK;
      } catch (e) {
        if (!(e instanceof AuditBrokenError)) throw e;
        await write(`broken: ${e.message}\n`);
        return EXIT.BROKEN;
      }
    }
    case 'grants list': {
      const gate = await grantsGate(policy, opts);
      let refused = false;
      try {
        for (const listed of await gate.grants()) {
          if (listed.ok) await write(`{"id":${jsonLine(listed.id)},"grant":${jsonLine(listed.grant)}}\n`);
          else {
            refused = true;
            await write(`{"id":${JSON.stringify(listed.id)},"error":${JSON.stringify(listed.error)}}\n`);
          }
        }
      } finally {
        gate.dispose?.();
      }
      return refused ? EXIT.BROKEN : EXIT.OK;
    }
    case 'grants revoke': {
      const gate = await grantsGate(policy, opts);
      const [dir, id] = opts.operands;
      try {
        if (!(await gate.revoke(id))) throw new ToolgateError(`no grant \`${printable(id)}\` in ${dir}`);
      } finally {
        gate.dispose?.();
      }
      await write(`revoked ${printable(id)}\n`);
      return EXIT.OK;
    }
    default:
      throw new ToolgateError(`'${opts.command}' is not implemented`);
  }
}

/** An error's text for standard error, worded as in the Rust CLI. */
function errorText(e) {
  if (e instanceof PolicyFaultError) return `the policy faulted: ${e.message}`;
  if (e instanceof ToolgateError || e instanceof RejectedError) return e.message;
  return `internal error: ${e instanceof Error ? e.message : String(e)}`;
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    if (e && e.code === 'EPIPE') {
      process.exitCode = EXIT.OK;
      return;
    }
    process.stderr.write(`toolgate: error: ${errorText(e)}\n`);
    process.exitCode = EXIT.ERROR;
  },
);
