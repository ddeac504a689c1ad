//! Crashes and faults against the approval gate's at-most-once promise, the
//! way trusted systems of this kind are tested: several writer processes
//! settle a few hundred pending approvals while the test `kill -9`s them at
//! random, on the directory store with a JSON Lines log and on PostgreSQL 15
//! (a throwaway server, Unix socket only); and a full disk, a small tmpfs
//! mounted in a private user and mount namespace (`unshare -Urm`). Each run
//! asserts:
//!
//! - at most one run per approval;
//! - no claimed approval without its record (after recovery: a claim a
//!   killed writer left without one is taken back and settled again);
//! - no run without its write-ahead record;
//! - a verifying audit chain;
//! - no writer stalled by a dead one (the slowest settle stays under 20 s,
//!   where a lock its dead holder left would be waited out for 30 s);
//! - on the full disk: every approval refused for want of a record stays
//!   pending and unclaimed, and runs once there is room again.
//!
//! The writers are this test binary run again (`crash_worker`, with
//! `TOOLGATE_CRASH_WORKER` set); the full-disk run is `full_disk_inside`
//! run again inside the namespace.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use toolgate::gate::audit::JsonlSink;
use toolgate::gate::store::{CheckpointStore, DirStore};
use toolgate::{Call, Checked, Gate, GateError, Policy, Response};

const KEY: &[u8] = b"crash-suite-shared-key-0123456789";
const DELETE: &str = r#"{"sql":"DELETE FROM sessions WHERE expired"}"#;
const WORKER: &str = "TOOLGATE_CRASH_WORKER";
const INSIDE: &str = "TOOLGATE_CRASH_FULL_DISK";
/// Approvals per crash run.
const APPROVALS: usize = 300;
/// Writer processes at once.
const WRITERS: usize = 4;
/// How long writers are killed at random, at most, per run.
const KILLING: Duration = Duration::from_secs(40);
/// A writer is not killed before this: it is still loading the policy.
const STARTUP: Duration = Duration::from_millis(30);
/// How long a run of a tool takes, so kills land in it too.
const RUNNING: Duration = Duration::from_millis(10);
/// One crash run at a time: two at once on two cores measure the machine.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
/// The slowest settle a live writer may take: a dead writer's lock must not
/// hold it. A lock whose holder cannot be seen to be dead is waited out for
/// 30 s, which this bound catches; below it, a settle waits only for live
/// writers' synced writes (seconds at worst on a disk other work keeps busy).
const STALL: Duration = Duration::from_secs(20);

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolgate-crash-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small xorshift generator: the kills' timing and targets, reproducible
/// from the seed the test prints.
struct Rng(u64);

