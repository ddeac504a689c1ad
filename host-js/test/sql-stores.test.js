// The SQLite and PostgreSQL stores and sinks (toolgate/node) against the Rust
// host's, on one database: a checkpoint, claim or grant written by either host
// is read and honoured by the other, racing processes of both hosts settle an
// approval exactly once, and one audit chain written by both at once verifies
// in `toolgate audit verify`. The Rust side is host-rs/examples/store_peer.rs
// (cargo test builds it); PostgreSQL is a throwaway PostgreSQL 15 server on a
// Unix socket in a temporary directory, stopped when done, as the Rust and
// Python tests start it.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { loadPolicy, Gate } from '../src/index.js';
import { SqliteStore, SqliteSink, PostgresStore, PostgresSink } from '../src/node.js';
import { SQLITE_DRIVERS } from '../src/sqlite.js';
import { pgConfig } from '../src/postgres.js';
import { pkg, root, rustCli } from './paths.js';

const KEY = 'cross-host-shared-key-0123456789';
const DELETE = '{"sql":"DELETE FROM users WHERE id = 7"}';
const DROP = '{"sql":"DROP TABLE audit_copy"}';
const PEER = process.env.TOOLGATE_STORE_PEER ?? join(root, 'target', 'release', 'examples', 'store_peer');
const PG_BIN = '/usr/lib/postgresql/15/bin';

function peerBuilt() {
  if (existsSync(PEER)) return;
  const built = spawnSync('cargo', ['build', '--release', '--locked', '-p', 'toolgate', '--example', 'store_peer'], { cwd: root, stdio: 'inherit' });
  assert.equal(built.status, 0, 'the Rust store peer (host-rs/examples/store_peer.rs) builds');
}

/** Runs the Rust gate on the same database: one JSON answer. */
function rust(kind, store, audit, ...op) {
  const done = spawnSync(PEER, [kind, store, audit, KEY, ...op], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(done.status, 0, `store_peer ${op.join(' ')}: ${done.stderr}`);
  return op[0] === 'export' ? done.stdout : JSON.parse(done.stdout);
}

/** The same, in the background: resolves with its answer. */
function rustAsync(kind, store, audit, ...op) {
  return new Promise((resolve, reject) => {
    const child = spawn(PEER, [kind, store, audit, KEY, ...op], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (err += b));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`store_peer ${op.join(' ')}: ${err}`))));
  });
}

/** A JavaScript gate in a process of its own (for races): resolves with its answer. */
const NODE_PEER = `
import { loadPolicy, Gate } from ${JSON.stringify(join(pkg, 'src', 'index.js'))};
import { SqliteStore, SqliteSink, PostgresStore, PostgresSink } from ${JSON.stringify(join(pkg, 'src', 'node.js'))};
const [kind, store, audit, key, op, arg] = process.argv.slice(2);
const gate = new Gate(await loadPolicy(), {
  key,
  store: kind === 'sqlite' ? new SqliteStore(store) : new PostgresStore(store),
  audit: [kind === 'sqlite' ? new SqliteSink(audit) : new PostgresSink(audit)],
});
let out;
if (op === 'settle') {
  try {
    const r = await gate.settle(arg, { answer: 'approve', by: 'node' }, () => 'node ran it');
    out = { status: r.status, output: r.output };
  } catch (e) {
    out = { error: e.message, code: e.code };
  }
} else if (op === 'run') {
  for (let i = 0; i < Number(arg); i++) {
    const r = await gate.run({ tool: 'execute_sql', args: '{"sql":"SELECT 2"}' }, () => '2');
    if (r.auditError) throw new Error(r.auditError);
  }
  out = Number(arg);
}
console.log(JSON.stringify(out));
process.exit(0);
`;

function nodeAsync(script, kind, store, audit, ...op) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, kind, store, audit, KEY, ...op], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (err += b));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`node peer ${op.join(' ')}: ${err}`))));
  });
}

function verify(work, text) {
  const log = join(work, `chain-${Date.now()}.jsonl`);
  const keyFile = join(work, 'key');
  writeFileSync(log, text);
  writeFileSync(keyFile, KEY);
  const done = spawnSync(rustCli, ['audit', 'verify', '--key-file', keyFile, log], { encoding: 'utf8' });
  const unkeyed = spawnSync(rustCli, ['audit', 'verify', log], { encoding: 'utf8' });
  return { ...done, unkeyed: unkeyed.status };
}

