//! The decision as the host hands it to Rust callers: the shapes crate's
//! types (one definition for the policy and every Rust host), read from the
//! component's typed record by one conversion, plus the `confirm` the host
//! makes itself when the component gives no answer.
//!
//! The JSON form (field order, snake_case, `null` for an absent model risk) is the
//! one every runtime prints; the conformance suite compares it byte for byte.

use crate::bindings::exports::toolgate::policy::types as wit;
pub use toolgate_shapes::{Action, Decision, Finding, Risk, Source};

/// The finding code of a decision the host made because the policy faulted.
pub const POLICY_FAULT: &str = "policy.fault";

/// The decisions the host makes itself, when the component gave no answer
/// (a trait, because the type is the shapes crate's; `Decision::fault(..)`
/// reads as before wherever it is in scope).
pub(crate) trait HostDecision {
    /// The fail-closed answer when the component trapped or failed: confirm,
    /// so a person decides, and say that the policy itself faulted.
    fn fault(tool: &str, cause: &str) -> Decision;
    /// The answer when a call used up its work budget: confirm, and say so.
    fn over_limit(tool: &str) -> Decision;
}

impl HostDecision for Decision {
    fn fault(tool: &str, cause: &str) -> Decision {
        host_confirm(
            tool,
            POLICY_FAULT,
            format!("the policy faulted ({cause}); a person must decide"),
            "the policy faulted",
        )
    }

    fn over_limit(tool: &str) -> Decision {
        host_confirm(
            tool,
            crate::POLICY_LIMIT,
            String::from(
                "the call was too expensive to assess within the policy's work limit; \
                 a person must decide",
            ),
            "too expensive to assess",
        )
    }
}

/// A `confirm` the host makes itself, when the policy gave no answer.
fn host_confirm(tool: &str, code: &str, message: String, why: &str) -> Decision {
    Decision {
        action: Action::Confirm,
        risk: Risk::Medium,
        source: Source::Default,
        llm_risk: None,
        findings: vec![Finding {
            code: code.to_owned(),
            message,
        }],
        summary: format!("{} — {why}; needs confirmation", one_line(tool, 60)),
    }
}

/// `text` on one line (control characters and whitespace runs become one
/// space), at most `max` characters, `…` marking a cut: a summary stays one line
/// whatever the model named its tool.
fn one_line(text: &str, max: usize) -> String {
    let flat = text
        .split(|c: char| c.is_control() || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", flat.get(..cut).unwrap_or(&flat)),
        None => flat,
    }
}

/// A bindings enum's case as the toolgate-shapes enum of the same WIT type:
/// the bindings number the cases in the WIT's order (`repr(u8)`), the shapes
/// list them in that order in `ALL`, and `shapes/tests/wit.rs` holds the two
/// equal, so a case added to the WIT and the shapes needs no edit here.
/// `None` only if they disagree.
pub(crate) fn by_case<S: Copy>(all: &[S], case: u8) -> Option<S> {
    all.get(usize::from(case)).copied()
}

impl From<wit::Decision> for Decision {
    fn from(d: wit::Decision) -> Decision {
        let read = || -> Option<Decision> {
            Some(Decision {
                action: by_case(&Action::ALL, d.action as u8)?,
                risk: by_case(&Risk::ALL, d.risk as u8)?,
                source: by_case(&Source::ALL, d.source as u8)?,
                llm_risk: match &d.llm_risk {
                    Some(risk) => Some(by_case(&Risk::ALL, *risk as u8)?),
                    None => None,
                },
                findings: d
                    .findings
                    .iter()
                    .map(|f| Finding {
                        code: f.code.clone(),
                        message: f.message.clone(),
                    })
                    .collect(),
                summary: d.summary.clone(),
            })
        };
        // The bindings and the shapes are generated from one WIT and held
        // equal by a test; were they ever not, the host cannot read the
        // decision, and a decision it cannot read is a fault, never an allow.
        read().unwrap_or_else(|| {
            Decision::fault(
                "(tool call)",
                "a decision the host cannot read (the WIT and the shapes disagree)",
            )
        })
    }
}

pub use toolgate_shapes::calls::{Augmented, CallFormat, ToolCall};

impl From<wit::ToolCall> for ToolCall {
    fn from(c: wit::ToolCall) -> ToolCall {
        ToolCall {
            // A call the host cannot name the format of is read as plain: the
            // format is a label, the decision never depends on it.
            format: by_case(&CallFormat::ALL, c.format as u8).unwrap_or(CallFormat::Plain),
            tool: c.tool,
            args: c.args,
            id: c.id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_summaries_stay_one_line() {
        let d = Decision::fault("evil\ntool\u{7}name", "trap");
        assert_eq!(
            d.summary,
            "evil tool name — the policy faulted; needs confirmation"
        );
        assert_eq!(
            one_line(&"x".repeat(70), 60),
            format!("{}…", "x".repeat(60))
        );
        assert_eq!(
            (d.action, d.findings[0].code.as_str()),
            (Action::Confirm, POLICY_FAULT)
        );
    }
}
