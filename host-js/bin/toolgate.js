#!/usr/bin/env node
// `toolgate` for Node: the same commands, output and exit codes as the Rust
// CLI, so the two can be diffed line for line.

import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { loadPolicy, decisionJson, RejectedError, ToolgateError, AuditBrokenError } from '../src/index.js';

const EXIT = { OK: 0, ERROR: 1, USAGE: 2, MALFORMED: 3, BROKEN: 4, CONFIRM: 10, DENY: 11 };

const USAGE = `One risk policy for every LLM tool call: allow, confirm or deny, with reasons.

Usage: toolgate [--component FILE] [--no-cache] <COMMAND>

Commands:
  assess [--config FILE] [--json] TOOL [ARGS_JSON]
          Decide one tool call (ARGS_JSON defaults to {}; - reads standard input)
  check [--config FILE] [FILE|-]
          Decide every call of a JSON Lines file: one {"tool": …, "args": …} a line
          (args an object, or a JSON string as OpenAI sends it), or a tool call
          in any supported format (OpenAI, Anthropic, MCP, Gemini)
  augment [--config FILE] [--format FORMAT] [FILE|-]
          Add the optional risk_level parameter to tool definitions (FORMAT:
          openai-chat, openai-responses, anthropic, mcp, gemini; recognised per
          tool when not given); tools left alone are listed on standard error
  guidance [--lang en|zh]
          Print the prompt guidance for the model
  audit verify [--key-file FILE] [--head HASH] FILE
          Verify a gate's hash-chained audit log (JSON Lines): the record count
          and head hash, or the first broken line (exit 4); with --key-file, a
          keyed chain (every hash an HMAC under the key); with --head, the log
          must still hold the head hash kept elsewhere

Options:
  --component FILE  Load this policy component instead of the shipped one
  --no-cache        Accepted for parity with the Rust CLI (nothing is cached here)
  -h, --help        Print help
  -V, --version     Print version

Exit codes:
  0   every call allowed (or the command succeeded)
  1   error: unreadable file or configuration, policy fault
  2   usage error
  3   check: some input lines were malformed (see the error objects in the output)
  4   audit verify: a record failed verification
  10  at least one call needs confirmation, none denied
  11  at least one call denied
`;

class UsageError extends Error {}

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

