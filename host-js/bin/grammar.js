// The command line's parsing and help, derived from the one declaration every
// CLI reads: `shapes/cli.json`, which the package's build copies to
// `gen/cli.json`. The rules (the order of the checks, how a synopsis is laid
// out) are those of `host-rs/src/cli/args.rs`, written out in its module
// documentation; test/cli.test.js runs this CLI and the Rust one over a table
// of argument lists and compares every byte.

import { readFileSync } from 'node:fs';

/** The grammar (`shapes/cli.json`, as the build copied it). */
export const grammar = JSON.parse(readFileSync(new URL('../gen/cli.json', import.meta.url), 'utf8'));

/** The exit codes by name (`USAGE`: 2). */
export const EXIT = Object.fromEntries(grammar.exits.map((e) => [e.name, e.code]));

export class UsageError extends Error {}

/** `text` with control characters written as `\u{…}`, for a terminal. */
export function printable(text) {
  return text.replace(/\p{Cc}/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
}

/** `template` with each `{name}` replaced by its value, in one pass. */
export function fill(template, holes) {
  return template.replace(/\{(\w+)\}/g, (hole, name) => (Object.hasOwn(holes, name) ? holes[name] : hole));
}

const usage = (template, holes = {}) => new UsageError(fill(grammar.errors[template], holes));

/** How an option is shown in a synopsis and in messages: `--config FILE`. */
function display(option) {
  return option.value === undefined ? option.name : `${option.name} ${option.value}`;
}

/** Words laid out after `first`, each line at most `width` characters, continued after `indent`. */
function wrap(words, first, indent, width) {
  const lines = [];
  let line = first;
  let fresh = true;
  for (const word of words) {
    if (!fresh && [...line].length + 1 + [...word].length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line += (fresh ? '' : ' ') + word;
    }
    fresh = false;
  }
  lines.push(line);
  return lines.map((l) => `${l}\n`).join('');
}

/** A command's synopsis, as groups that stay on one line (see args.rs). */
function synopsis(command) {
  const options = command.options ?? [];
  const oneOf = command.one_of ?? [];
  const groups = [];
  for (const option of options) {
    if (option.requires !== undefined && options.some((o) => o.name === option.requires)) continue;
    const group = oneOf.find((g) => g.includes(option.name));
    if (group !== undefined) {
      if (group[0] === option.name) {
        const shown = group.map((name) => options.find((o) => o.name === name)).filter(Boolean).map(display);
        groups.push(`(${shown.join(' | ')})`);
      }
      continue;
    }
    let inner = display(option);
    for (const dependent of options.filter((o) => o.requires === option.name)) inner += ` [${display(dependent)}]`;
    groups.push(option.required ? inner : `[${inner}]`);
  }
  if (command.dashes) groups.push('--');
  groups.push(...(command.operands ?? []));
  groups.push(...(command.optional ?? []).map((o) => `[${o}]`));
  return groups;
}

/** The help text, laid out from the grammar. */
export function helpText() {
  const { width } = grammar;
  let out = `${grammar.about}\n\n${grammar.usage}\n\nCommands:\n`;
  for (const command of grammar.commands) {
    out += wrap([command.name, ...synopsis(command)], '  ', ' '.repeat(12), width);
    let text = command.help;
    if (command.hosts?.length === 1 && Object.hasOwn(grammar.hosts, command.hosts[0])) {
      text += ` (${grammar.hosts[command.hosts[0]]} only)`;
    }
    out += wrap(text.split(' '), ' '.repeat(10), ' '.repeat(10), width);
  }
  out += '\nOptions:\n';
  for (const option of grammar.options) {
    const left = option.short === undefined ? display(option) : `${option.short}, ${display(option)}`;
    out += wrap((option.help ?? '').split(' '), `  ${left.padEnd(18)}`, ' '.repeat(20), width);
  }
  out += `\n${grammar.notes.map((line) => `${line}\n`).join('')}\nExit codes:\n`;
  for (const exit of grammar.exits) out += `  ${String(exit.code).padEnd(4)}${exit.help}\n`;
  return out;
}

/** The command the first positional words name, and how many words it took. */
function command(positional) {
  let parent = '';
  for (const [index, word] of positional.entries()) {
    const candidate = parent === '' ? word : `${parent} ${word}`;
    // A word is one word: 'config check' as one argument names nothing.
    if (!word.includes(' ')) {
      const found = grammar.commands.find((c) => c.name === candidate);
      if (found !== undefined) return [found, index + 1];
      if (grammar.commands.some((c) => c.name.startsWith(`${candidate} `))) {
        parent = candidate;
        continue;
      }
    }
    throw usage('unknown_command', { command: parent === '' ? printable(word) : `${parent} ${printable(word)}` });
  }
  if (parent === '') throw usage('no_command');
  const subs = [];
  for (const { name } of grammar.commands) {
    if (!name.startsWith(`${parent} `)) continue;
    const sub = name.slice(parent.length + 1).split(' ')[0];
    if (!subs.includes(sub)) subs.push(sub);
  }
  throw usage('needs_subcommand', { command: parent, choices: subs.join(' or ') });
}

/**
 * Reads the arguments after the program's name (the rules are args.rs's).
 * Returns `{ help }`, `{ version, globals }` or `{ globals, command, spec,
 * operands, value(name), flag(name) }`; throws a UsageError.
 */
export function parseArgs(argv) {
  argv.forEach((arg, index) => {
    if (arg.includes('\ufffd')) throw usage('not_utf8', { index: String(index + 1) });
  });
  const global = grammar.options;
  const known = new Map();
  for (const option of [...global, ...grammar.commands.flatMap((c) => c.options ?? [])]) {
    if (option.action === undefined && !known.has(option.name)) known.set(option.name, option);
  }
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
    const action = global.find((o) => o.action !== undefined && (o.name === arg || o.short === arg));
    if (action !== undefined) {
      if (action.action === 'help') return { help: true };
      if (version) throw usage('given_twice', { name: action.name });
      version = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const [name, inline] = arg.startsWith('--') && eq !== -1 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, null];
    const option = known.get(name);
    if (option === undefined) throw usage('unknown_option', { name: printable(name) });
    let value = null;
    if (option.value !== undefined) {
      value = inline ?? (i + 1 < argv.length ? argv[++i] : null);
      if (value === null || value === '') throw usage('needs_value', { name });
    } else if (inline !== null) {
      throw usage('takes_no_value', { name });
    }
    if (given.has(name)) throw usage('given_twice', { name });
    given.set(name, value);
  }
  const globals = { component: given.get('--component') ?? null, noCache: given.has('--no-cache') };
  if (version) return { version: true, globals };
  const [spec, words] = command(positional);
  const options = spec.options ?? [];
  const own = (name) => options.find((o) => o.name === name);
  for (const name of given.keys()) {
    if (!global.some((o) => o.name === name) && own(name) === undefined) {
      throw usage('not_applicable', { name, command: spec.name });
    }
  }
  const operands = positional.slice(words);
  const required = spec.operands ?? [];
  if (operands.length < required.length) throw usage('needs', { subject: spec.name, what: required[operands.length] });
  const most = required.length + (spec.optional ?? []).length;
  if (!spec.variadic && operands.length > most) throw usage('unexpected', { argument: printable(operands[most]) });
  for (const option of options) {
    if (option.required && !given.has(option.name)) throw usage('needs', { subject: spec.name, what: display(option) });
  }
  for (const group of spec.one_of ?? []) {
    const choices = group.map(own).filter(Boolean).map(display).join(' or ');
    const count = group.filter((name) => given.has(name)).length;
    if (count > 1) throw usage('not_both', { subject: spec.name, choices });
    if (count === 0) throw usage('needs', { subject: spec.name, what: choices });
  }
  for (const option of options) {
    const needed = option.requires === undefined ? undefined : own(option.requires);
    if (needed !== undefined && given.has(option.name) && !given.has(needed.name)) {
      throw usage('needs', { subject: option.name, what: display(needed) });
    }
  }
  return {
    globals,
    command: spec.name,
    spec,
    operands,
    /** An option's value, or null when not given. */
    value: (name) => given.get(name) ?? null,
    /** Whether an option was given. */
    flag: (name) => given.has(name),
  };
}

/** Whether this CLI runs a command (a command of other hosts only is refused). */
export function runsHere(spec, host) {
  return spec.hosts === undefined || spec.hosts.includes(host);
}
