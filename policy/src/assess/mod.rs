//! The code layer: one assessor per kind of tool.
//!
//! An assessor answers one question, "is this call *proven* read-only?", and a
//! second, narrower one, "is it *positively* destructive?". Allow comes only from
//! the first; the second exists only to build the guarded floor and better
//! explanations. Nothing here enumerates dangerous operations in order to allow
//! the rest.

use crate::context::Context;
use crate::decision::{Finding, Source};
use serde_json::{Map, Value};

pub mod command;
pub mod egress;
pub mod facts;
pub mod file;
pub mod http;
pub mod mcp;
pub mod overrides;
pub mod paths;
pub mod registry;
pub mod secrets;
pub mod sql;
pub mod sql_floor;
pub mod urls;

/// What the code layer could prove about a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every part of the call was understood and is read-only.
    ReadOnly,
    /// Not proven either way: a person should look.
    Unproven,
    /// Positively identified as destroying data or stopping a system.
    Destructive,
}

/// An assessor's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assessment {
    /// What could be proven.
    pub verdict: Verdict,
    /// A short description of the operation for summaries (the SQL, the command
    /// line, `GET https://…`), not yet shortened.
    pub operation: String,
    /// The reasons, most important first.
    pub findings: Vec<Finding>,
    /// Set when the assessor requires the call to be denied (a disabled registry
    /// tool, a permission the user lacks): the reason.
    pub deny: Option<Finding>,
    /// The source a read-only verdict is reported under (`whitelist` for the
    /// built-in proofs, `registry` for registry and MCP tools).
    pub proof: Source,
}

impl Assessment {
    /// An assessment with no findings yet.
    pub fn new(verdict: Verdict, operation: impl Into<String>) -> Assessment {
        Assessment {
            verdict,
            operation: operation.into(),
            findings: Vec::new(),
            deny: None,
            proof: Source::Whitelist,
        }
    }

    /// An assessment whose verdict is `verdict` with a single finding.
    pub fn single(verdict: Verdict, operation: impl Into<String>, finding: Finding) -> Assessment {
        let mut assessment = Assessment::new(verdict, operation);
        assessment.findings.push(finding);
        assessment
    }
}

/// One kind of tool's risk assessment. Implementations never panic and bound
/// their work by the size of their input.
pub trait Assessor {
    /// Assesses a call's arguments (already known to be a JSON object) in the
    /// caller's context.
    fn assess(&self, args: &Map<String, Value>, context: &Context) -> Assessment;

    /// What the assessor parsed, for the rules people write (see
    /// [`facts`]). Built only when a rule or a mode needs it; the default,
    /// no facts, lets only rules that name the tool alone apply.
    fn facts(&self, args: &Map<String, Value>) -> facts::Facts {
        let _ = args;
        facts::Facts::None
    }

    /// The argument names this assessor's proof covers: those it reads and
    /// those known to change nothing a tool does ([`HARMLESS_FIELDS`]). A call
    /// holding any other argument (`env`, `cwd`, `proxy`, `stdin`, …) is never
    /// proven by it: the tool may act on what the proof never read. `None`
    /// for assessors that judge every argument themselves (registry tools by
    /// their schemas, MCP tools by their argument names).
    fn fields(&self) -> Option<Vec<&str>> {
        None
    }
}

/// Arguments that change nothing a tool does, whatever tool: a note for
/// people, a time limit, the model's own rating.
pub const HARMLESS_FIELDS: &[&str] = &[
    "description",
    "timeout",
    "timeout_ms",
    crate::args::RISK_LEVEL,
];

/// The first argument of `args` that `assessor`'s proof does not cover, if
/// any (see [`Assessor::fields`]).
pub fn unknown_field<'a>(
    assessor: &(dyn Assessor + Send + Sync),
    args: &'a Map<String, Value>,
) -> Option<&'a str> {
    let fields = assessor.fields()?;
    args.keys()
        .map(String::as_str)
        .find(|k| !fields.contains(k) && !HARMLESS_FIELDS.contains(k))
}

/// Combines part verdicts: destructive beats unproven beats read-only, so one
/// destructive statement or segment marks the whole call.
pub fn combine(a: Verdict, b: Verdict) -> Verdict {
    use Verdict::*;
    match (a, b) {
        (Destructive, _) | (_, Destructive) => Destructive,
        (Unproven, _) | (_, Unproven) => Unproven,
        (ReadOnly, ReadOnly) => ReadOnly,
    }
}