/** `text` with control characters written as `\\u{…}`, for a terminal. */
function printable(text) {
  return text.replace(/\p{Cc}/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
}

function parseArgs(argv) {
  const opts = { component: null, command: null, config: null, json: false, lang: 'en', format: null, keyFile: null, head: null, positional: [] };
  const takeValue = (i, flag) => {
    if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') return { help: true };
    if (arg === '-V' || arg === '--version') return { version: true };
    if (arg === '--component') opts.component = takeValue(i++, arg);
    else if (arg.startsWith('--component=')) opts.component = arg.slice('--component='.length);
    else if (arg === '--no-cache') continue;
    else if (arg === '--config') opts.config = takeValue(i++, arg);
    else if (arg.startsWith('--config=')) opts.config = arg.slice('--config='.length);
    else if (arg === '--json') opts.json = true;
    else if (arg === '--key-file') opts.keyFile = takeValue(i++, arg);
    else if (arg.startsWith('--key-file=')) opts.keyFile = arg.slice('--key-file='.length);
    else if (arg === '--head') opts.head = takeValue(i++, arg);
    else if (arg.startsWith('--head=')) opts.head = arg.slice('--head='.length);
    else if (arg === '--lang') opts.lang = takeValue(i++, arg);
    else if (arg === '--format') opts.format = takeValue(i++, arg);
    else if (arg.startsWith('--format=')) opts.format = arg.slice('--format='.length);
    else if (arg.startsWith('--lang=')) opts.lang = arg.slice('--lang='.length);
    else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unexpected argument '${arg}'`);
    else if (opts.command === null) opts.command = arg;
    else opts.positional.push(arg);
  }
  const limits = { assess: [1, 2], check: [0, 1], augment: [0, 1], guidance: [0, 0], audit: [2, 2] };
  const limit = limits[opts.command];
  if (!limit) throw new UsageError(opts.command === null ? 'a command is required' : `unknown command '${opts.command}'`);
  const [min, max] = limit;
  if (opts.positional.length < min || opts.positional.length > max) {
    throw new UsageError(`wrong number of arguments for '${opts.command}'`);
  }
  if (opts.command === 'audit' && opts.positional[0] !== 'verify') {
    throw new UsageError(`unknown command 'audit ${opts.positional[0]}'`);
  }
  if ((opts.keyFile !== null || opts.head !== null) && opts.command !== 'audit') {
    throw new UsageError(`unexpected argument '${opts.keyFile !== null ? '--key-file' : '--head'}'`);
  }
  return opts;
}

/** The error of a `check` input line that is not UTF-8 (the same in both CLIs). */
const NOT_UTF8 = 'the line is not valid UTF-8';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function readBytes(path) {
  if (path === undefined || path === null || path === '-') return readStdin();
  try {
    return await readFile(path);
  } catch (e) {
    throw new ToolgateError(`cannot read ${path}: ${e.message}`);
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

/** Splits bytes into lines at '\n', dropping one trailing '\r' per line. */
function byteLines(bytes) {
  const lines = [];
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    let line = bytes.subarray(start, end);
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    lines.push(line);
    start = end + 1;
  }
  // A final newline ends the last line; it does not start another.
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) lines.pop();
  return lines;
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

/** Decides every call of a JSON Lines input; the component reads each line. */
async function check(policy, engine, path) {
  const lines = byteLines(await readBytes(path ?? '-'));
  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const actions = [];
  const counts = { allow: 0, confirm: 0, deny: 0 };
  let malformed = 0;
  let out = '';
  lines.forEach((bytes, index) => {
    let line;
    try {
      line = strict.decode(bytes);
    } catch {
      // Malformed like any other unreadable line: reported, the rest decided.
      malformed += 1;
      out += `${JSON.stringify({ line: index + 1, error: NOT_UTF8 })}\n`;
      return;
    }
    if (line.trim() === '') return;
    let call;
    try {
      call = policy.parseCall(line);
    } catch (e) {
      if (!(e instanceof RejectedError)) throw e;
      malformed += 1;
      out += `${JSON.stringify({ line: index + 1, error: e.message })}\n`;
      return;
    }
    const decision = engine.assess(call.tool, call.args);
    counts[decision.action] += 1;
    actions.push(decision.action);
    out += `${decisionJson(decision)}\n`;
  });
  await write(out);
  process.stderr.write(
    `toolgate: ${counts.allow + counts.confirm + counts.deny} calls: ${counts.allow} allow, ` +
      `${counts.confirm} confirm, ${counts.deny} deny; ${malformed} malformed lines\n`,
  );
  return malformed > 0 ? EXIT.MALFORMED : exitFor(actions);
}

async function run(argv) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${e.message}\n\nUsage: toolgate [--component FILE] <assess|check|augment|guidance> …\nFor more information, try '--help'.\n`);
      return EXIT.USAGE;
    }
    throw e;
  }
  if (opts.help) {
    await write(USAGE);
    return EXIT.OK;
  }
  const source = opts.component === null ? undefined : pathToFileURL(opts.component);
  const policy = await loadPolicy(source);
  if (opts.version) {
    await write(`toolgate ${policy.version()}\n`);
    return EXIT.OK;
  }
  switch (opts.command) {
    case 'assess': {
      const engine = await engineFor(policy, opts.config);
      const [tool, argsJson = '{}'] = opts.positional;
      const args = argsJson === '-' ? await readText('-') : argsJson;
      const decision = engine.assess(tool, args);
      if (decision.findings.some((f) => f.code === 'args.invalid')) {
        process.stderr.write(
          'toolgate: note: ARGS_JSON is not a JSON object; the policy answers confirm, as it would for a model\'s malformed arguments\n',
        );
      }
      await write(opts.json ? `${decisionJson(decision)}\n` : render(decision));
      return exitFor([decision.action]);
    }
    case 'check': {
      const engine = await engineFor(policy, opts.config);
      return check(policy, engine, opts.positional[0]);
    }
    case 'augment': {
      const engine = await engineFor(policy, opts.config);
      const tools = await readText(opts.positional[0] ?? '-');
      let augmented;
      try {
        augmented = engine.augmentTools(tools, opts.format ?? undefined);
      } catch (e) {
        throw new ToolgateError(e.message);
      }
      await write(`${augmented.tools}\n`);
      for (const note of augmented.notes) process.stderr.write(`toolgate: note: ${note}\n`);
      return EXIT.OK;
    }
    case 'guidance':
      await write(policy.guidance(opts.lang));
      return EXIT.OK;
    case 'audit': {
      const log = await readText(opts.positional[1]);
      try {
        const { records, head } =
          opts.keyFile === null ? policy.verifyAudit(log) : policy.verifyAuditKeyed(log, await readKey(opts.keyFile));
        if (opts.head !== null && !log.split('\n').some((line) => lineHash(line) === opts.head)) {
          await write(`broken: the head ${printable(opts.head)} kept elsewhere is not in the log: it was cut or rewritten\n`);
          return EXIT.BROKEN;
        }
        await write(`ok: ${records} records, head ${head}\n`);
        return EXIT.OK;
      } catch (e) {
        if (!(e instanceof AuditBrokenError)) throw e;
        await write(`broken: ${e.message}\n`);
        return EXIT.BROKEN;
      }
    }
    default:
      return EXIT.USAGE;
  }
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
    const message = e instanceof ToolgateError || e instanceof RejectedError ? e.message : (e?.stack ?? String(e));
    process.stderr.write(`toolgate: error: ${message}\n`);
    process.exitCode = EXIT.ERROR;
  },
);
