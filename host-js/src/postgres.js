// The approval gate's PostgreSQL store and sink for Node, through `pg` (an
// optional peer dependency): the tables and locks of the Rust host's
// `PostgresStore` and `PostgresSink` (host-rs/src/gate/postgres.rs) and
// Python's, so replicas of any host share pending approvals, claims, grants
// and one audit chain.

import { GateError } from './errors.js';
import { checkId } from './stores.js';
import { Serial } from './serial.js';
import { namesApproval } from './sqlite.js';

const SCHEMA = `
    CREATE TABLE IF NOT EXISTS toolgate_checkpoints (
        id text PRIMARY KEY NOT NULL,
        checkpoint text NOT NULL
    );
    CREATE TABLE IF NOT EXISTS toolgate_claims (
        id text PRIMARY KEY NOT NULL,
        deadline bigint NOT NULL
    );
    CREATE TABLE IF NOT EXISTS toolgate_audit (
        seq bigserial PRIMARY KEY,
        line text NOT NULL
    );
    CREATE TABLE IF NOT EXISTS toolgate_database (
        token text PRIMARY KEY NOT NULL
    );`;

/** The database's clock in ms since the Unix epoch: one clock for every replica. */
const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

const LAST = 'SELECT line FROM toolgate_audit ORDER BY seq DESC LIMIT 1';

/**
 * libpq's `key=value` connection string (what the Rust and Python hosts take,
 * e.g. `host=/run/postgresql port=5432 user=gate dbname=gate`) as `pg`'s
 * configuration; a `postgres://` or `postgresql://` URL is passed as it is.
 */
export function pgConfig(params) {
  if (typeof params !== 'string') return params;
  if (/^postgres(ql)?:\/\//.test(params)) return { connectionString: params };
  const out = {};
  const names = { host: 'host', hostaddr: 'host', port: 'port', user: 'user', dbname: 'database', password: 'password', application_name: 'application_name' };
  const pair = /\s*([A-Za-z_]+)\s*=\s*(?:'((?:\\.|[^'\\])*)'|(\S*))/y;
  let at = 0;
  while (at < params.length) {
    if (/^\s*$/.test(params.slice(at))) break;
    pair.lastIndex = at;
    const m = pair.exec(params);
    if (m === null) throw new GateError('checkpoint', `PostgreSQL: cannot read the connection string at \`${params.slice(at)}\``);
    const [, key, quoted, plain] = m;
    const value = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : plain;
    const name = names[key];
    if (name === undefined) throw new GateError('checkpoint', `PostgreSQL: the connection string's \`${key}\` is not supported here`);
    out[name] = name === 'port' ? Number(value) : value;
    at = pair.lastIndex;
  }
  return out;
}

async function client(params) {
  let pg;
  try {
    pg = (await import('pg')).default;
  } catch (e) {
    throw new Error(`the PostgreSQL store and sink need pg (npm install pg): ${e.message}`);
  }
  const c = new pg.Client(pgConfig(params));
  // A server gone away fails the next query; it must not end the process.
  c.on('error', () => {});
  await c.connect();
  try {
    await c.query(SCHEMA);
  } catch {
    // Two replicas starting at once may race on CREATE TABLE IF NOT EXISTS.
    await c.query(SCHEMA);
  }
  await c.query('BEGIN');
  try {
    await c.query('LOCK TABLE toolgate_database IN EXCLUSIVE MODE');
    await c.query(
      `INSERT INTO toolgate_database (token)
         SELECT md5(random()::text || clock_timestamp()::text || pg_backend_pid()::text)
         WHERE NOT EXISTS (SELECT 1 FROM toolgate_database)`,
    );
    const { rows } = await c.query('SELECT min(token) AS token FROM toolgate_database');
    await c.query('COMMIT');
    return { client: c, token: rows[0].token };
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    await c.end().catch(() => {});
    throw e;
  }
}

