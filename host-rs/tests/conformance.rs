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

use runner::Runtime;
use toolgate::{Engine, Policy};

struct Wasmtime(Policy);

impl Wasmtime {
    fn engine(&self, config: Option<&str>) -> Engine {
        self.0.engine(config.unwrap_or("{}")).expect("valid config")
    }
}

impl Runtime for Wasmtime {
    fn assess(
        &self,
        config: Option<&str>,
        context: Option<&str>,
        tool: &str,
        args: &str,
    ) -> String {
        match (config, context) {
            // Cases without a configuration go through the component's free
            // `assess`, those with one through an engine resource: both paths run.
            (None, None) => self.0.assess(tool, args).to_json(),
            (_, None) => self.engine(config).assess(tool, args).to_json(),
            (_, Some(context)) => self.engine(config).assess_in(tool, args, context).to_json(),
        }
    }

    fn parse_call(&self, call: &str) -> Result<String, String> {
        self.0
            .parse_call(call)
            .map(|c| c.to_json())
            .map_err(|e| e.to_string())
    }

    fn assess_call(&self, config: Option<&str>, call: &str) -> String {
        self.engine(config).assess_call(call).to_json()
    }

    fn augment(
        &self,
        config: Option<&str>,
        tools: &str,
        format: Option<&str>,
    ) -> Result<(String, Vec<String>), String> {
        self.engine(config)
            .augment_tools(tools, format)
            .map(|a| (a.tools, a.notes))
            .map_err(|e| e.to_string())
    }
}

#[test]
fn conformance_wasmtime() {
    let policy = Policy::embedded().expect("the embedded component loads");
    runner::run("wasmtime", &Wasmtime(policy));
}