/**
 * The whole exchange between the hosts on one database: `open()` makes a
 * JavaScript store and sink on it, `peer(...op)` runs the Rust gate on it.
 */
async function crossHosts(work, kind, target, open) {
  const policy = await loadPolicy();
  const [store, audit] = target;
  const peer = (...op) => rust(kind, store, audit, ...op);
  const opened = [];
  const gate = () => {
    const made = open();
    opened.push(made.store, made.sink);
    return new Gate(policy, { key: KEY, store: made.store, audit: [made.sink] });
  };
  try {
    // Rust leaves a DELETE pending; JavaScript lists it and answers it
    // "always, in this project": it runs here, once, and the grant is kept.
    const left = peer('check');
    assert.equal(left.action, 'confirm');
    const js = gate();
    assert.deepEqual((await js.pending()).map((p) => p.request?.id), [left.id], 'the Rust checkpoint is listed');
    const raw = open();
    opened.push(raw.store, raw.sink);
    const saved = await raw.store.get(left.id);
    const settled = await js.settle(left.id, { answer: 'approve', by: 'node', remember: { scope: 'project' } }, () => 'node ran it');
    assert.equal(settled.status, 'executed');
    assert.equal(settled.output, 'node ran it');

    // Rust honours the claim: the checkpoint put back is not listed and never
    // runs again (the tombstone JavaScript left refuses it); and the grant:
    // the DELETE now runs.
    await raw.store.put(left.id, saved);
    assert.deepEqual(peer('pending'), [], 'a claimed checkpoint is no live approval');
    const again = peer('settle', left.id);
    assert.ok(again.error, `a settled approval is never answered again: ${JSON.stringify(again)}`);
    assert.equal(peer('grants').length, 1, 'the JavaScript grant is listed by Rust');
    const granted = peer('check');
    assert.equal(granted.action, 'allow', 'the JavaScript grant applies in Rust');
    assert.equal(granted.output, 'rust ran it');

    // JavaScript leaves a DROP pending; Rust answers it "always"; JavaScript
    // then finds it claimed, and applies Rust's grant.
    const checked = await gate().check({ tool: 'execute_sql', args: DROP });
    assert.equal(checked.decision.action, 'confirm');
    const id = checked.pending.id;
    assert.deepEqual(peer('pending'), [id], 'the JavaScript checkpoint is listed by Rust');
    const savedJs = await raw.store.get(id);
    assert.deepEqual(peer('settle', id), { status: 'executed', output: 'rust ran it' });
    assert.equal(await raw.store.get(id), null, 'Rust removed the settled checkpoint');
    await raw.store.put(id, savedJs);
    assert.equal(await raw.store.claimed(id), true, "Rust's claim is read by JavaScript");
    assert.deepEqual(await gate().pending(), [], 'a checkpoint Rust claimed is not listed');
    await assert.rejects(
      gate().settle(id, { answer: 'approve' }, () => assert.fail('a call Rust settled ran again')),
      (e) => ['already-answered', 'unknown'].includes(e.code),
    );
    const allowed = await gate().check({ tool: 'execute_sql', args: DROP });
    assert.equal(allowed.decision.action, 'allow', 'the Rust grant applies in JavaScript');

    // One Rust checkpoint, racing processes of both hosts: it runs once.
    const script = join(work, 'node-peer.mjs');
    writeFileSync(script, NODE_PEER);
    const raced = peer('check');
    assert.equal(raced.action, 'allow', 'the grant covers the DELETE');
    // A fresh pending approval: the DROP is granted too, so a third statement.
    const pending = await gate().check({ tool: 'execute_sql', args: '{"sql":"TRUNCATE audit_copy"}' });
    assert.equal(pending.decision.action, 'confirm');
    const racers = await Promise.all([
      nodeAsync(script, kind, store, audit, 'settle', pending.pending.id),
      nodeAsync(script, kind, store, audit, 'settle', pending.pending.id),
      rustAsync(kind, store, audit, 'settle', pending.pending.id),
      rustAsync(kind, store, audit, 'settle', pending.pending.id),
    ]);
    const ran = racers.filter((r) => r.status === 'executed');
    assert.equal(ran.length, 1, `exactly one racer runs it: ${JSON.stringify(racers)}`);
    assert.equal(racers.filter((r) => r.error).length, 3, JSON.stringify(racers));

    // Writers of both hosts appending at once keep one chain.
    const counts = await Promise.all([
      rustAsync(kind, store, audit, 'run', '12'),
      nodeAsync(script, kind, store, audit, 'run', '12'),
      rustAsync(kind, store, audit, 'run', '12'),
      nodeAsync(script, kind, store, audit, 'run', '12'),
    ]);
    assert.deepEqual(counts, [12, 12, 12, 12]);

    // The chain both wrote verifies (keyed; unkeyed it is refused), and the
    // JavaScript sink reads it as the Rust one does.
    const text = peer('export');
    assert.equal(await opened[1].export(), text, 'both hosts read the same lines');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l));
    const verified = verify(work, text);
    assert.equal(verified.status, 0, verified.stderr);
    assert.match(verified.stdout, new RegExp(`ok: ${lines.length} records`));
    assert.notEqual(verified.unkeyed, 0, 'the chain is keyed');
    assert.ok(lines.some((l) => l.approval?.by === 'node') && lines.some((l) => l.approval?.by === 'rust'), 'both hosts recorded approvals');
    assert.ok(lines.filter((l) => l.parameters === '{"sql":"SELECT 2"}').length >= 24 && lines.filter((l) => l.parameters === '{"sql":"SELECT 1"}').length >= 24);
  } finally {
    for (const each of opened) await each.close();
  }
}

