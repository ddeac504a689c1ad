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

    fn discover(
        &self,
        config: Option<&str>,
        intent: &str,
        category: Option<&str>,
        limit: u32,
    ) -> String {
        let found = self
            .engine(config)
            .discover(intent, category, limit)
            .unwrap();
        format!(
            "[{}]",
            found
                .iter()
                .map(|c| c.to_json())
                .collect::<Vec<_>>()
                .join(",")
        )
    }

    fn tool_prompt(&self, config: Option<&str>, tools: &[String], language: &str) -> String {
        self.engine(config).tool_prompt(tools, language).unwrap()
    }

    fn build_request(
        &self,
        config: Option<&str>,
        tool: &str,
        args: &str,
    ) -> Result<String, String> {
        match self.engine(config).build_request(tool, args) {
            Ok(request) => Ok(request.to_json()),
            Err(toolgate::registry::RequestError::Refused(findings)) => {
                Err(serde_json::to_string(&findings).unwrap())
            }
            Err(other) => panic!("{other}"),
        }
    }

    fn read_response(
        &self,
        config: Option<&str>,
        tool: Option<&str>,
        status: u16,
        body: &str,
    ) -> Result<String, String> {
        match tool {
            Some(tool) => self
                .engine(config)
                .read_tool_response(tool, status, body)
                .unwrap(),
            None => self.0.read_response(status, body).unwrap(),
        }
    }

    fn import_openapi(&self, spec: &str, options: &str) -> Result<String, String> {
        self.0.import_openapi(spec, options).unwrap()
    }
}

#[test]
fn conformance_wasmtime() {
    let policy = Policy::embedded().expect("the embedded component loads");
    runner::run("wasmtime", &Wasmtime(policy));
}
