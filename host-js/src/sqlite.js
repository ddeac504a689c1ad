// The approval gate's SQLite store and sink for Node: the tables and
// transactions of the Rust host's `SqliteStore` and `SqliteSink`
// (host-rs/src/gate/store.rs, audit.rs) and Python's (host-py's stores.py),
// so gates of any host on one database file share pending approvals, claims,
// grants and one audit chain.
//
// The database is reached through SQLite's own C library, whose Unix file
// locks (POSIX advisory locks, released by the kernel when a holder dies) are
// the ones the Rust and Python hosts take: `node:sqlite` where Node has it
// unflagged (22.13 and later), else the optional dependency `better-sqlite3`
// (the same library compiled into a Node addon). A WebAssembly SQLite cannot
// stand in: its file system layer locks by a convention of its own (a
// `<db>.lock` directory, in node-sqlite3-wasm), which the other hosts'
// `BEGIN IMMEDIATE` never sees, so two hosts would write at once.

import { resolve } from 'node:path';
import { GateError } from './errors.js';
import { checkId } from './stores.js';
import { Serial } from './serial.js';

/** How long a writer waits for another's transaction, as the Rust and Python sinks do. */
const WRITER_WAIT_MS = 30_000;

/** How long one attempt blocks inside SQLite before the wait goes on without blocking Node. */
const BUSY_SLICE_MS = 20;

const STORE_SCHEMA = `CREATE TABLE IF NOT EXISTS toolgate_checkpoints (
    id TEXT PRIMARY KEY NOT NULL,
    checkpoint TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS toolgate_claims (
    id TEXT PRIMARY KEY NOT NULL,
    deadline INTEGER NOT NULL
);`;

const SINK_SCHEMA = `CREATE TABLE IF NOT EXISTS toolgate_audit (
    seq INTEGER PRIMARY KEY,
    line TEXT NOT NULL
);`;

const LAST = 'SELECT line FROM toolgate_audit ORDER BY seq DESC LIMIT 1';

/** The drivers, in the order they are tried. */
export const SQLITE_DRIVERS = ['node:sqlite', 'better-sqlite3'];

/**
 * Opens `path` with `driver` (or the first one this Node has): a
 * synchronous connection with `exec` and `prepare(sql).run/get/all`, which
 * both drivers spell alike.
 */
async function connect(path, driver) {
  const tried = [];
  for (const name of driver === undefined ? SQLITE_DRIVERS : [driver]) {
    if (name === 'node:sqlite') {
      let sqlite;
      try {
        sqlite = await import('node:sqlite');
      } catch (e) {
        tried.push(`node:sqlite: ${e.message}`);
        continue;
      }
      return { db: new sqlite.DatabaseSync(path), driver: name };
    }
    if (name === 'better-sqlite3') {
      let Database;
      try {
        Database = (await import('better-sqlite3')).default;
      } catch (e) {
        tried.push(`better-sqlite3: ${e.message}`);
        continue;
      }
      return { db: new Database(path), driver: name };
    }
    tried.push(`${name}: not a SQLite driver (${SQLITE_DRIVERS.join(', ')})`);
  }
  throw new Error(
    `SQLite needs node:sqlite (Node 22.13 or later) or the optional dependency better-sqlite3 (npm install better-sqlite3): ${tried.join('; ')}`,
  );
}

/** Whether `e` is SQLite's "another connection holds the lock". */
function busy(e) {
  return /^SQLITE_BUSY/.test(String(e?.code ?? '')) || (Number(e?.errcode) & 0xff) === 5 || /database is locked/.test(String(e?.message ?? ''));
}

/**
 * Runs `f` (one statement, or BEGIN/COMMIT) again while another connection
 * holds the lock, for up to WRITER_WAIT_MS: each attempt blocks Node for at
 * most BUSY_SLICE_MS, the waits between attempts do not block it.
 */
async function patiently(f) {
  const started = Date.now();
  for (let delay = 1; ; delay = Math.min(delay * 2, 50)) {
    try {
      return f();
    } catch (e) {
      if (!busy(e) || Date.now() - started > WRITER_WAIT_MS) throw e;
    }
    await new Promise((done) => setTimeout(done, delay));
  }
}

/**
 * One connection per database file and driver in this process, shared by
 * every store and sink on it: a claim made from inside an audit append (the
 * gate's seal) then runs in the append's transaction, where a second
 * connection would wait for the first's lock forever.
 */
const open = new Map();