impl Rng {
    fn seeded() -> Rng {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            | 1;
        eprintln!("crash: seed {seed}");
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Where a run keeps its state.
#[derive(Clone)]
enum Where {
    /// A checkpoint directory and a JSON Lines log.
    Dir { store: PathBuf, log: PathBuf },
    /// A PostgreSQL database (connection string): store and sink in one.
    #[cfg(feature = "postgres")]
    Postgres(String),
}

impl Where {
    fn env(&self) -> String {
        match self {
            Where::Dir { store, log } => format!("dir\n{}\n{}", store.display(), log.display()),
            #[cfg(feature = "postgres")]
            Where::Postgres(params) => format!("pg\n{params}"),
        }
    }

    fn parse(text: &str) -> Where {
        let mut lines = text.lines();
        match lines.next() {
            Some("dir") => Where::Dir {
                store: PathBuf::from(lines.next().unwrap()),
                log: PathBuf::from(lines.next().unwrap()),
            },
            #[cfg(feature = "postgres")]
            Some("pg") => Where::Postgres(lines.next().unwrap().to_owned()),
            other => panic!("unknown store {other:?}"),
        }
    }

    fn store(&self) -> Box<dyn CheckpointStore> {
        match self {
            Where::Dir { store, .. } => Box::new(DirStore::new(store)),
            #[cfg(feature = "postgres")]
            Where::Postgres(params) => {
                Box::new(toolgate::gate::postgres::PostgresStore::connect(params).unwrap())
            }
        }
    }

    /// A gate of a writer: shared store, shared log, the shared key, and
    /// its audit required.
    fn gate(&self, policy: &Policy) -> Gate {
        let builder = Gate::builder(policy)
            .key(KEY)
            .audit_required(true)
            .timeout(Duration::from_secs(3600));
        match self {
            Where::Dir { store, log } => builder
                .store(DirStore::new(store))
                .audit(JsonlSink::open(log).unwrap())
                .build()
                .unwrap(),
            #[cfg(feature = "postgres")]
            Where::Postgres(params) => builder
                .store(toolgate::gate::postgres::PostgresStore::connect(params).unwrap())
                .audit(toolgate::gate::postgres::PostgresSink::connect(params).unwrap())
                .build()
                .unwrap(),
        }
    }

    /// The whole audit log.
    fn log(&self) -> String {
        match self {
            Where::Dir { log, .. } => std::fs::read_to_string(log).unwrap_or_default(),
            #[cfg(feature = "postgres")]
            Where::Postgres(params) => toolgate::gate::postgres::PostgresSink::connect(params)
                .unwrap()
                .export()
                .unwrap(),
        }
    }

    /// The ids of the approvals claimed.
    fn claims(&self) -> BTreeSet<String> {
        match self {
            Where::Dir { store, .. } => std::fs::read_dir(store)
                .unwrap()
                .filter_map(|e| {
                    let name = e.unwrap().file_name().to_string_lossy().into_owned();
                    name.strip_suffix(".claim").map(str::to_owned)
                })
                .collect(),
            #[cfg(feature = "postgres")]
            Where::Postgres(params) => {
                let mut client = postgres::Client::connect(params, postgres::NoTls).unwrap();
                client
                    .query("SELECT id FROM toolgate_claims", &[])
                    .unwrap()
                    .iter()
                    .map(|r| r.get(0))
                    .collect()
            }
        }
    }
}

/// Leaves `n` approvals pending in the store; returns their ids.
fn leave_pending(policy: &Policy, at: &Where, n: usize) -> Vec<String> {
    let gate = at.gate(policy);
    (0..n)
        .map(|i| {
            let call = Call::new("execute_sql", DELETE).call_id(format!("call-{i}"));
            match gate.check(&call).unwrap() {
                Checked::Ask(pending) => pending.id,
                other => panic!("a DELETE asks a person: {other:?}"),
            }
        })
        .collect()
}

/// A writer: settles every pending approval it finds (approving it, the run
/// appended to `runs`), until none is left; each settle's time goes to
/// `stats`.
#[test]
fn crash_worker() {
    let Ok(spec) = std::env::var(WORKER) else {
        return;
    };
    let mut lines = spec.splitn(3, '\n');
    let runs = PathBuf::from(lines.next().unwrap());
    let stats = PathBuf::from(lines.next().unwrap());
    let at = Where::parse(lines.next().unwrap());
    let policy = Policy::embedded().unwrap();
    let gate = at.gate(&policy);
    let store = at.store();
    let mut stats = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(stats)
        .unwrap();
    let mut rng = Rng((u64::from(std::process::id()) * 2_654_435_761) | 1);
    loop {
        // Claims killed writers left are taken back (or finished) first.
        let recovered = gate.recover().unwrap();
        if recovered > 0 {
            writeln!(stats, "recovered {recovered}").unwrap();
        }
        let mut ids: Vec<String> = store
            .approvals()
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        if ids.is_empty() {
            return;
        }
        // Writers start at different places, so they race on some.
        let turn = rng.below(ids.len() as u64) as usize;
        ids.rotate_left(turn);
        for id in ids {
            let started = Instant::now();
            let settled = gate.settle(&id, Response::approve().by("crash-worker"), |_| {
                let mut file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&runs)
                    .map_err(|e| e.to_string())?;
                std::thread::sleep(RUNNING);
                file.write_all(format!("{id}\n").as_bytes())
                    .and_then(|()| file.sync_data())
                    .map_err(|e| e.to_string())?;
                Ok(String::from("ran"))
            });
            let ms = started.elapsed().as_millis();
            writeln!(stats, "{ms}").unwrap();
            match settled {
                Ok(_)
                | Err(GateError::AlreadyAnswered(_))
                | Err(GateError::Unknown(_))
                | Err(GateError::Waiting(_)) => {}
                Err(e) => panic!("settle {id}: {e}"),
            }
        }
    }
}

/// What the records of a log say about the approvals.
#[derive(Default, Debug)]
struct Records {
    /// Approval id → its statuses, in order.
    by_approval: BTreeMap<String, Vec<String>>,
}

fn records(log: &str) -> Records {
    let mut out = Records::default();
    for line in log.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(id) = v.pointer("/approval/id").and_then(|i| i.as_str()) {
            let status = v["status"].as_str().unwrap_or_default().to_owned();
            out.by_approval
                .entry(id.to_owned())
                .or_default()
                .push(status);
        }
    }
    out
}

