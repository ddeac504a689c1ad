//! The conformance vectors, run through the component in wasmtime.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

#[path = "../../tests/conformance/runner.rs"]
mod runner;

use toolgate::Policy;

#[test]
fn conformance_wasmtime() {
    let policy = Policy::embedded().expect("the embedded component loads");
    runner::run("wasmtime", |case| match &case.config {
        // Cases without a configuration go through the component's free
        // `assess`, those with one through an engine resource: both paths run.
        None => policy.assess(&case.tool, &case.args).to_json(),
        Some(config) => policy
            .engine(config)
            .expect("valid config")
            .assess(&case.tool, &case.args)
            .to_json(),
    });
}
