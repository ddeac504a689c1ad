//! toolgate for Rust: runs the toolgate policy component with wasmtime.
//!
//! The policy itself is a WebAssembly component (built from `toolgate-policy` and
//! embedded in this crate); the same component runs in Node and in browsers, so
//! every runtime reaches the same decision on the same call. This crate loads it,
//! keeps the compiled form in a cache so that start-up takes milliseconds, and
//! answers `confirm` whenever the component faults, recovering with a fresh
//! instance.
//!
//! ```no_run
//! use toolgate::{Action, Policy};
//!
//! let policy = Policy::embedded()?;
//! let decision = policy.assess("execute_sql", r#"{"sql": "SELECT * FROM users"}"#);
//! assert_eq!(decision.action, Action::Allow);
//!
//! let strict = policy.engine(r#"{"denied_tools": ["execute_command"]}"#)?;
//! let decision = strict.assess("execute_command", r#"{"command": "ls"}"#);
//! assert_eq!(decision.action, Action::Deny);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod registry;
/// The registry tools' module under its former name.
#[deprecated(since = "0.2.0", note = "renamed `toolgate::registry`")]
pub mod api {
    pub use crate::registry::*;
}
/// Runs allowed command lines confined (`toolgate exec` and the command executor).
pub mod confine;
/// Layered configuration's shapes (see [`Policy::layer_config`]).
pub mod config {
    pub use toolgate_shapes::config::{Layer, LayerText, Layered};
}
mod bindings {
    wasmtime::component::bindgen!({
        world: "toolgate",
        path: "../wit",
    });
}

mod decision;
pub mod flow;
pub mod gate;
pub mod hooks;
mod lines;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod openapi;
pub mod plan;
mod records;
mod runtime;
pub mod seeds;

pub use decision::{
    Action, Augmented, CallFormat, Decision, Finding, Risk, Source, ToolCall, POLICY_FAULT,
};
pub use gate::{
    Answer, ApprovalRequest, Call, Checked, Event, ForModel, Gate, GateBuilder, GateError, Grant,
    GrantListing, Pending, Ready, Response, Scope, Status, ToolResult,
};
pub use lines::CheckedLine;
pub use records::{AuditError, AuditSummary, CheckpointError, CheckpointFailure};
pub use runtime::cache;
pub use runtime::cache::LoadSource;
pub use runtime::{
    Engine, Error, LoadError, Policy, PolicyBuilder, Stats, WorkLimit, DEFAULT_FUEL,
    DEFAULT_MAX_MEMORY, DEFAULT_WORK_LIMIT, POLICY_LIMIT,
};

/// The toolgate component embedded in this crate.
pub const COMPONENT: &[u8] = toolgate_component::COMPONENT;