describe('SQLite store and sink', () => {
  let work;
  before(() => {
    peerBuilt();
    work = mkdtempSync(join(tmpdir(), 'toolgate-sqlite-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('one driver at least is here, and each keeps the store contract', async () => {
    const drivers = [];
    for (const driver of SQLITE_DRIVERS) {
      const store = new SqliteStore(join(work, `contract-${driver.replace(':', '-')}.db`), { driver });
      try {
        assert.equal(await store.driver(), driver);
      } catch {
        await store.close();
        continue;
      }
      drivers.push(driver);
      await store.put('b-2', 'two');
      await store.put('a-1', 'one');
      await store.put('a-1', 'one again');
      assert.deepEqual(await store.list(), [['a-1', 'one again'], ['b-2', 'two']]);
      assert.equal(await store.get('a-1'), 'one again');
      assert.equal(await store.get('c-3'), null);
      assert.equal(await store.claim('a-1', 10), true);
      assert.equal(await store.claim('a-1', 10), false, 'a claim is made once');
      assert.equal(await store.claimed('a-1'), true);
      assert.equal(await store.sweep(5), 0, 'a tombstone stays until its deadline');
      assert.equal(await store.sweep(11), 1);
      assert.equal(await store.claimed('a-1'), false);
      await assert.rejects(store.put('../x', 'no'), /not a valid approval id/);
      await store.close();
    }
    // Node 22.13 and later have node:sqlite; before it, the optional dependency.
    const builtIn = Number(process.versions.node.split('.')[0]) >= 23 || /^22\.(1[3-9]|[2-9]\d)/.test(process.versions.node);
    assert.ok(drivers.length > 0, 'no SQLite driver: install better-sqlite3');
    if (builtIn) assert.ok(drivers.includes('node:sqlite'));
    else assert.deepEqual(drivers, ['better-sqlite3']);
  });

  test('a store and a sink on one file claim and record in one transaction', async () => {
    const file = join(work, 'one.db');
    const store = new SqliteStore(file);
    const sink = new SqliteSink(file);
    const gate = new Gate(await loadPolicy(), { key: KEY, store, audit: [sink] });
    const checked = await gate.check({ tool: 'execute_sql', args: DELETE });
    const settled = await gate.settle(checked.pending.id, { answer: 'approve' }, () => 'ran');
    assert.equal(settled.status, 'executed');
    assert.equal(await store.claimed(checked.pending.id), true);
    assert.equal(await sink.recorded(checked.pending.id, 0), true);
    assert.equal(await sink.recorded('nobody', 0), false);
    await store.close();
    await sink.close();
  });

  test('checkpoints, claims, grants and one chain cross the Rust host', async () => {
    const store = join(work, 'store.db');
    const audit = join(work, 'audit.db');
    await crossHosts(work, 'sqlite', [store, audit], () => ({ store: new SqliteStore(store), sink: new SqliteSink(audit) }));
  });
});

/** Root cannot run PostgreSQL: the server runs as the `postgres` account. */
function asServer(argv) {
  return userInfo().uid === 0 ? ['runuser', '-u', 'postgres', '--', ...argv] : argv;
}

function run(argv) {
  const done = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 120_000 });
  assert.equal(done.status, 0, `${argv.join(' ')}: ${done.stderr}`);
}

