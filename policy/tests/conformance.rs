//! The conformance vectors, run on the policy crate natively.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

#[path = "../../tests/conformance/runner.rs"]
mod runner;

use toolgate_policy::Engine;

#[test]
fn conformance_native() {
    runner::run("native", |case| {
        let engine = match &case.config {
            Some(config) => Engine::from_json(config).expect("valid config"),
            None => Engine::default(),
        };
        engine.assess(&case.tool, &case.args).to_json()
    });
}
