//! The benchmark of the Rust host: the same calls natively (the policy crate)
//! and through wasmtime (the component), in one run, so the ratio holds on a
//! noisy machine. Not a test: nothing here asserts a time.
//!
//! `cargo bench -p toolgate --bench assess` (add `-- --quick` for a smoke run).
//! The call mix is `tests/bench/mix.json`; BENCHMARKS.md has the method and the
//! latest figures.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs,
    reason = "a benchmark fails loudly"
)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

struct Call {
    name: String,
    tool: String,
    args: String,
}

fn mix() -> (String, Vec<Call>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/bench/mix.json");
    let mix: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let calls = mix["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Call {
            name: c["name"].as_str().unwrap().to_owned(),
            tool: c["tool"].as_str().unwrap().to_owned(),
            args: c["args"].to_string(),
        })
        .collect();
    (mix["config"].to_string(), calls)
}

/// Nanoseconds per call of `f`: the median of `rounds` rounds, each running
/// for about `round` after a warm-up.
fn per_call(rounds: usize, round: Duration, mut f: impl FnMut()) -> f64 {
    for _ in 0..100 {
        f();
    }
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        let mut n = 0_u64;
        while start.elapsed() < round {
            for _ in 0..16 {
                f();
            }
            n += 16;
        }
        samples.push(start.elapsed().as_nanos() as f64 / n as f64);
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn us(ns: f64) -> String {
    format!("{:.1}", ns / 1000.0)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (rounds, round) = if quick {
        (3, Duration::from_millis(20))
    } else {
        (7, Duration::from_millis(150))
    };
    let (config, calls) = mix();

    // Loading.
    let cache = std::env::temp_dir().join(format!("toolgate-bench-cache-{}", std::process::id()));
    let start = Instant::now();
    let compiled = toolgate::Policy::builder()
        .cache_dir(&cache)
        .build()
        .unwrap();
    let compile = start.elapsed();
    drop(compiled);
    let start = Instant::now();
    let policy = toolgate::Policy::builder()
        .cache_dir(&cache)
        .build()
        .unwrap();
    let load = start.elapsed();
    let start = Instant::now();
    let first = policy.assess("execute_sql", r#"{"sql":"SELECT 1"}"#);
    let first_call = start.elapsed();
    assert_eq!(first.action, toolgate::Action::Allow);
    let start = Instant::now();
    let engine = policy.engine(&config).unwrap();
    let engine_create = start.elapsed();
    let _ = std::fs::remove_dir_all(&cache);
    let unbounded = toolgate::Policy::builder()
        .work_limit(toolgate::WorkLimit::None)
        .build()
        .unwrap();
    let unbounded_engine = unbounded.engine(&config).unwrap();
    let fueled = toolgate::Policy::builder()
        .work_limit(toolgate::WorkLimit::Fuel(toolgate::DEFAULT_FUEL))
        .build()
        .unwrap();
    let fueled_engine = fueled.engine(&config).unwrap();
    let native = toolgate_policy::Engine::from_json(&config).unwrap();

    println!("## Loading (wasmtime)\n");
    println!("| step | time |\n|---|---|");
    println!(
        "| compile the component (cold, no cache) | {:.0} ms |",
        compile.as_secs_f64() * 1e3
    );
    println!(
        "| load from the cache (memory-mapped) | {:.2} ms |",
        load.as_secs_f64() * 1e3
    );
    println!(
        "| instantiate + first decision | {:.2} ms |",
        first_call.as_secs_f64() * 1e3
    );
    println!(
        "| create an engine from the mix's config | {:.3} ms |",
        engine_create.as_secs_f64() * 1e3
    );

    println!("\n## Per call (µs, median of {rounds} rounds)\n");
    println!(
        "Time columns are µs per call; wasmtime runs with the default work limit (time, by epoch);"
    );
    println!("the last two columns show the same calls with a fuel budget and with no limit.\n");
    println!("| call | decision | native | wasmtime | ratio | with fuel | no limit |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    let (mut sum_native, mut sum_wasm, mut sum_unbounded, mut sum_fuel) = (0.0, 0.0, 0.0, 0.0);
    for call in &calls {
        let wasm_decision = engine.assess(&call.tool, &call.args);
        let native_decision = native.assess(&call.tool, &call.args);
        assert_eq!(
            wasm_decision.to_json(),
            serde_json::to_string(&native_decision).unwrap(),
            "{}: native and wasm disagree",
            call.name
        );
        let n = per_call(rounds, round, || {
            black_box(native.assess(black_box(&call.tool), black_box(&call.args)));
        });
        let w = per_call(rounds, round, || {
            black_box(engine.assess(black_box(&call.tool), black_box(&call.args)));
        });
        let u = per_call(rounds, round, || {
            black_box(unbounded_engine.assess(black_box(&call.tool), black_box(&call.args)));
        });
        let f = per_call(rounds, round, || {
            black_box(fueled_engine.assess(black_box(&call.tool), black_box(&call.args)));
        });
        sum_native += n;
        sum_wasm += w;
        sum_unbounded += u;
        sum_fuel += f;
        println!(
            "| {} | {:?} | {} | {} | {:.1}× | {} | {} |",
            call.name.replace('|', "\\|"),
            wasm_decision.action,
            us(n),
            us(w),
            w / n,
            us(f),
            us(u),
        );
    }
    let count = calls.len() as f64;
    println!(
        "| **mean of the mix** | | **{}** | **{}** | **{:.1}×** | **{}** | **{}** |",
        us(sum_native / count),
        us(sum_wasm / count),
        sum_wasm / sum_native,
        us(sum_fuel / count),
        us(sum_unbounded / count),
    );
    println!(
        "\nCost of the work limit over the mix: time {:+.0} %, fuel {:+.0} %.",
        (sum_wasm / sum_unbounded - 1.0) * 100.0,
        (sum_fuel / sum_unbounded - 1.0) * 100.0
    );

    // The fixed cost of a crossing, apart from any policy work: the cheapest
    // export (`version()`, a constant string) through the pool, the deadline
    // and the lifting of its result.
    let crossing = per_call(rounds, round, || {
        black_box(policy.version().unwrap());
    });
    println!(
        "\nFixed cost of a crossing (`version()` through the pool, default limit): {} µs.",
        us(crossing)
    );

    let pairs: Vec<(&str, &str)> = calls
        .iter()
        .map(|c| (c.tool.as_str(), c.args.as_str()))
        .collect();
    let batch = per_call(rounds, round, || {
        black_box(engine.assess_many(black_box(&pairs)));
    });
    println!(
        "\n`assess_many` over the whole mix: {} µs per batch, {} µs per call (one by one: {}).",
        us(batch),
        us(batch / count),
        us(sum_wasm / count)
    );

    println!("\n## Throughput (calls per second over the mix)\n");
    println!("| threads | native | wasmtime |\n|---:|---:|---:|");
    for threads in [1_usize, 2] {
        let run = |assess: &(dyn Fn(&str, &str) + Sync)| {
            let seconds = if quick { 0.2 } else { 2.0 };
            let start = Instant::now();
            let total = std::sync::atomic::AtomicU64::new(0);
            std::thread::scope(|scope| {
                for _ in 0..threads {
                    scope.spawn(|| {
                        let mut n = 0;
                        while start.elapsed().as_secs_f64() < seconds {
                            for call in &calls {
                                assess(&call.tool, &call.args);
                            }
                            n += calls.len() as u64;
                        }
                        total.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                    });
                }
            });
            total.into_inner() as f64 / start.elapsed().as_secs_f64()
        };
        let n = run(&|tool, args| {
            black_box(native.assess(tool, args));
        });
        let w = run(&|tool, args| {
            black_box(engine.assess(tool, args));
        });
        println!("| {threads} | {n:.0} | {w:.0} |");
    }
}
