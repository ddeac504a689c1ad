//! The shapes toolgate's policy and its hosts exchange, defined once.
//!
//! Every shape here crosses the component boundary as JSON text (or, for the
//! decision, also as a WIT record) and is read by the Rust host with these
//! same types, so no host keeps a copy that could drift. The crate holds
//! nothing but serde definitions: it is compiled into the browser component,
//! so parsers and tables belong in the policy.

pub mod registry;
/// The registry tools' shapes under their former module name.
#[deprecated(since = "0.2.0", note = "renamed `toolgate_shapes::registry`")]
pub mod api {
    pub use crate::registry::*;
}
pub mod calls;
pub mod cli;
pub mod config;
pub mod decision;
pub mod gate;
pub mod grants;
pub mod hooks;
pub mod jsonl;
pub mod plan;
pub mod records;
pub mod rules;

pub use decision::{Action, Decision, Finding, Risk, Source};