fn spawn_writer(at: &Where, runs: &Path, stats: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_worker", "--test-threads", "1", "--quiet"])
        .env(
            WORKER,
            format!("{}\n{}\n{}", runs.display(), stats.display(), at.env()),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// One crash run: approvals, writers killed at random, then the checks.
fn crash_run(name: &str, at: &Where, dir: &Path) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let started = Instant::now();
    // The approvals are asked with a policy of their own: a policy whose gate
    // asked a few hundred approvals traps when it builds another gate (a
    // fault of the runtime's instance reuse, not of the claims tested here).
    let ids = leave_pending(&Policy::embedded().unwrap(), at, APPROVALS);
    let policy = Policy::embedded().unwrap();
    let runs = dir.join("runs");
    let stats = dir.join("stats");
    let mut rng = Rng::seeded();
    let mut writers: Vec<(Child, Instant)> = (0..WRITERS)
        .map(|_| (spawn_writer(at, &runs, &stats), Instant::now()))
        .collect();
    let mut kills = 0;
    let killing_until = Instant::now() + KILLING;
    let store = at.store();
    while Instant::now() < killing_until && !store.approvals().unwrap().is_empty() {
        std::thread::sleep(Duration::from_millis(10 + rng.below(50)));
        let i = rng.below(WRITERS as u64) as usize;
        // A writer is killed once it is past its start (loading the policy),
        // at a random moment of its work.
        if writers[i].1.elapsed() < STARTUP {
            continue;
        }
        if writers[i].0.try_wait().unwrap().is_none() {
            writers[i].0.kill().unwrap();
            writers[i].0.wait().unwrap();
            kills += 1;
        } else {
            // It finished (nothing left) or failed: a failure fails the run.
            let (mut child, _) = std::mem::replace(
                &mut writers[i],
                (spawn_writer(at, &runs, &stats), Instant::now()),
            );
            let status = child.wait().unwrap();
            if !status.success() {
                let mut err = String::new();
                std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
                panic!("{name}: a writer failed: {err}");
            }
            continue;
        }
        writers[i] = (spawn_writer(at, &runs, &stats), Instant::now());
    }
    // No more kills: the writers finish what is left, the killed writers'
    // claims included.
    let draining = Instant::now();
    for (mut child, _) in writers {
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let mut err = String::new();
                std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
                assert!(status.success(), "{name}: a writer failed: {err}");
                break;
            }
            assert!(
                draining.elapsed() < Duration::from_secs(90),
                "{name}: the writers did not finish"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    // A last writer, never killed, after every other: nothing is left.
    let mut last = spawn_writer(at, &runs, &stats);
    assert!(
        last.wait().unwrap().success(),
        "{name}: the last writer failed"
    );
    let gate = at.gate(&policy);
    gate.recover().unwrap();
    assert!(
        at.store().approvals().unwrap().is_empty(),
        "{name}: approvals were left pending: {:?}",
        at.store().approvals().unwrap()
    );

    let ran: Vec<String> = std::fs::read_to_string(&runs)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    let mut per: BTreeMap<&str, usize> = BTreeMap::new();
    for id in &ran {
        *per.entry(id).or_default() += 1;
    }
    // At most one run per approval.
    let twice: Vec<_> = per.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "{name}: approvals ran twice: {twice:?}");

    // A verifying chain.
    let log = at.log();
    let summary = policy
        .verify_audit_keyed(&log, KEY)
        .unwrap_or_else(|e| panic!("{name}: the audit chain does not verify: {e}"));
    let records = records(&log);

    // No run without its write-ahead record.
    for id in per.keys() {
        let statuses = records.by_approval.get(*id).cloned().unwrap_or_default();
        assert!(
            statuses.iter().any(|s| s == "executing"),
            "{name}: approval {id} ran without its write-ahead record: {statuses:?}"
        );
    }
    // No claimed approval without its record; every approval settled once,
    // recorded once.
    let claims = at.claims();
    for id in &claims {
        assert!(
            records.by_approval.contains_key(id),
            "{name}: approval {id} is claimed without a record"
        );
    }
    let mut unsettled = 0;
    for id in &ids {
        let statuses = records.by_approval.get(id).cloned().unwrap_or_default();
        let settled = statuses.iter().filter(|s| *s == "executing").count();
        assert!(
            settled <= 1,
            "{name}: approval {id} settled twice: {statuses:?}"
        );
        if settled == 0 {
            unsettled += 1;
        }
        assert!(
            claims.contains(id),
            "{name}: approval {id} was never claimed"
        );
    }
    assert_eq!(unsettled, 0, "{name}: approvals never settled");
    // No writer stalled by a dead one.
    let stats = std::fs::read_to_string(&stats).unwrap_or_default();
    let slowest = stats
        .lines()
        .filter_map(|l| l.trim().parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    let recovered: usize = stats
        .lines()
        .filter_map(|l| l.strip_prefix("recovered "))
        .filter_map(|n| n.parse::<usize>().ok())
        .sum();
    assert!(
        Duration::from_millis(slowest) < STALL,
        "{name}: a writer waited {slowest} ms for one settle"
    );
    let interrupted = ids.len() - per.len();
    eprintln!(
        "crash {name}: {} approvals, {kills} kills, {} runs ({interrupted} settled but killed before \
         or while running), {recovered} claims recovered (taken back, or their leftover checkpoint \
         removed), {} records verify, {} \
         claims all recorded, slowest settle {slowest} ms, {:.1} s",
        ids.len(),
        ran.len(),
        summary.records,
        claims.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(kills > 0, "{name}: no writer was killed");
}

#[test]
fn killed_writers_on_the_directory_store_lose_and_repeat_nothing() {
    if std::env::var_os(WORKER).is_some() || std::env::var_os(INSIDE).is_some() {
        return;
    }
    let dir = scratch("dir");
    let at = Where::Dir {
        store: dir.join("approvals"),
        log: dir.join("audit.jsonl"),
    };
    crash_run("directory", &at, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "postgres")]
#[test]
fn killed_writers_on_postgresql_lose_and_repeat_nothing() {
    if std::env::var_os(WORKER).is_some() || std::env::var_os(INSIDE).is_some() {
        return;
    }
    let cluster = toolgate_oracles::pgcluster::Cluster::start().unwrap();
    let params = format!(
        "host={} port={} user=postgres dbname=postgres",
        cluster.socket.display(),
        toolgate_oracles::pgcluster::PORT
    );
    let dir = scratch("pg");
    crash_run("postgresql", &Where::Postgres(params), &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `full_disk_inside` again in a private user and mount namespace,
/// where it mounts its own small tmpfs.
#[test]
fn a_full_disk_refuses_approvals_without_using_them_up() {
    if std::env::var_os(WORKER).is_some() || std::env::var_os(INSIDE).is_some() {
        return;
    }
    let dir = scratch("full");
    let out = Command::new("unshare")
        .args(["-Urm", "--"])
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "full_disk_inside",
            "--test-threads",
            "1",
            "--nocapture",
        ])
        .env(INSIDE, &dir)
        .output()
        .expect("unshare (util-linux) runs the full-disk run in its own namespace");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("full disk:"),
        "the run inside the namespace did not report: {text}"
    );
    // The test harness may print a report after a test's name on one line.
    for line in text
        .lines()
        .filter_map(|l| l.find("full disk:").map(|at| &l[at..]))
    {
        eprintln!("{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Inside the namespace: a tmpfs of 256 KiB for the log (and, in a second
/// round, for the store too), filled but for a few records' room.
#[test]
fn full_disk_inside() {
    let Some(dir) = std::env::var_os(INSIDE).map(PathBuf::from) else {
        return;
    };
    let small = dir.join("small");
    std::fs::create_dir_all(&small).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
        .arg(&small)
        .status()
        .unwrap();
    assert!(mounted.success(), "cannot mount a tmpfs in the namespace");
    let policy = Policy::embedded().unwrap();
    for (round, store_on_small) in [(1, false), (2, true)] {
        let store = if store_on_small {
            small.join(format!("approvals-{round}"))
        } else {
            dir.join(format!("approvals-{round}"))
        };
        let log = small.join(format!("audit-{round}.jsonl"));
        let at = Where::Dir {
            store: store.clone(),
            log: log.clone(),
        };
        // The approvals are asked while there is room (asking writes no record).
        let ids = leave_pending(&policy, &at, 30);
        // Fill the tmpfs but for about three records' room.
        let filler = small.join("filler");
        let mut file = std::fs::File::create(&filler).unwrap();
        let block = vec![b'x'; 4096];
        while file.write_all(&block).is_ok() {}
        drop(file);
        let size = std::fs::metadata(&filler).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&filler)
            .unwrap()
            .set_len(size.saturating_sub(8192))
            .unwrap();
        let gate = at.gate(&policy);
        let mut ran = BTreeMap::new();
        let mut refused = Vec::new();
        let mut settled = 0;
        for id in &ids {
            let counter = std::sync::atomic::AtomicUsize::new(0);
            let result = gate.settle(id, Response::approve(), |_| {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(String::from("ran"))
            });
            let n = counter.into_inner();
            match result {
                Ok(r) => {
                    settled += 1;
                    ran.insert(id.clone(), (n, r.status));
                }
                Err(e) => {
                    assert_eq!(n, 0, "round {round}: {id} ran though refused: {e}");
                    refused.push(id.clone());
                }
            }
        }
        assert!(!refused.is_empty(), "round {round}: the disk never filled");
        // Refused: still pending, not claimed, no record.
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let records = records(&text);
        let claims = at.claims();
        let pending: BTreeSet<String> = at
            .store()
            .approvals()
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        for id in &refused {
            assert!(
                pending.contains(id),
                "round {round}: refused {id} was used up"
            );
            assert!(
                !claims.contains(id),
                "round {round}: refused {id} stayed claimed"
            );
            assert!(
                !records.by_approval.contains_key(id),
                "round {round}: refused {id} has a record"
            );
        }
        // No run without its write-ahead record; what a record says ran, ran.
        for (id, (n, _)) in &ran {
            if *n > 0 {
                assert!(
                    records
                        .by_approval
                        .get(id)
                        .is_some_and(|s| s.iter().any(|s| s == "executing")),
                    "round {round}: {id} ran without its write-ahead record"
                );
            }
        }
        policy
            .verify_audit_keyed(&text, KEY)
            .unwrap_or_else(|e| panic!("round {round}: the chain does not verify: {e}"));
        // Room again: every refused approval is answered and runs, once.
        std::fs::remove_file(&filler).unwrap();
        let again = at.gate(&policy);
        let mut later = 0;
        for id in &refused {
            let r = again
                .settle(id, Response::approve(), |_| Ok(String::from("ran")))
                .unwrap_or_else(|e| panic!("round {round}: {id} after the disk was freed: {e}"));
            assert_eq!(r.status, toolgate::Status::Executed);
            later += 1;
        }
        let text = std::fs::read_to_string(&log).unwrap();
        policy.verify_audit_keyed(&text, KEY).unwrap();
        println!(
            "full disk: round {round} (store {}): {} approvals, {settled} settled before the disk \
             filled, {} refused and left pending unclaimed, all {later} run after room was made",
            if store_on_small {
                "on the full tmpfs too"
            } else {
                "elsewhere"
            },
            ids.len(),
            refused.len(),
        );
        let _ = std::fs::remove_dir_all(&store);
        let _ = std::fs::remove_file(&log);
    }
}