/** A deadline (ms) as a bigint parameter. */
function millis(ms) {
  return String(Math.max(0, Math.min(Math.trunc(Number(ms)), Number.MAX_SAFE_INTEGER)));
}

class Postgres {
  #ready;
  #serial = new Serial();
  #what;
  #error;

  constructor(params, what, error) {
    this.#what = what;
    this.#error = error;
    this.#ready = client(params);
    this.#ready.catch(() => {});
  }

  fail(e) {
    return this.#error(`${this.#what}: ${e?.message ?? e}`);
  }

  async #client() {
    try {
      return await this.#ready;
    } catch (e) {
      throw this.fail(e);
    }
  }

  /** Runs one statement in this connection's turn. */
  async query(sql, args = []) {
    const { client: c } = await this.#client();
    try {
      return await this.#serial.run(() => c.query(sql, args));
    } catch (e) {
      throw this.fail(e);
    }
  }

  /** Runs `f(query)` in one transaction; it resolves `{ value, commit }` or `{ error }`. */
  async transaction(f) {
    const { client: c } = await this.#client();
    return this.#serial.transaction(async () => {
      const q = (sql, args = []) => c.query(sql, args);
      let outcome;
      try {
        await q('BEGIN');
        outcome = await f(q);
        await q(outcome.commit ? 'COMMIT' : 'ROLLBACK');
      } catch (e) {
        await q('ROLLBACK').catch(() => {});
        throw this.fail(e);
      }
      if (outcome.error !== undefined) throw outcome.error;
      return outcome.value;
    });
  }

  /** A name for the database (the same for every store and sink on it). */
  async database() {
    return (await this.#client()).token;
  }

  /** Ends the connection. */
  async close() {
    const ready = await this.#ready.catch(() => null);
    await ready?.client.end().catch(() => {});
  }
}

/**
 * Pending approvals, claims and grants in PostgreSQL, the Rust and Python
 * hosts' `PostgresStore` tables: a checkpoint left by one replica (of any
 * host) is answered by another; the first claim wins in the database (an
 * `INSERT … ON CONFLICT DO NOTHING`); tombstones are swept by the database's
 * clock.
 */
export class PostgresStore {
  #db;
  /** @param {string | object} params libpq `key=value` string, URL, or `pg` configuration */
  constructor(params) {
    this.#db = new Postgres(params, 'checkpoint store', (m) => new GateError('checkpoint', m));
  }

