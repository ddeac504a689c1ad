//! Answers mean what the person saw, in the Rust host's gate shell: a
//! revoked grant never applies again under any key; a gate without a key
//! applies no grant from its store; audit writers never fork a chain and a
//! writer killed while holding the log's lock stalls nobody; a settled
//! approval put back is never listed as pending again. Each class both ways:
//! the stretched answer refused, its honest sibling still working.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolgate::gate::audit::{AuditSink, JsonlSink, SqliteSink};
use toolgate::gate::store::{CheckpointStore, DirStore, MemoryStore, SqliteStore};
use toolgate::gate::{Effect, Grant, Rule, Scope};
use toolgate::{Call, Checked, Gate, Policy, Response, Status};

const KEY: &[u8] = b"answers-test-key-0123456789";
const NPM_TEST: &str = r#"{"command":"npm test"}"#;
const NPM_LINT: &str = r#"{"command":"npm run lint"}"#;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("answers")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn exec(args: &str) -> Result<String, String> {
    Ok(format!("ran {args}"))
}

fn asks(gate: &Gate, call: &Call) -> bool {
    matches!(gate.check(call).unwrap(), Checked::Ask(_))
}

fn runs(gate: &Gate, call: &Call) -> bool {
    matches!(gate.check(call).unwrap(), Checked::Run(_))
}

fn stores(dir: &std::path::Path) -> Vec<(&'static str, Arc<dyn CheckpointStore>)> {
    vec![
        ("dir", Arc::new(DirStore::new(dir.join("d")))),
        (
            "sqlite",
            Arc::new(SqliteStore::open(dir.join("g.db")).unwrap()),
        ),
        ("memory", Arc::new(MemoryStore::default())),
    ]
}

/// Revocation follows the id sealed inside the grant: a revoked grant copied
/// back under another key applies neither in the gate that revoked it nor in
/// a fresh gate on the same store. A grant never revoked still applies.
#[test]
fn a_revoked_grant_copied_under_another_key_never_applies() {
    let dir = scratch("revoked-copy");
    let policy = Policy::embedded().unwrap();
    for (name, store) in stores(&dir) {
        let gate = Gate::builder(&policy)
            .key(KEY)
            .store(Arc::clone(&store))
            .approver(|_| Response::approve_remembered(Scope::Project))
            .build()
            .unwrap();
        let test = Call::new("execute_command", NPM_TEST);
        let lint = Call::new("execute_command", NPM_LINT);
        assert_eq!(gate.run(&test, exec).unwrap().status, Status::Executed);
        assert_eq!(gate.run(&lint, exec).unwrap().status, Status::Executed);
        let granted = store.grants().unwrap();
        assert_eq!(granted.len(), 2, "{name}");
        let (id, sealed) = granted
            .iter()
            .find(|(_, sealed)| sealed.contains("npm") && sealed.contains("\"test\""))
            .cloned()
            .unwrap();
        assert!(gate.revoke(&id).unwrap(), "{name}");
        assert!(asks(&gate, &test), "{name}");
        // Copied back under other keys.
        store.put_grant("copied-1", &sealed).unwrap();
        store.put_grant(&format!("{id}x"), &sealed).unwrap();
        assert!(asks(&gate, &test), "{name}: the revoking gate");
        let fresh = Gate::builder(&policy)
            .key(KEY)
            .store(Arc::clone(&store))
            .build()
            .unwrap();
        assert!(asks(&fresh, &test), "{name}: a gate that never saw it");
        assert!(
            fresh
                .grants()
                .unwrap()
                .iter()
                .all(|g| g.grant.as_ref().is_none_or(|g| g.id != id)),
            "{name}: not listed either"
        );
        // The other grant, never revoked, still applies everywhere.
        assert!(runs(&gate, &lint), "{name}");
        assert!(runs(&fresh, &lint), "{name}");
    }
}

/// A grant revoked while held under a key other than its own id: the
/// tombstone names the sealed id, so the original key is revoked too.
#[test]
fn revoking_a_copy_revokes_the_grant() {
    let dir = scratch("revoke-copy");
    let policy = Policy::embedded().unwrap();
    let store: Arc<dyn CheckpointStore> = Arc::new(DirStore::new(&dir));
    let gate = Gate::builder(&policy)
        .key(KEY)
        .store(Arc::clone(&store))
        .approver(|_| Response::approve_remembered(Scope::Project))
        .build()
        .unwrap();
    let test = Call::new("execute_command", NPM_TEST);
    assert_eq!(gate.run(&test, exec).unwrap().status, Status::Executed);
    let (id, sealed) = store.grants().unwrap().remove(0);
    store.put_grant("elsewhere", &sealed).unwrap();
    assert!(gate.revoke("elsewhere").unwrap());
    let fresh = Gate::builder(&policy)
        .key(KEY)
        .store(Arc::clone(&store))
        .build()
        .unwrap();
    assert!(asks(&fresh, &test), "the original `{id}` is revoked too");
}

