//! Running seed 002 §4.2's multi-step plan through a gate, step by step.
//!
//! The component decides the plan ([`crate::Engine::assess_plan`]); this
//! runner only sequences it over the gate's public API. Before each step
//! the plan is decided again with every result known so far substituted,
//! and the step, now holding no reference, goes through [`Gate::run`] as
//! any call: decided afresh, asked about when the policy says so, run,
//! audited. So a person always approves the resolved call, never
//! `$step1.result.ident`. A step whose dependency did not succeed is
//! skipped; a step whose reference names what the result lacks is not
//! run. `host-js/src/plan.js` is this module's twin; the fixture
//! `tests/seeds/seed-002-plan.jsonl` holds both to the same runs.

use crate::gate::{Call, Gate, GateError, ToolResult};
use crate::runtime::Error;
use serde_json::{json, Map, Value};
use toolgate_shapes::plan::PlanStep;
use toolgate_shapes::records::Status;

/// What became of one step.
#[derive(Debug)]
pub enum StepOutcome {
    /// It went through the gate: ran, failed, was denied, rejected, …
    Ran(Box<ToolResult>),
    /// A step it needs did not succeed, so it was not offered to the gate.
    Skipped {
        /// The steps it needs that have no result.
        missing: Vec<u64>,
    },
    /// A reference names what its step's result does not hold: not run.
    Unresolved {
        /// The finding's message.
        reason: String,
    },
}

/// One step's run.
#[derive(Debug)]
pub struct StepRun {
    /// The step's number.
    pub step: u64,
    /// The tool it calls.
    pub tool: String,
    /// The arguments it was offered to the gate with (results substituted).
    pub args: String,
    /// What became of it.
    pub outcome: StepOutcome,
}

impl StepRun {
    /// The run as JSON both hosts write alike: `step`, `tool`, `status`
    /// (the gate's status, `skipped` or `unresolved`), `args` (what the
    /// tool received, else what the step was offered with), `output` and
    /// `reason`.
    pub fn summary(&self) -> Value {
        let (status, args, output, reason) = match &self.outcome {
            StepOutcome::Ran(result) => (
                result.status.as_str().to_owned(),
                result
                    .executed_args
                    .clone()
                    .unwrap_or_else(|| self.args.clone()),
                result.output.clone(),
                result.reason.clone().or_else(|| result.error.clone()),
            ),
            StepOutcome::Skipped { missing } => (
                String::from("skipped"),
                self.args.clone(),
                None,
                Some(format!(
                    "needs the result of step {}, which did not succeed",
                    missing
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            ),
            StepOutcome::Unresolved { reason } => (
                String::from("unresolved"),
                self.args.clone(),
                None,
                Some(reason.clone()),
            ),
        };
        json!({"step": self.step, "tool": self.tool, "status": status, "args": args,
               "output": output, "reason": reason})
    }
}

/// Why a plan could not be run.
#[derive(Debug, thiserror::Error)]
pub enum PlanRunError {
    /// The plan could not be read, or the component faulted.
    #[error(transparent)]
    Policy(#[from] Error),
    /// The gate could not take a step (its checkpoint or audit failed).
    #[error(transparent)]
    Gate(#[from] GateError),
}

/// Runs `plan` (JSON) through `gate`, step by step, in the caller's
/// `context` (JSON; `None` for none). `execute` runs one step's tool with
/// the arguments the gate clears (as [`Gate::run`]'s executor). A step's
/// result, for later references, is its output read as JSON, or as text
/// when it is not JSON.
pub fn run_plan(
    gate: &Gate,
    plan: &str,
    context: Option<&str>,
    mut execute: impl FnMut(&PlanStep, &str) -> Result<String, String>,
) -> Result<Vec<StepRun>, PlanRunError> {
    let mut results = Map::new();
    let mut runs = Vec::new();
    let count = gate
        .engine()
        .assess_plan(plan, "", context.unwrap_or(""))?
        .steps
        .len();
    for index in 0..count {
        let decided = gate.engine().assess_plan(
            plan,
            &Value::Object(results.clone()).to_string(),
            context.unwrap_or(""),
        )?;
        let Some(step) = decided.steps.into_iter().nth(index) else {
            break;
        };
        let missing: Vec<u64> = step
            .depends_on
            .iter()
            .copied()
            .filter(|d| !results.contains_key(&d.to_string()))
            .collect();
        let outcome = if !missing.is_empty() {
            StepOutcome::Skipped { missing }
        } else if let Some(finding) = step
            .decision
            .findings
            .iter()
            .find(|f| f.code == "plan.reference-missing" || f.code == "plan.unresolved")
        {
            StepOutcome::Unresolved {
                reason: finding.message.clone(),
            }
        } else {
            let mut call = Call::new(step.tool.clone(), step.args.clone());
            if let Some(id) = &step.call_id {
                call = call.call_id(id.clone());
            }
            if let Some(context) = context {
                call = call.context(context);
            }
            let result = gate.run(&call, |args| execute(&step, args))?;
            if result.status == Status::Executed {
                let output = result.output.clone().unwrap_or_default();
                let value = serde_json::from_str(&output).unwrap_or(Value::String(output));
                results.insert(step.step.to_string(), value);
            }
            StepOutcome::Ran(Box::new(result))
        };
        runs.push(StepRun {
            step: step.step,
            tool: step.tool,
            args: step.args,
            outcome,
        });
    }
    Ok(runs)
}