  async put(id, checkpoint) {
    checkId(id);
    await this.#db.query(
      'INSERT INTO toolgate_checkpoints (id, checkpoint) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint',
      [id, checkpoint],
    );
  }

  async remove(id) {
    await this.#db.query('DELETE FROM toolgate_checkpoints WHERE id = $1', [id]);
  }

  async claim(id, deadline) {
    checkId(id);
    const done = await this.#db.query('INSERT INTO toolgate_claims (id, deadline) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [id, millis(deadline)]);
    return done.rowCount === 1;
  }

  async claimed(id) {
    return (await this.#db.query('SELECT 1 FROM toolgate_claims WHERE id = $1', [id])).rowCount > 0;
  }

  async release(id) {
    await this.#db.query('DELETE FROM toolgate_claims WHERE id = $1', [id]);
    return true;
  }

  /** By the database's clock, never the caller's (`now` is not used), as every host does. */
  async sweep(_now) {
    return (await this.#db.query(`DELETE FROM toolgate_claims WHERE deadline < ${DB_NOW}`)).rowCount;
  }

  /** The database's clock (ms). */
  async now() {
    return Number((await this.#db.query(`SELECT ${DB_NOW} AS now`)).rows[0].now);
  }

  database() {
    return this.#db.database();
  }

  async get(id) {
    const { rows } = await this.#db.query('SELECT checkpoint FROM toolgate_checkpoints WHERE id = $1', [id]);
    return rows.length === 0 ? null : rows[0].checkpoint;
  }

  async list() {
    const { rows } = await this.#db.query('SELECT id, checkpoint FROM toolgate_checkpoints ORDER BY id');
    return rows.map((row) => [row.id, row.checkpoint]);
  }

  close() {
    return this.#db.close();
  }
}

/**
 * The audit chain in PostgreSQL (`toolgate_audit(seq bigserial, line text)`),
 * one chain for every replica of every host: each sealed append is one
 * transaction holding the table's `EXCLUSIVE` lock, reading the last line,
 * sealing after it and inserting.
 */
export class PostgresSink {
  #db;
  /** @param {string | object} params libpq `key=value` string, URL, or `pg` configuration */
  constructor(params) {
    this.#db = new Postgres(params, 'audit sink', (m) => new Error(m));
  }

  async append(line) {
    await this.#db.query('INSERT INTO toolgate_audit (line) VALUES ($1)', [line]);
  }

  async last() {
    const { rows } = await this.#db.query(LAST);
    return rows.length === 0 ? null : rows[0].line;
  }

  /**
   * Seals and appends one line under the table's lock; when `seal` throws,
   * nothing is written.
   *
   * @param {(previous: string | null) => string | Promise<string>} seal
   */
  appendSealed(seal) {
    return this.#db.transaction(async (q) => {
      await q('LOCK TABLE toolgate_audit IN EXCLUSIVE MODE');
      const { rows } = await q(LAST);
      let line;
      try {
        line = await seal(rows.length === 0 ? null : rows[0].line);
      } catch (error) {
        return { commit: false, error };
      }
      await q('INSERT INTO toolgate_audit (line) VALUES ($1)', [line]);
      return { commit: true, value: line };
    });
  }

  /**
   * Claims approval `id`, removes its checkpoint, seals and appends one line,
   * all in one transaction under the table's lock, as the Rust host's
   * `append_claimed` does (the driver's `joint` mode, for a store on this
   * database): a gate killed anywhere in it, or a database that cannot
   * write, leaves the approval pending and unclaimed, never claimed without
   * its record. Resolves `{ taken: true }` (nothing written) when another
   * gate claimed first, else `{ line }`; when `seal` throws, nothing is
   * written.
   *
   * @param {string} id
   * @param {number} deadline the claim's tombstone deadline (ms)
   * @param {(previous: string | null) => string | Promise<string>} seal
   */
  appendClaimed(id, deadline, seal) {
    try {
      checkId(id);
    } catch (e) {
      return Promise.reject(new Error(`audit sink: ${e.message}`));
    }
    return this.#db.transaction(async (q) => {
      await q('LOCK TABLE toolgate_audit IN EXCLUSIVE MODE');
      const claimed = await q('INSERT INTO toolgate_claims (id, deadline) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [id, millis(deadline)]);
      if (claimed.rowCount !== 1) return { commit: false, value: { taken: true } };
      await q('DELETE FROM toolgate_checkpoints WHERE id = $1', [id]);
      const { rows } = await q(LAST);
      let line;
      try {
        line = await seal(rows.length === 0 ? null : rows[0].line);
      } catch (error) {
        return { commit: false, error };
      }
      await q('INSERT INTO toolgate_audit (line) VALUES ($1)', [line]);
      return { commit: true, value: { line } };
    });
  }

  /** Whether the chain records approval `approval`'s settlement at `since` (ms) or later. */
  async recorded(approval, since = 0) {
    const pattern = `%${String(approval).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const { rows } = await this.#db.query('SELECT line FROM toolgate_audit WHERE line LIKE $1 ORDER BY seq DESC', [pattern]);
    return rows.some((row) => namesApproval(row.line, approval, since));
  }

  async gap() {
    return null;
  }

  database() {
    return this.#db.database();
  }

  /** Every line in order, as the JSON Lines text `toolgate audit verify` reads. */
  async export() {
    const { rows } = await this.#db.query('SELECT line FROM toolgate_audit ORDER BY seq');
    return rows.map((row) => `${row.line}\n`).join('');
  }

  close() {
    return this.#db.close();
  }
}
