//! The JSON Lines audit sink's group commit: writers on many threads share
//! syncs, and the chain they write stays one chain — each line sealed on the
//! line before it, none lost, none forked — whether they wait for their own
//! sync at once or let others write meanwhile.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::sync::Arc;
use toolgate::gate::audit::{AuditSink, JsonlSink};

/// A fresh directory of this test's own.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-group-commit-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A line that names the line it was sealed on, as the component's seal
/// chains a record to its predecessor's hash.
fn seal(writer: usize, n: usize) -> impl Fn(Option<&str>) -> Result<String, String> {
    move |previous| {
        let previous = previous.map(|p| {
            serde_json::from_str::<serde_json::Value>(p).unwrap()["hash"]
                .as_str()
                .unwrap()
                .to_owned()
        });
        Ok(serde_json::json!({
            "hash": format!("{writer}-{n}"),
            "previous": previous,
        })
        .to_string())
    }
}

#[test]
fn concurrent_writers_write_one_chain_and_every_line_is_durable_when_answered() {
    let dir = scratch("chain");
    let path = dir.join("audit.jsonl");
    let sink = Arc::new(JsonlSink::open(&path).unwrap());
    const WRITERS: usize = 8;
    const LINES: usize = 60;
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let sink = Arc::clone(&sink);
            std::thread::spawn(move || {
                for n in 0..LINES {
                    if n % 2 == 0 {
                        // The gate's way: write, then wait for the sync.
                        let (_, ticket) =
                            sink.append_sealed_deferred(&seal(w, n)).unwrap().unwrap();
                        sink.wait_durable(ticket).unwrap();
                    } else {
                        sink.append_sealed(&seal(w, n)).unwrap().unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), WRITERS * LINES, "every line written once");
    let mut previous: Option<String> = None;
    for line in &lines {
        assert_eq!(
            line["previous"].as_str().map(str::to_owned),
            previous,
            "each line is sealed on the one before it"
        );
        previous = line["hash"].as_str().map(str::to_owned);
    }
    let mut seen: Vec<&str> = lines.iter().map(|l| l["hash"].as_str().unwrap()).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), WRITERS * LINES, "no line twice");
    // The log's locks are released once nothing waits: another sink (another
    // process's, in effect) takes them and continues the chain.
    let other = JsonlSink::open(&path).unwrap();
    let line = other.append_sealed(&seal(99, 0)).unwrap().unwrap();
    let line: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(line["previous"].as_str().map(str::to_owned), previous);
    assert!(
        !dir.join("audit.jsonl.lock").exists(),
        "the writer lock is gone"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A writer whose seal fails writes nothing and holds no lock afterwards.
#[test]
fn a_refused_seal_writes_nothing_and_releases_the_log() {
    let dir = scratch("refused");
    let path = dir.join("audit.jsonl");
    let sink = JsonlSink::open(&path).unwrap();
    sink.append_sealed(&seal(0, 0)).unwrap().unwrap();
    let refused = sink.append_sealed(&|_: Option<&str>| Err(String::from("no")));
    assert_eq!(refused, Some(Err(String::from("no"))));
    assert!(!dir.join("audit.jsonl.lock").exists());
    let other = JsonlSink::open(&path).unwrap();
    other.append_sealed(&seal(1, 0)).unwrap().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}