const pgMissing = existsSync(join(PG_BIN, 'initdb')) ? false : `PostgreSQL 15 is not installed (${PG_BIN}/initdb): apt-get install postgresql-15`;

describe('PostgreSQL store and sink', { skip: process.env.CI ? false : pgMissing }, () => {
  let base;
  let params;
  let watchdog;
  before(() => {
    peerBuilt();
    base = mkdtempSync(join(tmpdir(), 'toolgate-pg-'));
    const data = join(base, 'data');
    const socket = join(base, 'socket');
    mkdirSync(socket);
    mkdirSync(data, { mode: 0o700 });
    if (userInfo().uid === 0) {
      chmodSync(base, 0o755);
      const pgUser = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
      const pgGroup = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
      chownSync(data, Number(pgUser.stdout), Number(pgGroup.stdout));
      chownSync(socket, Number(pgUser.stdout), Number(pgGroup.stdout));
    }
    run(asServer([join(PG_BIN, 'initdb'), '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync', '-D', data]));
    run(asServer([join(PG_BIN, 'pg_ctl'), '-D', data, '-w', '-t', '60', '-l', join(socket, 'log'), '-o', `-k ${socket} -c listen_addresses='' -c fsync=off`, 'start']));
    params = `host=${socket} port=5432 user=postgres dbname=postgres`;
    // Outlives this process only long enough to stop the server and remove its
    // directory, should the test process die (killed, timed out) before `after`.
    const watch =
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; ` +
      `kill -QUIT $(head -n 1 '${data}/postmaster.pid') 2>/dev/null; sleep 2; rm -rf '${base}'`;
    watchdog = spawn('sh', ['-c', watch], { stdio: 'ignore', detached: true });
    watchdog.unref();
  });
  after(() => {
    if (base === undefined) return;
    watchdog?.kill();
    spawnSync(asServer([join(PG_BIN, 'pg_ctl'), '-D', join(base, 'data'), '-m', 'immediate', 'stop'])[0], asServer([join(PG_BIN, 'pg_ctl'), '-D', join(base, 'data'), '-m', 'immediate', 'stop']).slice(1), { timeout: 60_000 });
    rmSync(base, { recursive: true, force: true });
  });

  test('the connection string reads as libpq reads it', () => {
    assert.deepEqual(pgConfig("host=/tmp/s port=5433 user=gate dbname='my db' password='it\\'s'"), {
      host: '/tmp/s',
      port: 5433,
      user: 'gate',
      database: 'my db',
      password: "it's",
    });
    assert.deepEqual(pgConfig('postgresql://gate@db/gate'), { connectionString: 'postgresql://gate@db/gate' });
    assert.throws(() => pgConfig('sslmode=require'), /not supported/);
  });

  test('the store keeps the contract, by the database clock', async () => {
    const store = new PostgresStore(params);
    const sink = new PostgresSink(params);
    try {
      await store.put('b-2', 'two');
      await store.put('a-1', 'one');
      await store.put('a-1', 'one again');
      assert.deepEqual(await store.list(), [['a-1', 'one again'], ['b-2', 'two']]);
      assert.equal(await store.claim('a-1', 1), true);
      assert.equal(await store.claim('a-1', 1), false);
      assert.equal(await store.claimed('a-1'), true);
      assert.ok((await store.now()) > 1_700_000_000_000);
      assert.equal(await store.sweep(0), 1, 'swept by the database clock, not the one given');
      assert.equal(await store.database(), await sink.database(), 'a store and a sink know they share one database');
      await store.remove('a-1');
      await store.remove('b-2');
    } finally {
      await store.close();
      await sink.close();
    }
  });

  test('checkpoints, claims, grants and one chain cross the Rust host', async () => {
    const work = join(base, 'work');
    mkdirSync(work);
    await crossHosts(work, 'postgres', [params, params], () => ({ store: new PostgresStore(params), sink: new PostgresSink(params) }));
  });

  /** A plain connection to the test's database, beside the gates'. */
  async function admin() {
    const pg = (await import('pg')).default;
    const c = new pg.Client(pgConfig(params));
    c.on('error', () => {});
    await c.connect();
    return c;
  }

  test('a store and a sink on one database claim, remove and record in one transaction', async () => {
    const db = await admin();
    const opened = [];
    const gate = () => {
      const store = new PostgresStore(params);
      const sink = new PostgresSink(params);
      opened.push(store, sink);
      return new Gate(policyOnce, { key: KEY, store, audit: [sink] });
    };
    const policyOnce = await loadPolicy();
    const count = async (sql, id) => Number((await db.query(sql, [id])).rows[0].n);
    const claims = (id) => count('SELECT count(*) AS n FROM toolgate_claims WHERE id = $1', id);
    const checkpoints = (id) => count('SELECT count(*) AS n FROM toolgate_checkpoints WHERE id = $1', id);
    const records = (id) => count("SELECT count(*) AS n FROM toolgate_audit WHERE line LIKE '%' || $1 || '%'", id);
    try {
      // The fault: the audit record's INSERT waits (a trigger waiting on an
      // advisory lock this connection holds) and its connection is then
      // killed, as a gate killed between its claim and its record would be.
      const first = gate();
      const checked = await first.check({ tool: 'execute_sql', args: '{"sql":"DELETE FROM orders WHERE id = 9"}' });
      const id = checked.pending.id;
      const asked = await records(id);
      await db.query('SELECT pg_advisory_lock(7321)');
      await db.query(`CREATE OR REPLACE FUNCTION toolgate_test_hold() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN PERFORM pg_advisory_xact_lock(7321); RETURN NEW; END $$`);
      await db.query('CREATE TRIGGER toolgate_test_hold BEFORE INSERT ON toolgate_audit FOR EACH ROW EXECUTE FUNCTION toolgate_test_hold()');
      let ran = 0;
      const settling = first.settle(id, { answer: 'approve' }, () => (ran += 1));
      settling.catch(() => {});
      let held = [];
      for (let i = 0; i < 500 && held.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        held = (await db.query("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows;
      }
      assert.equal(held.length, 1, 'the record waits in the trigger');
      assert.equal(await claims(id), 0, 'between claim and record, no claim is committed');
      assert.equal(await checkpoints(id), 1, 'nor the checkpoint removed');
      await db.query('SELECT pg_terminate_backend($1)', [held[0].pid]);
      await assert.rejects(settling, (e) => e.code === 'audit' && /stays pending: its record could not be written/.test(e.message), 'the settlement fails: nothing was recorded');
      assert.equal(ran, 0, 'nothing ran');
      assert.equal(await claims(id), 0, 'no claim is left without its record');
      assert.equal(await checkpoints(id), 1, 'the approval is still pending');
      assert.equal(await records(id), asked, 'no record was added');

      // With the fault gone, another gate settles it once: claim, removal and
      // record together.
      await db.query('DROP TRIGGER toolgate_test_hold ON toolgate_audit');
      await db.query('SELECT pg_advisory_unlock(7321)');
      const second = gate();
      assert.deepEqual((await second.pending()).map((p) => p.request?.id), [id], 'listed as pending');
      const settled = await second.settle(id, { answer: 'approve', by: 'node' }, () => 'ran once');
      assert.equal(settled.status, 'executed');
      assert.equal(await claims(id), 1);
      assert.equal(await checkpoints(id), 0);
      assert.equal(await records(id), asked + 2, 'its approval and then its result');

      // Claimed first elsewhere (`taken`): refused, nothing written or removed.
      const third = gate();
      const other = await third.check({ tool: 'execute_sql', args: '{"sql":"DELETE FROM invoices WHERE id = 4"}' });
      const otherId = other.pending.id;
      const otherAsked = await records(otherId);
      assert.equal(await opened.at(-2).claim(otherId, Date.now() + 60_000), true);
      await assert.rejects(
        third.settle(otherId, { answer: 'approve' }, () => assert.fail('a call claimed elsewhere ran')),
        (e) => e.code === 'already-answered',
      );
      assert.equal(await checkpoints(otherId), 1, 'the checkpoint stays for its claimer');
      assert.equal(await records(otherId), otherAsked, 'nothing is recorded');
      await db.query('DELETE FROM toolgate_checkpoints WHERE id = $1', [otherId]);
    } finally {
      await db.query('DROP TRIGGER IF EXISTS toolgate_test_hold ON toolgate_audit').catch(() => {});
      await db.end();
      for (const each of opened) await each.close();
    }
  });
});
