//! The long run: a million calls over the benchmark mix through one policy,
//! sampling the process's resident memory and the linear memory of the
//! component's instances, to show neither grows. Not a test: it prints figures.
//!
//! `cargo bench -p toolgate --bench soak` (`-- CALLS` to change the count).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs,
    reason = "a benchmark fails loudly"
)]

use std::path::PathBuf;
use std::time::Instant;

/// The resident set size in KiB, from /proc (Linux); 0 elsewhere.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let total: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/bench/mix.json");
    let mix: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let calls: Vec<(String, String)> = mix["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["tool"].as_str().unwrap().to_owned(),
                c["args"].to_string(),
            )
        })
        .collect();
    let policy = toolgate::Policy::embedded().unwrap();
    let engine = policy.engine(&mix["config"].to_string()).unwrap();

    println!("| calls | resident memory (KiB) | component linear memory (KiB) | engines created and dropped |");
    println!("|---:|---:|---:|---:|");
    let sample = |done: u64, dropped: u64| {
        println!(
            "| {done} | {} | {} | {dropped} |",
            rss_kib(),
            policy.stats().idle_memory / 1024
        );
    };
    let start = Instant::now();
    let step = (total / 10).max(1);
    let mut dropped = 0;
    sample(0, 0);
    for i in 0..total {
        let (tool, args) = &calls[(i % calls.len() as u64) as usize];
        let decision = engine.assess(tool, args);
        assert!(
            !decision.has_finding(toolgate::POLICY_FAULT),
            "{decision:?}"
        );
        // Now and then a short-lived engine too, as a server with per-request
        // configurations would make.
        if i % 1000 == 0 {
            let temporary = policy.engine(r#"{"strict": true}"#).unwrap();
            temporary.assess(tool, args);
            dropped += 1;
        }
        if (i + 1) % step == 0 {
            sample(i + 1, dropped);
        }
    }
    println!(
        "\n{total} calls in {:.1} s ({:.1} µs per call).",
        start.elapsed().as_secs_f64(),
        start.elapsed().as_secs_f64() * 1e6 / total as f64
    );
}
