// Node-only stores and sinks for the approval gate: a directory of checkpoint
// files (the same `<id>.json` files the Rust host's DirStore writes, so either
// host resumes the other's pending approvals) and a JSON Lines audit file.
// Import from 'toolgate/node'; the main module stays free of Node built-ins.

import { link, mkdir, readdir, readFile, readlink, rename, rm, open, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { GateError } from './gate.js';
import { idPrefix } from './stores.js';

// SQLite and PostgreSQL: the Rust host's tables, for services (sqlite.js, postgres.js).
export { SqliteStore, SqliteSink } from './sqlite.js';
export { PostgresStore, PostgresSink } from './postgres.js';

const ID = /^[A-Za-z0-9_-]{1,128}$/;

function checkId(id) {
  if (!ID.test(id)) throw new GateError('checkpoint', `checkpoint store: \`${id}\` is not a valid approval id`);
}

/** Checkpoints as `<id>.json` files in a directory, written atomically. */
export class FileStore {
  #dir;
  /** @param {string} dir created on first write */
  constructor(dir) {
    this.#dir = dir;
  }

  get dir() {
    return this.#dir;
  }

  async put(id, checkpoint) {
    checkId(id);
    await mkdir(this.#dir, { recursive: true });
    const tmp = join(this.#dir, `.${id}.${process.pid}.tmp`);
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(checkpoint);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, join(this.#dir, `${id}.json`));
  }

  async remove(id) {
    checkId(id);
    await rm(join(this.#dir, `${id}.json`), { force: true });
  }

  /**
   * Claims `id` once: `<id>.claim` (holding the deadline) written in full to
   * a temporary file, then hard-linked to its name, which the file system
   * grants to exactly one process, in this host or the Rust one. A full disk
   * fails the write before anything is claimed. The file stays as a tombstone.
   */
  async claim(id, deadline) {
    checkId(id);
    await mkdir(this.#dir, { recursive: true });
    const tmp = join(this.#dir, `.${id}.${process.pid}.${idPrefix()}.claim-tmp`);
    try {
      const handle = await open(tmp, 'w');
      try {
        await handle.writeFile(String(deadline));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await link(tmp, join(this.#dir, `${id}.claim`));
      return true;
    } catch (e) {
      if (e.code === 'EEXIST') return false;
      throw e;
    } finally {
      await rm(tmp, { force: true });
    }
  }

  /**
   * Takes back the claim on `id`, whose record was never written (a full
   * log, a holder that died in between): the approval is pending again. The
   * gate calls it only under the audit log's writer lock, after finding no
   * record of the approval.
   */
  async release(id) {
    checkId(id);
    await rm(join(this.#dir, `${id}.claim`), { force: true });
    return true;
  }

  /** Whether `id` was claimed (its tombstone `<id>.claim` is here). */
  async claimed(id) {
    checkId(id);
    return (await stat(join(this.#dir, `${id}.claim`)).catch(() => null)) !== null;
  }

  /** Removes tombstones (`<id>.claim`) past their deadline; returns how many. */
  async sweep(now) {
    let names;
    try {
      names = await readdir(this.#dir);
    } catch (e) {
      if (e.code === 'ENOENT') return 0;
      throw e;
    }
    let removed = 0;
    for (const name of names) {
      const id = name.endsWith('.claim') ? name.slice(0, -'.claim'.length) : null;
      if (id === null || !ID.test(id)) continue;
      // A claim whose deadline cannot be read is kept: it still blocks.
      const deadline = Number.parseInt(await readFile(join(this.#dir, name), 'utf8').catch(() => ''), 10);
      if (Number.isFinite(deadline) && deadline < now) {
        await rm(join(this.#dir, name), { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  async get(id) {
    checkId(id);
    try {
      return await readFile(join(this.#dir, `${id}.json`), 'utf8');
    } catch (e) {
      if (e.code === 'ENOENT') return null;
      throw e;
    }
  }

  async list() {
    let names;
    try {
      names = await readdir(this.#dir);
    } catch (e) {
      if (e.code === 'ENOENT') return [];
      throw e;
    }
    const out = [];
    for (const name of names.sort()) {
      const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : null;
      if (id === null || !ID.test(id)) continue;
      // One removed since the listing (settled by another process) is not listed.
      const text = await readFile(join(this.#dir, name), 'utf8').catch((e) => {
        if (e.code === 'ENOENT') return null;
        throw e;
      });
      if (text !== null) out.push([id, text]);
    }
    return out;
  }
}

/** How much of a log's end is read at first to find its last line. */
const TAIL = 64 * 1024;

/**
 * The last complete line of the first `len` bytes of the open file (without
 * its newline) and the offset just after it, reading only the end: backwards
 * in growing windows until a whole line is in view.
 */
async function tail(handle, len) {
  let window = Math.min(TAIL, len);
  for (;;) {
    const start = len - window;
    const buf = Buffer.alloc(window);
    const { bytesRead } = await handle.read(buf, 0, window, start);
    const view = buf.subarray(0, bytesRead);
    const end = view.lastIndexOf(0x0a);
    if (end < 0) {
      if (start === 0) return { line: null, after: 0 };
      window = Math.min(window * 2, len);
      continue;
    }
    const begin = view.subarray(0, end).lastIndexOf(0x0a);
    if (begin >= 0) return { line: view.subarray(begin + 1, end), after: start + end + 1 };
    if (start === 0) return { line: view.subarray(0, end), after: end + 1 };
    window = Math.min(window * 2, len);
  }
}

/** Whether `bytes` look like a sealed record (a JSON object with a string `hash`). */
function sealed(bytes) {
  try {
    return typeof JSON.parse(bytes.toString('utf8'))?.hash === 'string';
  } catch {
    return false;
  }
}

/**
 * A writer lock older than this, whose holder cannot be checked (another
 * machine, another PID namespace, no `/proc`), was left by a writer that
 * died: taken over.
 */
const LOCK_STALE_MS = 30_000;

/** A process's start time (`/proc/PID/stat` field 22), or null. */
async function startTime(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return null;
  return stat.slice(stat.lastIndexOf(')') + 1).trim().split(/\s+/)[19] ?? null;
}

/** This process's PID namespace (`pid:[…]`), or ''. */
async function pidNamespace() {
  return readlink('/proc/self/ns/pid').catch(() => '');
}

/** This process as a lock's holder: `<pid> <start time> <pid namespace>`. */
async function holder() {
  return `${process.pid} ${(await startTime('self')) ?? ''} ${await pidNamespace()}`;
}

/**
 * Whether the holder a lock names is certainly gone: in this PID namespace,
 * and no process has its id, or the one that has it started at another time.
 * A holder that cannot be checked is not gone.
 */
async function holderGone(named) {
  const [pid, start, ns] = named.split(' ');
  if (!/^\d+$/.test(pid ?? '') || !start || !ns || ns !== (await pidNamespace())) return false;
  const now = await startTime(pid);
  if (now !== null) return now !== start;
  return (await stat(`/proc/${pid}`).catch(() => null)) === null;
}

/**
 * Removes the lock a dead holder left, and only that one: renamed aside first
 * and read again; if another waiter took it over meanwhile (the name now held
 * a live writer's lock), that lock is put back.
 */
async function takeOver(lock, named) {
  const aside = `${lock}.dead-${process.pid}`;
  try {
    await rename(lock, aside);
  } catch {
    return;
  }
  const moved = await readFile(aside, 'utf8').catch(() => '');
  if (moved !== named) await link(aside, lock).catch(() => {});
  await unlink(aside).catch(() => {});
}

/**
 * Runs `f` holding `<path>.lock`, the one writer lock of an audit log that
 * both hosts honour: created exclusively, removed when done. It names its
 * holder (process id, start time, PID namespace), so a writer that died
 * holding it (`kill -9`) is seen to be gone at once and its lock taken over;
 * only a holder that cannot be checked waits out `LOCK_STALE_MS`.
 *
 * @template T
 * @param {string} path
 * @param {() => Promise<T>} f
 * @returns {Promise<T>}
 */
async function withWriterLock(path, f) {
  const lock = `${path}.lock`;
  const started = Date.now();
  const me = await holder();
  // The holder's name written in full to a file of its own, then linked into
  // place: a lock never exists without its holder's name, so a writer killed
  // while taking it leaves nothing the others must wait out.
  // Written afresh at each attempt: the lock's age (its mtime) is the age of
  // the holding, which is what the stale rule reads.
  const own = `${lock}.${process.pid}.${idPrefix()}.tmp`;
  for (let delay = 1; ; delay = Math.min(delay * 2, 50)) {
    try {
      try {
        let named = true;
        await writeFile(own, me).catch(() => {
          named = false;
        });
        if (named) {
          await link(own, lock);
        } else {
          // No room for the name (a full disk): the lock is created bare.
          const handle = await open(lock, 'wx');
          await handle.writeFile(me).catch(() => {});
          await handle.close();
        }
      } finally {
        await rm(own, { force: true });
      }
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const named = await readFile(lock, 'utf8').catch(() => '');
      if (await holderGone(named)) {
        await takeOver(lock, named);
        continue;
      }
      const held = await stat(lock).catch(() => null);
      if (held !== null && Date.now() - held.mtimeMs > LOCK_STALE_MS) {
        await unlink(lock).catch(() => {});
        continue;
      }
      if (Date.now() - started > 2 * LOCK_STALE_MS) {
        throw new Error(`audit sink: cannot lock ${path}: ${lock} is held`);
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  try {
    return await f();
  } finally {
    await unlink(lock).catch(() => {});
  }
}

/**
 * A JSON Lines audit file, appended to and synced line by line. The last line
 * is found by reading the end of the file only. A log found torn on first use
 * (bytes after the last newline, or a last line that is not a sealed record)
 * is repaired: those bytes go to `<file>.torn-<ms>`, the file is cut back to
 * the last sealed record, and `gap()` describes it for the gate to record.
 */
export class JsonlSink {
  #path;
  #gap = null;
  #repaired = null;
  /** @param {string} path created if missing */
  constructor(path) {
    this.#path = path;
  }

  async #repair() {
    this.#repaired ??= (async () => {
      let handle;
      try {
        handle = await open(this.#path, 'r+');
      } catch (e) {
        if (e.code === 'ENOENT') return;
        throw e;
      }
      try {
        const len = (await handle.stat()).size;
        let limit = len;
        let keep = null;
        for (let i = 0; i < 16; i++) {
          const { line, after } = await tail(handle, limit);
          if (line === null) {
            keep = 0;
            break;
          }
          if (sealed(line)) {
            keep = after;
            break;
          }
          limit = Math.max(0, after - line.length - 1);
        }
        if (keep === null || keep >= len) return;
        const torn = Buffer.alloc(len - keep);
        await handle.read(torn, 0, torn.length, keep);
        const aside = `${this.#path}.torn-${Date.now()}`;
        await writeFile(aside, torn);
        await handle.truncate(keep);
        await handle.sync();
        this.#gap = `${torn.length} torn bytes after offset ${keep} were set aside in ${aside}`;
      } finally {
        await handle.close();
      }
    })();
    return this.#repaired;
  }

  async append(line) {
    await mkdir(dirname(this.#path), { recursive: true });
    await this.#repair();
    const handle = await open(this.#path, 'a');
    try {
      const before = (await handle.stat()).size;
      try {
        await handle.writeFile(`${line}\n`);
        await handle.datasync();
      } catch (e) {
        // A partial line must not stay for the next record to glue onto.
        await handle.truncate(before).catch(() => {});
        throw e;
      }
    } finally {
      await handle.close();
    }
  }

  async last() {
    await this.#repair();
    let handle;
    try {
      handle = await open(this.#path, 'r');
    } catch (e) {
      if (e.code === 'ENOENT') return null;
      throw e;
    }
    try {
      const { line } = await tail(handle, (await handle.stat()).size);
      return line === null ? null : line.toString('utf8');
    } finally {
      await handle.close();
    }
  }

  /**
   * Seals and appends one line from the file's own last line (read afresh)
   * while holding the log's writer lock, `<file>.lock` (created exclusively;
   * the Rust sink takes the same lock), so gates and processes writing one log,
   * in either host, never fork its chain.
   *
   * @param {(previous: string | null) => string} seal
   * @returns {Promise<string>}
   */
  async appendSealed(seal) {
    await mkdir(dirname(this.#path), { recursive: true });
    return withWriterLock(this.#path, async () => {
      const line = await seal(await this.last());
      await this.append(line);
      return line;
    });
  }

  /**
   * Whether the log holds a record of approval `approval`'s settlement (a
   * record whose `approval.id` names it), looking back no further than
   * records stamped before `since` (ms). The gate asks under the writer lock,
   * where every claim is made and recorded.
   *
   * @returns {Promise<boolean>}
   */
  async recorded(approval, since = 0) {
    await this.#repair();
    let text;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (e) {
      if (e.code === 'ENOENT') return false;
      throw e;
    }
    const lines = text.split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      if (lines[i] === '') continue;
      let record;
      try {
        record = JSON.parse(lines[i]);
      } catch {
        continue;
      }
      if (record?.approval?.id === approval) return true;
      if (typeof record?.time === 'number' && record.time < since) return false;
    }
    return false;
  }

  /** What was found torn and set aside on first use, or null. */
  async gap() {
    await this.#repair();
    return this.#gap;
  }
}

/** The context a confining executor gives the policy with each call it will run. */
export const CONFINED_CONTEXT = '{"confined":true}';

/**
 * The rights a decision grants a command: `write` (the working tree, /tmp
 * and the home writable) for an approval by a person, a rule or a
 * configured auto-approval; `read` (the tree read-only) for everything
 * else, a proven read included.
 */
export function rightsFor(decision, approved = false) {
  return approved || decision.source === 'rule' || decision.source === 'config' ? 'write' : 'read';
}

/**
 * A command executor for the gate (`gate.run(call, executor)`): runs the
 * call's `command` confined by the Rust binary, `toolgate exec
 * --confine-only --json` (Node has no confinement of its own), found at
 * `bin`, else at TOOLGATE_BIN. Without it the executor throws and nothing
 * runs. Resolves to the JSON text `{"exit_code", "stdout", "stderr",
 * "stopped"}`. Calls it runs should be decided with CONFINED_CONTEXT.
 *
 * @param {{bin?: string, config?: string, rights?: 'read' | 'write', cwd?: string}} [options]
 *   `config`: the configuration file (its `egress` and `exec` settings apply)
 */
export function commandExecutor({ bin = process.env.TOOLGATE_BIN, config, rights = 'read', cwd } = {}) {
  return async (args) => {
    if (!bin) {
      throw new Error(
        'the command executor runs commands confined by the Rust toolgate binary: install it and set TOOLGATE_BIN (or the bin option) to its path',
      );
    }
    const parsed = typeof args === 'string' ? JSON.parse(args) : args;
    const command = Array.isArray(parsed?.command)
      ? parsed.command.map((w) => `'${String(w).replaceAll("'", "'\\''")}'`).join(' ')
      : parsed?.command;
    if (typeof command !== 'string') throw new Error('the arguments have no `command` string');
    const argv = ['exec', '--confine-only', '--json'];
    if (rights === 'write') argv.push('--writable');
    if (config) argv.push('--config', config);
    argv.push('--', command);
    const { code, stdout, stderr } = await new Promise((resolve, reject) => {
      const child = spawn(bin, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      const out = [];
      const err = [];
      child.stdout.on('data', (b) => out.push(b));
      child.stderr.on('data', (b) => err.push(b));
      child.on('error', (e) => reject(new Error(`cannot run the toolgate binary ${bin}: ${e.message}`)));
      child.on('close', (status) => resolve({ code: status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    });
    let result;
    try {
      result = JSON.parse(stdout);
    } catch {
      throw new Error(`toolgate exec did not run the command (exit ${code}): ${stderr.trim()}`);
    }
    return JSON.stringify({
      exit_code: result.exit_code,
      stdout: result.stdout,
      stderr: result.stderr,
      stopped: result.confinement?.stopped ?? [],
    });
  };
}
