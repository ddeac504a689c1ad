#!/usr/bin/env node
// `toolgate` for Node: the same help, usage errors, output and exit codes as
// the Rust CLI, byte for byte. The arguments follow one specification, written
// down in `host-rs/src/cli/args.rs` (the README's "Command line" section sums
// it up); `check`'s lines are read and formatted by the component; and
// test/cli.test.js runs both CLIs over a table of argument lists and inputs.

import { readFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { pathToFileURL } from 'node:url';
import { loadPolicy, decisionJson, RejectedError, ToolgateError, AuditBrokenError, PolicyFaultError } from '../src/index.js';

const EXIT = { OK: 0, ERROR: 1, USAGE: 2, MALFORMED: 3, BROKEN: 4, CONFIRM: 10, DENY: 11 };

/** The help text, identical in the Rust CLI. */
const HELP = `toolgate: one risk policy for every LLM tool call: allow, confirm or deny, with reasons.

Usage: toolgate [OPTIONS] COMMAND [ARGS]

Commands:
  assess [--config FILE] [--json] TOOL [ARGS_JSON]
          Decide one tool call. ARGS_JSON is the call's arguments exactly as the
          model sent them ({} when not given; - reads them from standard input)
  check [--config FILE] [FILE|-]
          Decide every call of a JSON Lines file (standard input when not given):
          one {"tool": …, "args": …} a line, or a tool call in any supported
          format (OpenAI, Anthropic, MCP, Gemini). One decision (or error object)
          a line, in order; a summary on standard error
  augment [--config FILE] [--format FORMAT] [FILE|-]
          Add the optional risk_level parameter to tool definitions (FORMAT:
          openai-chat, openai-responses, anthropic, mcp, gemini; recognised per
          tool when not given); tools left alone are listed on standard error
  hook [--config FILE] FORMAT
          Answer one coding agent's before-tool hook event, read from standard
          input, in that agent's output shape (FORMAT: claude-code, gemini-cli):
          allow, ask or deny with the summary as the reason, exit 0; an event
          that cannot be read, or a tool with no mapping, is answered ask. Exit
          2 (the agents block the tool) when no answer can be made
  exec [--config FILE] [--json] [--confine-only] [--writable] -- COMMAND_LINE
          Decide a command line as execute_command; if allowed, run it with bash
          inside the confinement (docs/confinement.md), passing its output and
          exit status through; confirm and deny exit as assess does and nothing
          runs. --confine-only runs it confined without deciding, --writable
          (with it) with an approved command's rights; --json prints one result
          object. What the confinement stopped goes to standard error (Rust CLI
          only)
  guidance [--lang en|zh]
          Print the prompt guidance that tells the model how to rate its calls
  audit verify [--key-file FILE] [--head HASH] FILE
          Verify a gate's hash-chained audit log: the record count and head hash,
          or the first broken line (exit 4); --key-file for a keyed chain, --head
          for the head hash kept elsewhere
  import-openapi [--only LIST] [--exclude LIST] [--category NAME] [FILE|-]
          Registry entries and tool definitions from an OpenAPI 3 or Swagger 2
          document, JSON or YAML: the tools and definitions as JSON, a summary
          on standard error. LIST: tags or operation ids, comma-separated
  config check FILE
          Check a configuration file, JSON or TOML (read by its content)
  config explain [--managed FILE] [--user FILE] [FILE]
          Merge the managed, project (FILE) and user layers and print each
          effective setting and rule with the layer it came from
  approvals list (--key-file FILE | --unsigned) DIR
          List the pending approvals of a checkpoint directory (Rust CLI only)
  grants list --key-file FILE DIR
          List the grants (approvals given "always") kept in a checkpoint
          directory; a forged, unsigned or expired one is listed with why (exit 4)
  grants revoke --key-file FILE [--audit FILE [--audit-key-file FILE]] DIR ID
          Revoke a grant: no later call is decided with it; --audit appends the
          revocation's record to that audit log (--audit-key-file: a keyed chain)
  mcp-proxy [--config FILE] [--name SERVER] [--augment] [--audit FILE]
            [--pins FILE] -- COMMAND [ARGS...]
          Run an MCP server over stdio with the policy in between: tools/call
          allowed, denied, or confirmed through the client's elicitation; tool
          definitions pinned; --augment adds risk_level to the tools' schemas.
          Audit log and pins file by default in $XDG_STATE_HOME/toolgate
          (~/.local/state/toolgate) (Rust CLI only)
  mcp pins list [--pins FILE]
          List the pinned MCP tools, one JSON object a line; a changed
          definition waits for approval (Rust CLI only)
  mcp pins approve [--pins FILE] SERVER TOOL
          Approve the changed definition of a pinned tool (Rust CLI only)

Options:
  --component FILE  Load this policy component instead of the embedded one
  --no-cache        Compile the component now instead of using the cache of
                    compiled components (the JavaScript CLI keeps none)
  -h, --help        Print this help
  -V, --version     Print the policy's version

Options may stand anywhere before --; a value follows its option or is joined
by = (--config=FILE) and must not be empty; each option may be given once.
After --, every argument is an operand (a TOOL or FILE that starts with -).
Arguments must be UTF-8 and must not hold U+FFFD.

Exit codes:
  0   every call allowed (or the command succeeded)
  1   error: unreadable file or configuration, policy fault
  2   usage error
  3   check: some input lines were malformed (see the error objects in the output)
  4   audit verify, approvals list, grants list: a record failed verification
  10  at least one call needs confirmation, none denied
  11  at least one call denied
`;

class UsageError extends Error {}

/** Options valid with every command. */
const GLOBAL = ['--component', '--no-cache'];

/** Every option, and whether it takes a value. */
const OPTIONS = new Map([
  ['--component', true],
  ['--no-cache', false],
  ['--config', true],
  ['--json', false],
  ['--format', true],
  ['--lang', true],
  ['--key-file', true],
  ['--head', true],
  ['--unsigned', false],
  ['--only', true],
  ['--exclude', true],
  ['--category', true],
  ['--audit', true],
  ['--audit-key-file', true],
  ['--managed', true],
  ['--user', true],
  ['--name', true],
  ['--augment', false],
  ['--pins', true],
  ['--confine-only', false],
  ['--writable', false],
]);

/** Each command: its options, required and optional operands. */
const SHAPES = {
  assess: { options: ['--config', '--json'], required: ['TOOL'], optional: ['ARGS_JSON'] },
  check: { options: ['--config'], required: [], optional: ['FILE'] },
  augment: { options: ['--config', '--format'], required: [], optional: ['FILE'] },
  hook: { options: ['--config'], required: ['FORMAT'], optional: [] },
  guidance: { options: ['--lang'], required: [], optional: [] },
  'import-openapi': { options: ['--only', '--exclude', '--category'], required: [], optional: ['FILE'] },
  'config check': { options: [], required: ['FILE'], optional: [] },
  'config explain': { options: ['--managed', '--user'], required: [], optional: ['FILE'] },
  'audit verify': { options: ['--key-file', '--head'], required: ['FILE'], optional: [] },
  'approvals list': { options: ['--key-file', '--unsigned'], required: ['DIR'], optional: [] },
  'grants list': { options: ['--key-file'], required: ['DIR'], optional: [] },
  'grants revoke': { options: ['--key-file', '--audit', '--audit-key-file'], required: ['DIR', 'ID'], optional: [] },
  // `mcp-proxy`'s operands after COMMAND are the server's arguments (`rest`).
  'mcp-proxy': { options: ['--config', '--name', '--augment', '--audit', '--pins'], required: ['COMMAND'], optional: [], rest: true },
  'mcp pins list': { options: ['--pins'], required: [], optional: [] },
  // `exec`'s operands after `--` are the command line's words (`rest`).
  exec: { options: ['--config', '--json', '--confine-only', '--writable'], required: ['COMMAND_LINE'], optional: [], rest: true },
  'mcp pins approve': { options: ['--pins'], required: ['SERVER', 'TOOL'], optional: [] },
};

/** The parent commands and their one subcommand. */
const NESTED = { audit: 'verify', approvals: 'list' };

/** The commands only the Rust CLI has (its checkpoint directory). */
const RUST_ONLY = new Set(['approvals list', 'mcp-proxy', 'mcp pins list', 'mcp pins approve']);
/** The parent commands with several subcommands, and how the usage error names them. */
const NESTED_MANY = {
  config: { subs: ['check', 'explain'], named: 'check or explain' },
  grants: { subs: ['list', 'revoke'], named: 'list or revoke' },
};


/** `text` with control characters written as `\u{…}`, for a terminal. */
function printable(text) {
  return text.replace(/\p{Cc}/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
}

/** Reads the arguments after the program's name (see the specification above). */
function parseArgs(argv) {
  argv.forEach((arg, index) => {
    if (arg.includes('\ufffd')) throw new UsageError(`argument ${index + 1} is not valid UTF-8 or holds U+FFFD`);
  });
  const given = new Map();
  const positional = [];
  let version = false;
  let ended = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (ended || arg === '-' || !arg.startsWith('-')) {
      positional.push(arg);
      continue;
    }
    if (arg === '--') {
      ended = true;
      continue;
    }
    if (arg === '-h' || arg === '--help') return { help: true };
    if (arg === '-V' || arg === '--version') {
      if (version) throw new UsageError("option '--version' given more than once");
      version = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const [name, inline] = arg.startsWith('--') && eq !== -1 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, null];
    if (!OPTIONS.has(name)) throw new UsageError(`unknown option '${printable(name)}'`);
    let value = null;
    if (OPTIONS.get(name)) {
      value = inline ?? (i + 1 < argv.length ? argv[++i] : null);
      if (value === null || value === '') throw new UsageError(`option '${name}' needs a value`);
    } else if (inline !== null) {
      throw new UsageError(`option '${name}' takes no value`);
    }
    if (given.has(name)) throw new UsageError(`option '${name}' given more than once`);
    given.set(name, value);
  }
  const globals = { component: given.get('--component') ?? null, noCache: given.has('--no-cache') };
  if (version) return { version: true, globals };
  if (positional.length === 0) throw new UsageError('a command is required');
  let command = positional[0];
  let words = 1;
  if (Object.hasOwn(NESTED, command)) {
    const sub = NESTED[command];
    if (positional.length < 2) throw new UsageError(`'${command}' needs a subcommand: ${sub}`);
    if (positional[1] !== sub) throw new UsageError(`unknown command '${command} ${printable(positional[1])}'`);
    command = `${command} ${sub}`;
    words = 2;
  } else if (Object.hasOwn(NESTED_MANY, command)) {
    const { subs, named } = NESTED_MANY[command];
    if (positional.length < 2) throw new UsageError(`'${command}' needs a subcommand: ${named}`);
    if (!subs.includes(positional[1])) throw new UsageError(`unknown command '${command} ${printable(positional[1])}'`);
    command = `${command} ${positional[1]}`;
    words = 2;
  } else if (command === 'mcp') {
    if (positional.length < 2) throw new UsageError("'mcp' needs a subcommand: pins");
    if (positional[1] !== 'pins') throw new UsageError(`unknown command 'mcp ${printable(positional[1])}'`);
    if (positional.length < 3) throw new UsageError("'mcp pins' needs a subcommand: list or approve");
    if (!['list', 'approve'].includes(positional[2])) throw new UsageError(`unknown command 'mcp pins ${printable(positional[2])}'`);
    command = `mcp pins ${positional[2]}`;
    words = 3;
  } else if (!Object.hasOwn(SHAPES, command)) {
    throw new UsageError(`unknown command '${printable(command)}'`);
  }
  const shape = SHAPES[command];
  for (const name of given.keys()) {
    if (!GLOBAL.includes(name) && !shape.options.includes(name)) {
      throw new UsageError(`option '${name}' does not apply to '${command}'`);
    }
  }
  const operands = positional.slice(words);
  if (operands.length < shape.required.length) {
    throw new UsageError(`'${command}' needs ${shape.required[operands.length]}`);
  }
  const max = shape.required.length + shape.optional.length;
  if (!shape.rest && operands.length > max) throw new UsageError(`unexpected argument '${printable(operands[max])}'`);
  if (command === 'approvals list') {
    if (given.has('--key-file') && given.has('--unsigned')) {
      throw new UsageError("'approvals list' takes --key-file FILE or --unsigned, not both");
    }
    if (!given.has('--key-file') && !given.has('--unsigned')) {
      throw new UsageError("'approvals list' needs --key-file FILE or --unsigned");
    }
  }
  if ((command === 'grants list' || command === 'grants revoke') && !given.has('--key-file')) {
    // Stored grants are always signed: no key, no grants.
    throw new UsageError(`'${command}' needs --key-file FILE`);
  }
  if (command === 'exec' && given.has('--writable') && !given.has('--confine-only')) {
    throw new UsageError("'--writable' needs --confine-only");
  }
  if (given.has('--audit-key-file') && !given.has('--audit')) {
    throw new UsageError("'--audit-key-file' needs --audit FILE");
  }
  return {
    globals,
    command,
    operands,
    audit: given.get('--audit') ?? null,
    auditKeyFile: given.get('--audit-key-file') ?? null,
    managed: given.get('--managed') ?? null,
    user: given.get('--user') ?? null,
    config: given.get('--config') ?? null,
    json: given.has('--json'),
    format: given.get('--format') ?? null,
    lang: given.get('--lang') ?? 'en',
    keyFile: given.get('--key-file') ?? null,
    head: given.get('--head') ?? null,
    only: list(given.get('--only')),
    exclude: list(given.get('--exclude')),
    category: given.get('--category') ?? null,
  };
}

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
  const key = await readKey(opts.keyFile);
  const audit = opts.audit === null ? [] : [new JsonlSink(opts.audit)];
  const auditKey = opts.auditKeyFile === null ? undefined : await readKey(opts.auditKeyFile);
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
async function check(engine, path) {
  const lines = byteLines(await readBytes(path ?? '-'));
  const actions = [];
  const counts = { allow: 0, confirm: 0, deny: 0 };
  let malformed = 0;
  const out = [];
  lines.forEach((bytes, index) => {
    const checked = engine.checkLine(index + 1, bytes);
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
 * Answers one hook event from standard input. The component makes the
 * answer; this prints it. When no answer can be made (an unreadable
 * configuration, a policy fault) the exit is 2, which both agents read as
 * "block the tool": never a silent pass to the agent's own permissions.
 */
async function hook(policy, configPath, format) {
  let answer;
  try {
    const engine = await engineFor(policy, configPath);
    const event = await readBytes('-');
    try {
      answer = engine.hook(format, event);
    } catch (e) {
      if (!(e instanceof RejectedError)) throw e;
      process.stderr.write(`toolgate: usage error: ${e.message}\nTry 'toolgate --help'.\n`);
      return EXIT.USAGE;
    }
  } catch (e) {
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
      process.stderr.write(`toolgate: usage error: ${e.message}\nTry 'toolgate --help'.\n`);
      return EXIT.USAGE;
    }
    throw e;
  }
  if (opts.help) {
    await write(HELP);
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
  if (RUST_ONLY.has(opts.command)) {
    throw new ToolgateError(`'${opts.command}' is in the Rust CLI only`);
  }
  switch (opts.command) {
    case 'assess': {
      const engine = await engineFor(policy, opts.config);
      const [tool, argsJson = '{}'] = opts.operands;
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
      return check(engine, opts.operands[0]);
    }
    case 'augment': {
      const engine = await engineFor(policy, opts.config);
      const tools = await readText(opts.operands[0] ?? '-');
      let augmented;
      try {
        augmented = engine.augmentTools(tools, opts.format ?? undefined);
      } catch (e) {
        if (e instanceof PolicyFaultError) throw e;
        throw new ToolgateError(e.message);
      }
      await write(`${augmented.tools}\n`);
      for (const note of augmented.notes) process.stderr.write(`toolgate: note: ${note}\n`);
      return EXIT.OK;
    }
    case 'hook':
      return hook(policy, opts.config, opts.operands[0]);
    case 'guidance':
      await write(policy.guidance(opts.lang));
      return EXIT.OK;
    case 'import-openapi': {
      const spec = await specJson(await readText(opts.operands[0] ?? '-'));
      const options = { only: opts.only, exclude: opts.exclude, category: opts.category ?? undefined };
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
      for (const [layer, path] of [['managed', opts.managed], ['project', opts.operands[0] ?? null], ['user', opts.user]]) {
        if (path !== null) layers.push({ layer, config: await readText(path) });
      }
      const merged = JSON.parse(unwrapLayers(policy, layers));
      await write(merged.explain.map((line) => `${line}\n`).join(''));
      return EXIT.OK;
    }
    case 'config check': {
      await engineFor(policy, opts.operands[0]);
      await write('ok\n');
      return EXIT.OK;
    }
    case 'audit verify': {
      const log = await readText(opts.operands[0]);
      try {
        const { records, head } =
          opts.keyFile === null ? policy.verifyAudit(log) : policy.verifyAuditKeyed(log, await readKey(opts.keyFile));
        if (opts.head !== null && !log.split('\n').some((line) => lineHash(line) === opts.head)) {
          await write(`broken: the head ${printable(opts.head)} kept elsewhere is not in the log: it was cut or rewritten\n`);
          return EXIT.BROKEN;
        }
        await write(`ok: ${records} records, head ${head}\n`);
        // Whether the chain is keyed, on standard error: what a verification proves depends on it.
        process.stderr.write(
          opts.keyFile === null
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