fn unsigned_session_grant(session: &str) -> String {
    let grant = Grant {
        id: String::from("g-planted"),
        scope: Scope::Session,
        tool: String::from("execute_command"),
        rules: vec![Rule {
            id: Some(String::from("g-planted")),
            effect: Effect::Allow,
            tool: Some(String::from("execute_command")),
            ..Rule::default()
        }],
        created_at: 1,
        expires_at: None,
        approval_id: String::from("ap-planted"),
        by: None,
        session_id: Some(session.to_owned()),
        user_id: None,
        gate: String::from("elsewhere"),
    };
    format!(
        r#"{{"format":"toolgate.grant/1","grant":{},"mac":null}}"#,
        serde_json::to_string(&grant).unwrap()
    )
}

/// An `unsigned` gate never applies an unsigned session grant written into
/// its store; its own session grants (in memory) still apply.
#[test]
fn an_unsigned_gate_applies_no_grant_from_its_store() {
    let dir = scratch("unsigned-store");
    let policy = Policy::embedded().unwrap();
    let store: Arc<dyn CheckpointStore> = Arc::new(DirStore::new(&dir));
    store
        .put_grant("g-planted", &unsigned_session_grant("s1"))
        .unwrap();
    let gate = Gate::builder(&policy)
        .store(Arc::clone(&store))
        .unsigned()
        .approver(|_| Response::approve_remembered(Scope::Session))
        .build()
        .unwrap();
    let rm =
        Call::new("execute_command", r#"{"command":"rm -rf /srv/data"}"#).on_behalf_of("s1", "u");
    let Checked::Ask(pending) = gate.check(&rm).unwrap() else {
        panic!("a planted session grant must not apply")
    };
    assert!(gate.grants().unwrap().is_empty(), "nor is it listed");
    drop(pending);
    // Benign: the gate's own session grant, held in memory, applies.
    let test = Call::new("execute_command", NPM_TEST).on_behalf_of("s1", "u");
    assert_eq!(gate.run(&test, exec).unwrap().status, Status::Executed);
    assert!(runs(&gate, &test));
}

/// A gate with a key applies no session grant from its store either
/// (session grants live in memory only); its project grants still apply.
#[test]
fn a_session_grant_in_the_store_never_applies() {
    let dir = scratch("session-in-store");
    let policy = Policy::embedded().unwrap();
    let store: Arc<dyn CheckpointStore> = Arc::new(DirStore::new(&dir));
    let gate = Gate::builder(&policy)
        .key(KEY)
        .store(Arc::clone(&store))
        .approver(|_| Response::approve_remembered(Scope::Project))
        .build()
        .unwrap();
    store
        .put_grant("g-planted", &unsigned_session_grant("s1"))
        .unwrap();
    let rm =
        Call::new("execute_command", r#"{"command":"rm -rf /srv/data"}"#).on_behalf_of("s1", "u");
    assert!(!runs(&gate, &rm));
    let test = Call::new("execute_command", NPM_TEST);
    assert_eq!(gate.run(&test, exec).unwrap().status, Status::Executed);
    assert!(runs(&gate, &test));
}

/// A settled approval's checkpoint put back in the store is not listed as
/// a pending dialog again (its claim says it was settled), and is never run;
/// a live one is listed.
#[test]
fn a_settled_checkpoint_put_back_is_not_listed_as_pending() {
    let dir = scratch("put-back");
    let policy = Policy::embedded().unwrap();
    for (name, store) in stores(&dir) {
        let gate = Gate::builder(&policy)
            .key(KEY)
            .store(Arc::clone(&store))
            .timeout(Duration::from_secs(600))
            .build()
            .unwrap();
        let Checked::Ask(first) = gate.check(&Call::new("execute_command", NPM_TEST)).unwrap()
        else {
            panic!("confirmed")
        };
        let saved = store.get(&first.id).unwrap().unwrap();
        gate.settle(&first.id, Response::approve(), exec).unwrap();
        store.put(&first.id, &saved).unwrap();
        let Checked::Ask(live) = gate.check(&Call::new("execute_command", NPM_LINT)).unwrap()
        else {
            panic!("confirmed")
        };
        let listed: Vec<String> = gate
            .pending()
            .unwrap()
            .into_iter()
            .map(|p| p.unwrap().id)
            .collect();
        assert_eq!(listed, vec![live.id.clone()], "{name}");
        let fresh = Gate::builder(&policy)
            .key(KEY)
            .store(Arc::clone(&store))
            .build()
            .unwrap();
        assert!(fresh
            .settle(&first.id, Response::approve(), |_| panic!("never"))
            .is_err());
    }
}

fn chained_gate(policy: &Policy, sink: impl AuditSink + 'static) -> Gate {
    Gate::builder(policy)
        .audit(sink)
        .approver(|_| Response::approve())
        .build()
        .unwrap()
}

/// Two gates (own connections, as two processes have) appending to one
/// SQLite audit database at once keep one chain: it verifies, every record.
#[test]
fn two_gates_on_one_sqlite_audit_database_never_fork_the_chain() {
    let dir = scratch("sqlite-chain");
    let db = dir.join("audit.db");
    let policy = Policy::embedded().unwrap();
    let gates: Vec<Gate> = (0..2)
        .map(|_| chained_gate(&policy, SqliteSink::open(&db).unwrap()))
        .collect();
    std::thread::scope(|scope| {
        for gate in &gates {
            scope.spawn(move || {
                for i in 0..25 {
                    let call = Call::new("execute_sql", format!(r#"{{"sql":"SELECT {i}"}}"#));
                    gate.run(&call, exec).unwrap();
                }
            });
        }
    });
    let text = SqliteSink::open(&db).unwrap().export().unwrap();
    let summary = policy.verify_audit(&text).unwrap();
    assert_eq!(summary.records, text.lines().count() as u64);
    assert!(summary.records >= 100, "{}", summary.records);
}

/// The helper a writer-killing test runs in a child process: it takes the
/// log's writer lock (JSON Lines when TOOLGATE_HOLD_JSONL is set, SQLite when
/// TOOLGATE_HOLD_SQLITE is) and holds it inside `seal` until it is killed.
#[test]
fn hold_the_writer_lock_until_killed() {
    let hold = |ready: &str| {
        std::fs::write(ready, "held").unwrap();
        std::thread::sleep(Duration::from_secs(120));
        Err(String::from("held"))
    };
    if let Some(path) = std::env::var_os("TOOLGATE_HOLD_JSONL") {
        let sink = JsonlSink::open(&path).unwrap();
        let ready = format!("{}.ready", PathBuf::from(&path).display());
        let _ = sink.append_sealed(&|_| hold(&ready));
    }
    if let Some(path) = std::env::var_os("TOOLGATE_HOLD_SQLITE") {
        let sink = SqliteSink::open(&path).unwrap();
        let ready = format!("{}.ready", PathBuf::from(&path).display());
        let _ = sink.append_sealed(&|_| hold(&ready));
    }
}

/// Starts the helper holding `log`'s lock, waits until it holds it, kills it
/// with SIGKILL, and returns how long the next writer then took.
fn after_killing_the_holder(var: &str, log: &std::path::Path, sink: impl AuditSink) -> Duration {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "hold_the_writer_lock_until_killed",
            "--nocapture",
        ])
        .env(var, log)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ready = PathBuf::from(format!("{}.ready", log.display()));
    let waited = Instant::now();
    while !ready.exists() {
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "the holder never took the lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let started = Instant::now();
    let written = sink.append_sealed(&|_| Ok(String::from(r#"{"hash":"x"}"#)));
    let took = started.elapsed();
    assert!(matches!(written, Some(Ok(_))), "{written:?}");
    took
}

/// A JSON Lines writer killed (`kill -9`) while holding the log's lock stalls
/// nobody: the next writer proceeds at once, not after the stale timeout.
#[test]
fn a_killed_jsonl_writer_stalls_nobody() {
    let dir = scratch("jsonl-kill");
    let log = dir.join("audit.jsonl");
    std::fs::write(&log, "").unwrap();
    let took =
        after_killing_the_holder("TOOLGATE_HOLD_JSONL", &log, JsonlSink::open(&log).unwrap());
    assert!(
        took < Duration::from_secs(2),
        "the next writer waited {took:?}"
    );
    // Benign: a live holder's lock is honoured (the writer waits for it).
    let lock = dir.join("audit.jsonl.lock");
    let me = std::fs::read_to_string("/proc/self/stat").unwrap();
    let start = me[me.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .nth(19)
        .unwrap()
        .to_owned();
    let ns = std::fs::read_link("/proc/self/ns/pid").unwrap();
    std::fs::write(
        &lock,
        format!("{} {start} {}", std::process::id(), ns.display()),
    )
    .unwrap();
    let sink = JsonlSink::open(&log).unwrap();
    let released = {
        let lock = lock.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(600));
            std::fs::remove_file(lock).unwrap();
        })
    };
    let started = Instant::now();
    assert!(matches!(
        sink.append_sealed(&|_| Ok(String::from(r#"{"hash":"y"}"#))),
        Some(Ok(_))
    ));
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "a live lock was taken over"
    );
    released.join().unwrap();
}

/// An SQLite writer killed while inside its write transaction stalls nobody:
/// the kernel releases SQLite's lock with the process.
#[test]
fn a_killed_sqlite_writer_stalls_nobody() {
    let dir = scratch("sqlite-kill");
    let db = dir.join("audit.db");
    drop(SqliteSink::open(&db).unwrap());
    let took =
        after_killing_the_holder("TOOLGATE_HOLD_SQLITE", &db, SqliteSink::open(&db).unwrap());
    assert!(
        took < Duration::from_secs(2),
        "the next writer waited {took:?}"
    );
}

/// PostgreSQL, against a throwaway server: a revoked grant copied back into
/// another row never applies; a claim is swept by the database's clock, so
/// a replica whose clock runs far ahead sweeps no live claim, and a claim
/// past its deadline by the database's clock is swept.
#[test]
fn postgres_revocation_follows_the_grant_and_sweeps_by_its_own_clock() {
    use toolgate::gate::postgres::PostgresStore;
    use toolgate_oracles::pgcluster::{Cluster, PORT};
    let cluster = match Cluster::start() {
        Ok(cluster) => cluster,
        Err(e) => panic!("PostgreSQL 15 could not start: {e}"),
    };
    let params = format!(
        "host={} port={PORT} user=postgres dbname=postgres",
        cluster.socket.display()
    );
    let policy = Policy::embedded().unwrap();
    let store: Arc<dyn CheckpointStore> = Arc::new(PostgresStore::connect(&params).unwrap());
    let gate = Gate::builder(&policy)
        .key(KEY)
        .store(Arc::clone(&store))
        .approver(|_| Response::approve_remembered(Scope::Project))
        .build()
        .unwrap();
    let test = Call::new("execute_command", NPM_TEST);
    let lint = Call::new("execute_command", NPM_LINT);
    assert_eq!(gate.run(&test, exec).unwrap().status, Status::Executed);
    assert_eq!(gate.run(&lint, exec).unwrap().status, Status::Executed);
    let (id, sealed) = store
        .grants()
        .unwrap()
        .into_iter()
        .find(|(_, sealed)| sealed.contains("\"test\""))
        .unwrap();
    assert!(gate.revoke(&id).unwrap());
    store.put_grant("copied-row", &sealed).unwrap();
    let replica = Gate::builder(&policy)
        .key(KEY)
        .store(PostgresStore::connect(&params).unwrap())
        .build()
        .unwrap();
    assert!(asks(&replica, &test));
    assert!(runs(&replica, &lint), "the grant never revoked applies");

    let db_now = store.now().unwrap().unwrap();
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(db_now.abs_diff(wall) < 60_000);
    assert!(store.claim("live-claim", db_now + 600_000).unwrap());
    assert!(store.claim("old-claim", db_now - 1).unwrap());
    // A replica whose clock runs a day ahead sweeps.
    assert_eq!(store.sweep(wall + 86_400_000).unwrap(), 1);
    assert!(store.claimed("live-claim").unwrap());
    assert!(!store.claimed("old-claim").unwrap());
    drop(cluster);
}

/// A gate with a checkpoint key keys its audit chain with it when no audit
/// key is given: recomputed without the key, the chain does not verify; a
/// gate with no key at all still writes (and verifies) a plain chain; the
/// CLI's `audit verify` says which it checked.
#[test]
fn the_checkpoint_key_keys_the_audit_chain_by_default() {
    let dir = scratch("keyed-chain");
    let policy = Policy::embedded().unwrap();
    for (keyed, name) in [(true, "keyed.jsonl"), (false, "plain.jsonl")] {
        let log = dir.join(name);
        let mut builder = Gate::builder(&policy)
            .audit(JsonlSink::open(&log).unwrap())
            .approver(|_| Response::approve());
        if keyed {
            builder = builder.key(KEY);
        }
        let gate = builder.build().unwrap();
        gate.run(&Call::new("execute_command", NPM_TEST), exec)
            .unwrap();
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(policy.verify_audit(&text).is_ok(), !keyed, "{name}");
        if keyed {
            assert!(policy.verify_audit_keyed(&text, KEY).is_ok());
        }
        let verified = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(["audit", "verify"])
            .arg(&log)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&verified.stderr);
        if !keyed {
            assert!(verified.status.success());
            assert!(said.contains("checked unkeyed"), "{said}");
        }
    }
}
