//! Seed 002 §4.2's multi-step plans as the policy decides them: each step's
//! call with the results known so far substituted, the references still
//! waiting for a result, and the step's decision.

use crate::decision::{Action, Decision};
use serde::{Deserialize, Serialize};

/// A plan, decided step by step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanDecision {
    /// The plan's own text (`plan`), if it has one.
    pub plan: Option<String>,
    /// The strictest action of the steps: what the plan as a whole needs.
    pub action: Action,
    /// The steps in the order they run.
    pub steps: Vec<PlanStep>,
}

/// One step of a plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    /// The step's number (`step`).
    pub step: u64,
    /// The tool it calls (`function.name`).
    pub tool: String,
    /// The call's id (`id`), if it has one.
    pub call_id: Option<String>,
    /// The steps whose results it needs: those `depends_on` names and those
    /// its references name.
    pub depends_on: Vec<u64>,
    /// Why the model plans it (`reason`).
    pub reason: Option<String>,
    /// The arguments as JSON text, every reference whose result is known
    /// replaced by its value.
    pub args: String,
    /// The references still waiting for a result (`$step1.result.ident`):
    /// while any is left, the step is decided as holding unknown values and
    /// never allowed.
    pub unresolved: Vec<String>,
    /// The decision on `args`.
    pub decision: Decision,
}

impl PlanDecision {
    /// The canonical JSON form (the same in every runtime).
    pub fn to_json(&self) -> String {
        // Strings, numbers and enums only: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}
