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

pub mod api;
pub mod args;
pub mod assess;
pub mod augment;
pub mod calls;
pub mod channel;
pub mod codes;
pub mod config;
pub mod context;
/// The decision model, defined in `toolgate-shapes` so hosts read it with the
/// same types.
pub mod decision {
    pub use toolgate_shapes::decision::*;
}
mod engine;
pub mod gate;
pub mod guidance;
pub mod hooks;
pub mod lines;
pub mod plan;
pub mod records;
pub mod rules;
pub mod selfprotect;
pub mod text;
pub mod toolname;

#[cfg(target_arch = "wasm32")]
#[allow(
    unsafe_code,
    reason = "the generated export glue declares the component's entry points with `export_name`"
)]
mod export;

pub use api::{build_request, read_response, ApiRequest, Candidate};
pub use args::{strip_risk_level, ArgsError};
pub use augment::{augment_tools, augment_tools_as, AugmentError, Augmented, ToolFormat};
pub use calls::{parse_call, CallError, CallFormat, ToolCall};
pub use config::{Config, ConfigError, MediumRisk, ModelTrust};
pub use context::{Context, ContextError};
pub use decision::{Action, Decision, Finding, Risk, Source};
pub use engine::Engine;
pub use guidance::{guidance, Language};
pub use hooks::{HookAnswer, Malformed, UnknownFormat};
pub use lines::CheckedLine;
pub use records::{
    args_diff, open_checkpoint, seal_audit, seal_checkpoint, verify_audit, AuditError,
    AuditSummary, Change, CheckpointError, DiffError, Pending,
};

/// The policy's version; also the version of its guidance text.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
