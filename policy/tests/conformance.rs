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

use runner::Runtime;
use toolgate_policy::Engine;

struct Native;

fn engine(config: Option<&str>) -> Engine {
    match config {
        Some(config) => Engine::from_text(config).expect("valid config"),
        None => Engine::default(),
    }
}

impl Runtime for Native {
    fn assess(
        &self,
        config: Option<&str>,
        context: Option<&str>,
        tool: &str,
        args: &str,
    ) -> String {
        match context {
            None => engine(config).assess(tool, args).to_json(),
            Some(context) => engine(config).assess_in(tool, args, context).to_json(),
        }
    }

    fn parse_call(&self, call: &str) -> Result<String, String> {
        toolgate_policy::parse_call(call)
            .map(|c| c.to_json())
            .map_err(|e| e.to_string())
    }

    fn assess_call(&self, config: Option<&str>, call: &str) -> String {
        engine(config).assess_call(call).to_json()
    }

    fn augment(
        &self,
        config: Option<&str>,
        tools: &str,
        format: Option<&str>,
    ) -> Result<(String, Vec<String>), String> {
        engine(config)
            .augment_tools_as(tools, format)
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
        let found =
            toolgate_policy::discover(engine(config).config(), intent, category, limit as usize);
        serde_json::to_string(&found).unwrap()
    }

    fn tool_prompt(&self, config: Option<&str>, tools: &[String], language: &str) -> String {
        toolgate_policy::tool_prompt(
            engine(config).config(),
            tools,
            toolgate_policy::Language::from_tag(language),
        )
    }

    fn build_request(
        &self,
        config: Option<&str>,
        tool: &str,
        args: &str,
    ) -> Result<String, String> {
        toolgate_policy::build_request(engine(config).config(), tool, args)
            .map(|request| serde_json::to_string(&request).unwrap())
            .map_err(|findings| serde_json::to_string(&findings).unwrap())
    }

    fn read_response(
        &self,
        config: Option<&str>,
        tool: Option<&str>,
        status: u16,
        body: &str,
    ) -> Result<String, String> {
        match tool {
            Some(tool) => {
                toolgate_policy::read_tool_response(engine(config).config(), tool, status, body)
            }
            None => toolgate_policy::read_response(status, body),
        }
    }

    fn import_openapi(&self, spec: &str, options: &str) -> Result<String, String> {
        toolgate_policy::import_openapi(spec, options)
            .map(|imported| serde_json::to_string(&imported).unwrap())
            .map_err(|e| e.to_string())
    }
}

#[test]
fn conformance_native() {
    runner::run("native", &Native);
}
