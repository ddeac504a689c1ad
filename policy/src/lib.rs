//! toolgate's policy: decides whether an LLM tool call runs now (**allow**), waits
//! for a person (**confirm**) or never runs (**deny**), and says why.
//!
//! This crate is plain Rust with no knowledge of WebAssembly or hosts; the
//! `export` glue that turns it into the toolgate component is compiled only for
//! `wasm32`. Everything a host can do through the component can be done here
//! natively, with identical results (the conformance suite checks it).
//!
//! ```
//! use toolgate_policy::{Action, Engine};
//!
//! let engine = Engine::default();
//! let decision = engine.assess("execute_sql", r#"{"sql": "SELECT 1; DROP TABLE t"}"#);
//! assert_eq!(decision.action, Action::Confirm);
//! assert!(decision.has_finding("sql.destructive"));
//! ```
//!
//! # The public API
//!
//! The modules that do the work (the assessors, the rules, the records' codecs,
//! the registry tools' readers) are private; what a host or a user needs is
//! re-exported here, so a refactoring inside the policy changes no caller.
//!
//! - **Deciding**: [`Engine`] (built from a [`Config`] or its JSON/TOML text)
//!   answers [`Engine::assess`], [`Engine::assess_in`], [`Engine::assess_call`],
//!   a multi-step plan ([`Engine::decide_plan`]), a `toolgate check` line
//!   ([`Engine::check_line`]) and a coding agent's hook event
//!   ([`Engine::hook`]) with a [`Decision`] ([`Action`], [`Risk`], [`Source`],
//!   [`Finding`]s).
//! - **Reading calls**: [`parse_call`] (every wire format, [`CallFormat`]),
//!   [`strip_risk_level`], [`augment_tools`] (the `risk_level` parameter added
//!   to tool definitions), [`guidance`] (the prompt text, per [`Language`]).
//! - **Configuration**: [`config`] holds the configuration as plain data
//!   ([`Config`], [`config::ToolConfig`], the enums of its settings);
//!   [`layered`] merges managed, project and user layers.
//! - **Registry tools** (seed 002, the API registry: tools that are HTTP
//!   endpoints described in the configuration): [`discover()`], [`tool_prompt`],
//!   [`complete_args`], [`build_request`], [`read_response`],
//!   [`read_tool_response`], [`import_openapi`].
//! - **Approvals** (seed 004, the approval flow): [`Flow`] is one gate's flow
//!   (begin, settle, finish), [`Driver`] the same flow as the steps a host
//!   carries out; the records it writes are sealed and opened by
//!   [`seal_checkpoint`], [`open_checkpoint`], [`seal_audit`],
//!   [`seal_audit_keyed`], [`verify_audit`], [`verify_audit_keyed`],
//!   [`recheck`], [`config_hash`] and [`args_diff`].
//! - **Finding codes**: [`codes`] lists every stable code a decision can carry.
//! - **The assessors' own readings**, for programs that must agree with them
//!   (the oracles that run real programs, a host's confinement masks):
//!   [`readings`].
//!
//! "Seed 002" and "seed 004" are the origin design's documents on the API
//! registry and the approval flow; docs/seeds.md says what each asks and
//! where the policy differs.

mod args;
mod assess;
mod augment;
mod calls;
mod channel;
pub mod codes;
pub mod config;
mod configure;
mod context;
mod registry;
/// The decision model, defined in `toolgate-shapes` so hosts read it with the
/// same types.
mod decision {
    pub use toolgate_shapes::decision::*;
}
mod engine;
mod flow;
mod guidance;
mod hooks;
mod lines;
mod plan;
mod records;
mod rules;
mod selfprotect;
mod text;
mod toolname;

#[cfg(target_arch = "wasm32")]
#[allow(
    unsafe_code,
    reason = "the generated export glue declares the component's entry points with `export_name`"
)]
mod export;

pub use args::{strip_risk_level, ArgsError};
pub use augment::{augment_tools, augment_tools_as, AugmentError, Augmented, ToolFormat};
pub use calls::{parse_call, CallError, CallFormat, ToolCall};
pub use config::{Config, ConfigError, MediumRisk, ModelTrust};
pub use configure::layers::{layered, Layer, LayerText, Layered};
pub use context::{Context, ContextError};
pub use decision::{Action, Decision, Finding, Risk, Source};
pub use engine::Engine;
pub use flow::driver::Driver;
pub use flow::{Flow, FlowError, StepError};
pub use guidance::{guidance, Language};
pub use hooks::{unconfigured as hook_unconfigured, HookAnswer, Malformed, UnknownFormat};
pub use lines::CheckedLine;
pub use plan::{Plan, PlanDecision, PlanError, PlanStep};
pub use records::{
    args_diff, config_hash, open_checkpoint, recheck, recheck_json, seal_audit, seal_audit_keyed,
    seal_checkpoint, verify_audit, verify_audit_keyed, AuditError, AuditSummary, Change,
    CheckpointError, DiffError, Pending, Recheck,
};
pub use registry::openapi::{import_openapi, ImportError, Imported};
pub use registry::{
    build_request, complete_args, discover, read_response, read_tool_response, tool_prompt,
    ApiRequest, Candidate,
};

/// The assessors' own readings and tables, for programs that must agree with
/// them: the oracles that check an allow against the real program (the
/// command forms a grammar declares, the facts read from SQL) and a host's
/// confinement, which masks the same secret files the policy refuses to read.
pub mod readings {
    pub use crate::assess::command::forms::{
        declared, network, Declared, Operands, Options, Subcommand,
    };
    pub use crate::assess::facts::SqlFacts;
    pub use crate::assess::paths::secret_path;
    pub use crate::assess::secrets::{Match, SecretRule, SECRET_RULES};
    pub use crate::assess::sql::sql_facts;
}

/// The policy's version; also the version of its guidance text.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