async function acquire(path, driver) {
  const key = `${driver ?? ''}\0${resolve(path)}`;
  let shared = open.get(key);
  if (shared === undefined) {
    shared = {
      key,
      users: 0,
      serial: new Serial(),
      ready: connect(path, driver).then((c) => {
        c.db.exec(`PRAGMA busy_timeout = ${BUSY_SLICE_MS}`);
        return c;
      }),
    };
    open.set(key, shared);
    shared.ready.catch(() => open.delete(key));
  }
  shared.users += 1;
  return shared;
}

function release(shared) {
  shared.users -= 1;
  if (shared.users > 0) return;
  open.delete(shared.key);
  shared.ready.then((c) => c.db.close()).catch(() => {});
}

/** What the store and the sink share: opening, schema, turns, errors. */
class Connection {
  #shared;
  #schema;
  #what;
  #error;
  #closed = false;

  constructor(path, driver, schema, what, error) {
    this.#shared = acquire(path, driver);
    this.#what = what;
    this.#error = error;
    this.#schema = this.#shared.then(async (s) => {
      const c = await s.ready;
      await s.serial.run(() => patiently(() => c.db.exec(schema)));
      return c;
    });
    // Reported at first use, not here.
    this.#schema.catch(() => {});
  }

  fail(e) {
    return this.#error(`${this.#what}: ${e?.message ?? e}`);
  }

  /** The driver this connection uses (`node:sqlite` or `better-sqlite3`). */
  async driver() {
    return (await this.#schema).driver;
  }

  /** Runs `f(db)` in this connection's turn, again while another holds the lock. */
  async use(f) {
    if (this.#closed) throw this.fail(new Error('closed'));
    let c;
    let s;
    try {
      c = await this.#schema;
      s = await this.#shared;
    } catch (e) {
      throw this.fail(e);
    }
    try {
      return await s.serial.run(() => patiently(() => f(c.db)));
    } catch (e) {
      throw e instanceof GateError ? e : this.fail(e);
    }
  }

  /**
   * Runs `f(db)` in one `BEGIN IMMEDIATE` transaction: SQLite's write lock,
   * which the Rust and Python writers take too. `f` resolves with
   * `{ value, commit }`: `commit: false` rolls back.
   */
  async transaction(f) {
    if (this.#closed) throw this.fail(new Error('closed'));
    let c;
    let s;
    try {
      c = await this.#schema;
      s = await this.#shared;
    } catch (e) {
      throw this.fail(e);
    }
    return s.serial.transaction(async () => {
      try {
        await patiently(() => c.db.exec('BEGIN IMMEDIATE'));
      } catch (e) {
        throw this.fail(e);
      }
      let outcome;
      try {
        outcome = await f(c.db);
      } catch (e) {
        try {
          c.db.exec('ROLLBACK');
        } catch {
          // Nothing was begun that outlives the connection.
        }
        throw e;
      }
      try {
        await patiently(() => c.db.exec(outcome.commit ? 'COMMIT' : 'ROLLBACK'));
      } catch (e) {
        try {
          c.db.exec('ROLLBACK');
        } catch {
          // As above.
        }
        throw this.fail(e);
      }
      if (outcome.error !== undefined) throw outcome.error;
      return outcome.value;
    });
  }

  async close() {
    if (this.#closed) return;
    this.#closed = true;
    release(await this.#shared);
  }
}

function storeError(message) {
  return new GateError('checkpoint', message);
}

function sinkError(message) {
  return new Error(message);
}

/** A deadline or instant (ms) as SQLite's INTEGER takes it. */
function millis(ms) {
  return Math.max(0, Math.min(Math.trunc(Number(ms)), Number.MAX_SAFE_INTEGER));
}

/**
 * Checkpoints, claims and grants in an SQLite database: the tables the Rust
 * and Python hosts' `SqliteStore` make, `toolgate_checkpoints(id TEXT PRIMARY
 * KEY, checkpoint TEXT)` and `toolgate_claims(id TEXT PRIMARY KEY, deadline
 * INTEGER)`. A claim is an `INSERT OR IGNORE`: the one connection whose row
 * went in, in any process or host, has it; the row stays as a tombstone until
 * its deadline.
 */
export class SqliteStore {
  #c;
  /**
   * @param {string} path the database file, created if missing
   * @param {{driver?: 'node:sqlite' | 'better-sqlite3'}} [options]
   */
  constructor(path, { driver } = {}) {
    this.#c = new Connection(path, driver, STORE_SCHEMA, 'checkpoint store', storeError);
  }

  /** The driver in use. */
  driver() {
    return this.#c.driver();
  }

  async put(id, checkpoint) {
    checkId(id);
    await this.#c.use((db) => db.prepare('INSERT OR REPLACE INTO toolgate_checkpoints (id, checkpoint) VALUES (?, ?)').run(id, checkpoint));
  }

  async remove(id) {
    await this.#c.use((db) => db.prepare('DELETE FROM toolgate_checkpoints WHERE id = ?').run(id));
  }

  async claim(id, deadline) {
    checkId(id);
    const done = await this.#c.use((db) => db.prepare('INSERT OR IGNORE INTO toolgate_claims (id, deadline) VALUES (?, ?)').run(id, millis(deadline)));
    return Number(done.changes) === 1;
  }

  async claimed(id) {
    return (await this.#c.use((db) => db.prepare('SELECT 1 AS one FROM toolgate_claims WHERE id = ?').get(id))) !== undefined;
  }

  async release(id) {
    await this.#c.use((db) => db.prepare('DELETE FROM toolgate_claims WHERE id = ?').run(id));
    return true;
  }

  async sweep(now) {
    const done = await this.#c.use((db) => db.prepare('DELETE FROM toolgate_claims WHERE deadline < ?').run(millis(now)));
    return Number(done.changes);
  }

  async get(id) {
    const row = await this.#c.use((db) => db.prepare('SELECT checkpoint FROM toolgate_checkpoints WHERE id = ?').get(id));
    return row === undefined ? null : row.checkpoint;
  }

  async list() {
    const rows = await this.#c.use((db) => db.prepare('SELECT id, checkpoint FROM toolgate_checkpoints ORDER BY id').all());
    return rows.map((row) => [row.id, row.checkpoint]);
  }

  /** Closes this store's hold on the database (the connection closes with its last user). */
  close() {
    return this.#c.close();
  }
}

/**
 * The audit chain in an SQLite table, the Rust and Python hosts' `SqliteSink`:
 * `toolgate_audit(seq INTEGER PRIMARY KEY, line TEXT)`. Each sealed append is
 * one `BEGIN IMMEDIATE` transaction that reads the last line, seals after it
 * and inserts, so writers of every host on the file keep one chain. With the
 * store on the same file, what the gate does inside the seal (the claim, the
 * grant) is in that transaction too.
 */
export class SqliteSink {
  #c;
  /**
   * @param {string} path the database file, created if missing
   * @param {{driver?: 'node:sqlite' | 'better-sqlite3'}} [options]
   */
  constructor(path, { driver } = {}) {
    this.#c = new Connection(path, driver, SINK_SCHEMA, 'audit sink', sinkError);
  }

  /** The driver in use. */
  driver() {
    return this.#c.driver();
  }

  async append(line) {
    await this.#c.use((db) => db.prepare('INSERT INTO toolgate_audit (line) VALUES (?)').run(line));
  }

  async last() {
    const row = await this.#c.use((db) => db.prepare(LAST).get());
    return row === undefined ? null : row.line;
  }

  /**
   * Seals and appends one line under SQLite's write lock. When `seal` throws,
   * no line is written, and what the gate did inside it on this database
   * (a claim refused or taken back) is committed as a file store would keep
   * it; a line that cannot be inserted rolls everything back.
   *
   * @param {(previous: string | null) => string | Promise<string>} seal
   */
  appendSealed(seal) {
    return this.#c.transaction(async (db) => {
      const row = db.prepare(LAST).get();
      let line;
      try {
        line = await seal(row === undefined ? null : row.line);
      } catch (error) {
        return { commit: true, error };
      }
      db.prepare('INSERT INTO toolgate_audit (line) VALUES (?)').run(line);
      return { commit: true, value: line };
    });
  }

  /**
   * Whether the chain holds a record of approval `approval`'s settlement,
   * among the records stamped at `since` (ms) or later.
   */
  async recorded(approval, since = 0) {
    const pattern = `%${String(approval).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await this.#c.use((db) => db.prepare("SELECT line FROM toolgate_audit WHERE line LIKE ? ESCAPE '\\' ORDER BY seq DESC").all(pattern));
    return rows.some((row) => namesApproval(row.line, approval, since));
  }

  /** Nothing is ever torn in a transaction. */
  async gap() {
    return null;
  }

  /** Every line in order, as the JSON Lines text `toolgate audit verify` reads. */
  async export() {
    const rows = await this.#c.use((db) => db.prepare('SELECT line FROM toolgate_audit ORDER BY seq').all());
    return rows.map((row) => `${row.line}\n`).join('');
  }

  /** Closes this sink's hold on the database. */
  close() {
    return this.#c.close();
  }
}

/** Whether audit line `text` records approval `approval`, stamped at `since` or later. */
export function namesApproval(text, approval, since) {
  let record;
  try {
    record = JSON.parse(text);
  } catch {
    return false;
  }
  if (record?.approval?.id !== approval) return false;
  return typeof record.time !== 'number' || record.time >= since;
}
