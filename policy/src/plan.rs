//! Seed 002 §4.2's multi-step plans: a `plan` and its `tool_calls`, each
//! with a `step`, the steps it `depends_on`, its `function` (`name`,
//! `arguments`) and a `reason`; an argument may hold a reference to an
//! earlier step's result (`$step1.result.ident`).
//!
//! Each step is decided as its own call, with the results known so far
//! substituted. A reference whose result is not known is an unknown value:
//! the step is never allowed in that form (`plan.unresolved`, and
//! `plan.reference-path` when the value would choose a registry tool's
//! path), only confirmed or denied; whoever runs the plan decides it again
//! once the result is in, so an approval is always of the resolved call,
//! never of a placeholder a later result could fill with anything. A result
//! substituted into a string is its text, and the string is read whole: a
//! command line that a result completes is judged as the line it becomes.
//!
//! What the reader refuses (the plan is then not decided at all): no
//! `tool_calls`, a step number used twice, a dependency or reference on a
//! step that does not run before it, a `$step…` that is not a reference in
//! the form above, more than [`MAX_STEPS`] steps.

use crate::codes;
use crate::context::Context;
use crate::decision::{Action, Decision, Finding, Source};
use crate::text::preview;
use crate::Engine;
use serde_json::{Map, Value};

pub use toolgate_shapes::plan::{PlanDecision, PlanStep};

/// The most steps a plan may have: far above a model's plan, far below what
/// would make a decision slow.
pub const MAX_STEPS: usize = 64;

/// Why a plan could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("plan: {0}")]
pub struct PlanError(pub String);

fn bad(message: impl Into<String>) -> PlanError {
    PlanError(message.into())
}

/// One segment of a reference's path into a result.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// A reference found in a string: its text, the step and the path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reference {
    start: usize,
    end: usize,
    step: u64,
    path: Vec<Segment>,
}

/// A step as read.
#[derive(Debug, Clone)]
struct Step {
    number: u64,
    id: Option<String>,
    tool: String,
    args: Map<String, Value>,
    depends_on: Vec<u64>,
    reason: Option<String>,
}

/// A plan as read, its steps in order.
#[derive(Debug, Clone)]
pub struct Plan {
    text: Option<String>,
    steps: Vec<Step>,
}

/// The references in `text`, in order. A `$step` followed by digits must be
/// a whole reference: `$stepN.result`, then `.key` or `[index]` segments.
fn references(text: &str) -> Result<Vec<Reference>, PlanError> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text.get(from..).and_then(|rest| rest.find("$step")) {
        let start = from + at;
        let after = start + "$step".len();
        let digits = text
            .get(after..)
            .unwrap_or_default()
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if digits == 0 {
            from = after;
            continue;
        }
        let number = text.get(after..after + digits).unwrap_or_default();
        let step: u64 = number
            .parse()
            .map_err(|_| bad(format!("`$step{}` is no step number", preview(number, 20))))?;
        let mut end = after + digits;
        if !text.get(end..).unwrap_or_default().starts_with(".result") {
            return Err(bad(format!(
                "`{}` is not a reference toolgate reads: write `$step{step}.result`, then `.key` or `[index]`",
                preview(text.get(start..).unwrap_or_default(), 40)
            )));
        }
        end += ".result".len();
        let mut path = Vec::new();
        loop {
            let rest = text.get(end..).unwrap_or_default();
            if let Some(key) = rest.strip_prefix('.') {
                let len = key
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
                    .count();
                if len == 0 {
                    break;
                }
                path.push(Segment::Key(key.get(..len).unwrap_or_default().to_owned()));
                end += 1 + len;
            } else if let Some(index) = rest.strip_prefix('[') {
                let len = index.bytes().take_while(u8::is_ascii_digit).count();
                if len == 0 || index.as_bytes().get(len) != Some(&b']') {
                    break;
                }
                let i: usize = index
                    .get(..len)
                    .unwrap_or_default()
                    .parse()
                    .map_err(|_| bad("an index of a reference is too large"))?;
                path.push(Segment::Index(i));
                end += 2 + len;
            } else {
                break;
            }
        }
        found.push(Reference {
            start,
            end,
            step,
            path,
        });
        from = end;
    }
    Ok(found)
}

/// Every string in `value` (object keys are names, not values: not read).
fn strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Whether a JSON value is written as a plan: an object with `tool_calls`
/// and either a `plan` or a call with a `step` or `depends_on`.
pub fn is_plan(value: &Value) -> bool {
    let Some(calls) = value.get("tool_calls").and_then(Value::as_array) else {
        return false;
    };
    value.get("plan").is_some()
        || calls
            .iter()
            .any(|c| c.get("step").is_some() || c.get("depends_on").is_some())
}

impl Plan {
    /// Reads a plan from JSON text.
    pub fn from_json(text: &str) -> Result<Plan, PlanError> {
        let value: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        Plan::from_value(&value)
    }

    /// Reads a plan from its JSON value.
    pub fn from_value(value: &Value) -> Result<Plan, PlanError> {
        let Some(top) = value.as_object() else {
            return Err(bad("expected an object with `tool_calls`"));
        };
        let text = match top.get("plan") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(bad("`plan` must be text")),
        };
        let calls = match top.get("tool_calls") {
            Some(Value::Array(calls)) if !calls.is_empty() => calls,
            _ => return Err(bad("`tool_calls` must be a list of at least one call")),
        };
        if calls.len() > MAX_STEPS {
            return Err(bad(format!(
                "{} steps; a plan has at most {MAX_STEPS}",
                calls.len()
            )));
        }
        let mut steps: Vec<Step> = Vec::with_capacity(calls.len());
        for (i, call) in calls.iter().enumerate() {
            let at = format!("tool_calls[{i}]");
            let Some(call) = call.as_object() else {
                return Err(bad(format!("`{at}` must be an object")));
            };
            let number = match call.get("step") {
                None => u64::try_from(i + 1).unwrap_or(u64::MAX),
                Some(v) => v
                    .as_u64()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| bad(format!("`{at}.step` must be a positive integer")))?,
            };
            if steps.iter().any(|s| s.number == number) {
                return Err(bad(format!("step {number} is numbered twice")));
            }
            let function = call
                .get("function")
                .and_then(Value::as_object)
                .ok_or_else(|| bad(format!("`{at}.function` must be an object")))?;
            let tool = match function.get("name") {
                Some(Value::String(name)) if !name.is_empty() => name.clone(),
                _ => return Err(bad(format!("`{at}.function.name` must name the tool"))),
            };
            // Arguments as an object (seed 002) or as JSON text (OpenAI).
            let args = match function.get("arguments") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(map)) => map.clone(),
                Some(Value::String(text)) => match serde_json::from_str(text) {
                    Ok(Value::Object(map)) => map,
                    _ => {
                        return Err(bad(format!(
                            "`{at}.function.arguments` is not a JSON object"
                        )))
                    }
                },
                Some(_) => return Err(bad(format!("`{at}.function.arguments` must be an object"))),
            };
            let id = match call.get("id") {
                None | Some(Value::Null) => None,
                Some(Value::String(id)) => Some(id.clone()),
                Some(_) => return Err(bad(format!("`{at}.id` must be text"))),
            };
            let reason = match call.get("reason") {
                None | Some(Value::Null) => None,
                Some(Value::String(r)) => Some(r.clone()),
                Some(_) => return Err(bad(format!("`{at}.reason` must be text"))),
            };
            let mut depends_on = Vec::new();
            match call.get("depends_on") {
                None | Some(Value::Null) => {}
                Some(Value::Array(items)) => {
                    for item in items {
                        let n = item.as_u64().ok_or_else(|| {
                            bad(format!("`{at}.depends_on` must list step numbers"))
                        })?;
                        if !depends_on.contains(&n) {
                            depends_on.push(n);
                        }
                    }
                }
                Some(_) => return Err(bad(format!("`{at}.depends_on` must be a list"))),
            }
            // A reference is a dependency too: the result must exist first.
            let mut texts = Vec::new();
            for value in args.values() {
                strings(value, &mut texts);
            }
            for text in texts {
                for reference in references(text)? {
                    if !depends_on.contains(&reference.step) {
                        depends_on.push(reference.step);
                    }
                }
            }
            for dependency in &depends_on {
                if !steps.iter().any(|s| s.number == *dependency) {
                    return Err(bad(format!(
                        "step {number} needs step {dependency}, which does not run before it"
                    )));
                }
            }
            steps.push(Step {
                number,
                id,
                tool,
                args,
                depends_on,
                reason,
            });
        }
        Ok(Plan { text, steps })
    }
}

/// The value a reference names in a result, if the result holds it.
fn follow<'a>(result: &'a Value, path: &[Segment]) -> Option<&'a Value> {
    path.iter()
        .try_fold(result, |value, segment| match segment {
            Segment::Key(key) => value.get(key.as_str()),
            Segment::Index(i) => value.as_array().and_then(|items| items.get(*i)),
        })
}

/// What substituting the known results into a step found.
#[derive(Default)]
struct Substituted {
    /// References whose step has no result yet.
    unresolved: Vec<String>,
    /// References whose step's result does not hold what they name.
    missing: Vec<String>,
}

/// `value` with every reference whose result is known replaced: a string
/// that is one reference becomes the value itself; a reference inside a
/// longer string becomes its text (a string bare, anything else as JSON).
fn substitute(value: &Value, results: &Map<String, Value>, found: &mut Substituted) -> Value {
    match value {
        Value::String(text) => {
            let Ok(refs) = references(text) else {
                return value.clone();
            };
            if refs.is_empty() {
                return value.clone();
            }
            let mut resolved = Vec::with_capacity(refs.len());
            for r in &refs {
                let written = text.get(r.start..r.end).unwrap_or_default().to_owned();
                match results.get(&r.step.to_string()) {
                    None => found.unresolved.push(written),
                    Some(result) => match follow(result, &r.path) {
                        Some(v) => resolved.push(v.clone()),
                        None => found.missing.push(written),
                    },
                }
            }
            if resolved.len() < refs.len() {
                return value.clone();
            }
            if let ([r], [one]) = (refs.as_slice(), resolved.as_slice()) {
                if r.start == 0 && r.end == text.len() {
                    return one.clone();
                }
            }
            let mut out = String::new();
            let mut last = 0;
            for (r, value) in refs.iter().zip(resolved) {
                out.push_str(text.get(last..r.start).unwrap_or_default());
                match value {
                    Value::String(s) => out.push_str(&s),
                    other => out.push_str(&other.to_string()),
                }
                last = r.end;
            }
            out.push_str(text.get(last..).unwrap_or_default());
            Value::String(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| substitute(v, results, found))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), substitute(v, results, found)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `decision` held back by `finding`: never an allow, the finding first.
fn hold(tool: &str, decision: &mut Decision, finding: Finding) {
    if decision.action == Action::Allow {
        decision.action = Action::Confirm;
        decision.source = Source::Default;
        decision.summary = format!(
            "{} — {}; needs confirmation",
            preview(tool, 60),
            preview(&finding.message, 200)
        );
    }
    decision.findings.insert(0, finding);
}

fn strictest(a: Action, b: Action) -> Action {
    match (a, b) {
        (Action::Deny, _) | (_, Action::Deny) => Action::Deny,
        (Action::Confirm, _) | (_, Action::Confirm) => Action::Confirm,
        _ => Action::Allow,
    }
}

/// Reads the results known so far: a JSON object from step numbers (as
/// text) to each step's result. Empty text is none.
fn read_results(text: &str, plan: &Plan) -> Result<Map<String, Value>, PlanError> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    let Ok(Value::Object(results)) = serde_json::from_str::<Value>(text) else {
        return Err(bad(
            "the results must be a JSON object from step numbers to results",
        ));
    };
    for key in results.keys() {
        let known = key
            .parse::<u64>()
            .is_ok_and(|n| plan.steps.iter().any(|s| s.number == n) && n.to_string() == *key);
        if !known {
            return Err(bad(format!(
                "a result for `{}`, which is no step of the plan",
                preview(key, 20)
            )));
        }
    }
    Ok(results)
}

impl Engine {
    /// Decides every step of a plan (JSON text) with the results known so
    /// far (`results`: JSON, step number → result; empty for none) in the
    /// caller's context (JSON, as [`Engine::assess_in`]); see the module.
    pub fn assess_plan(
        &self,
        plan: &str,
        results: &str,
        context: &str,
    ) -> Result<PlanDecision, PlanError> {
        let plan = Plan::from_json(plan)?;
        let results = read_results(results, &plan)?;
        let context = Context::from_json(context).map_err(|e| bad(e.to_string()))?;
        Ok(self.decide_plan(&plan, &results, &context))
    }

    /// [`Engine::assess_plan`] for a plan and results already read.
    pub fn decide_plan(
        &self,
        plan: &Plan,
        results: &Map<String, Value>,
        context: &Context,
    ) -> PlanDecision {
        let mut action = Action::Allow;
        let mut steps = Vec::with_capacity(plan.steps.len());
        for step in &plan.steps {
            let mut found = Substituted::default();
            let args = match substitute(&Value::Object(step.args.clone()), results, &mut found) {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            let text = Value::Object(args).to_string();
            let mut decision = self.assess_in_context(&step.tool, &text, context);
            if let Some(first) = found.missing.first() {
                hold(
                    &step.tool,
                    &mut decision,
                    Finding::new(
                        codes::PLAN_REFERENCE_MISSING,
                        format!(
                            "`{}` names what the step's result does not hold",
                            preview(first, 60)
                        ),
                    ),
                );
            }
            // A path parameter whose value is still a reference.
            let path = self
                .config()
                .tools
                .get(&step.tool)
                .and_then(|t| t.url.as_deref())
                .map(crate::assess::registry::path_params)
                .unwrap_or_default()
                .into_iter()
                .find(|name| {
                    step.args.get(name).is_some_and(|v| {
                        let mut texts = Vec::new();
                        strings(v, &mut texts);
                        texts.iter().any(|t| {
                            references(t).is_ok_and(|refs| {
                                refs.iter()
                                    .any(|r| !results.contains_key(&r.step.to_string()))
                            })
                        })
                    })
                });
            if let Some(name) = path {
                hold(
                    &step.tool,
                    &mut decision,
                    Finding::new(
                        codes::PLAN_REFERENCE_PATH,
                        format!(
                            "the path parameter `{}` comes from a result not known yet: which resource the call reaches is unknown",
                            preview(&name, 40)
                        ),
                    ),
                );
            }
            if let Some(first) = found.unresolved.first() {
                hold(
                    &step.tool,
                    &mut decision,
                    Finding::new(
                        codes::PLAN_UNRESOLVED,
                        format!(
                            "`{}` is not known until its step has run: the step is decided again then, and never allowed before",
                            preview(first, 60)
                        ),
                    ),
                );
            }
            action = strictest(action, decision.action);
            steps.push(PlanStep {
                step: step.number,
                tool: step.tool.clone(),
                call_id: step.id.clone(),
                depends_on: step.depends_on.clone(),
                reason: step.reason.clone(),
                args: text,
                unresolved: found.unresolved,
                decision,
            });
        }
        PlanDecision {
            plan: plan.text.clone(),
            action,
            steps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Seed 002 §4.2's plan, as written.
    const SEED_PLAN: &str = r#"{
      "plan": "为了完成用户请求，我需要：1) 查询目标主机信息 2) 创建告警屏蔽",
      "tool_calls": [
        {"step": 1, "function": {"name": "target_query", "arguments": { "query": "host-01" }}, "reason": "先确认主机存在"},
        {"step": 2, "depends_on": [1], "function": {"name": "alert_mute_create", "arguments": { "targets": ["$step1.result.ident"], "duration": 7200 }}, "reason": "为该主机创建屏蔽规则"}
      ]
    }"#;

    fn engine() -> Engine {
        Engine::from_text(
            r#"{"profile": "seeds", "tools": [
                {"name": "target_query", "method": "GET", "url_pattern": "/api/n9e/targets", "risk_level": 1},
                {"name": "alert_mute_create", "method": "POST", "url_pattern": "/api/n9e/busi-group/{group_id}/alert-mutes", "risk_level": 2},
                {"name": "target_get", "method": "GET", "url_pattern": "/api/n9e/target/{ident}", "risk_level": 1}
            ]}"#,
        )
        .unwrap_or_default()
    }

    fn codes(d: &Decision) -> Vec<&str> {
        d.findings.iter().map(|f| f.code.as_str()).collect()
    }

    #[test]
    fn references_are_read_whole_or_refused() {
        let refs =
            references("x $step1.result.items[0].ident y $step12.result").unwrap_or_default();
        assert_eq!(refs.len(), 2);
        assert_eq!(
            refs.first().map(|r| r.path.clone()),
            Some(vec![
                Segment::Key("items".into()),
                Segment::Index(0),
                Segment::Key("ident".into())
            ])
        );
        assert_eq!(refs.get(1).map(|r| r.step), Some(12));
        assert!(references("$step1.ident").is_err());
        assert!(references("$step99999999999999999999999.result").is_err());
        assert_eq!(references("$steps and $step").map(|r| r.len()), Ok(0));
    }

    #[test]
    fn the_seed_s_plan_before_and_after_step_1() {
        let engine = engine();
        let before = engine
            .assess_plan(SEED_PLAN, "", "")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(before.steps.len(), 2);
        let [one, two] = &before.steps[..] else {
            panic!("two steps")
        };
        assert_eq!(one.decision.action, Action::Allow);
        assert_eq!(two.unresolved, ["$step1.result.ident"]);
        assert_eq!(two.decision.action, Action::Confirm);
        assert_eq!(codes(&two.decision).first(), Some(&codes::PLAN_UNRESOLVED));
        assert_eq!(before.action, Action::Confirm);
        let after = engine
            .assess_plan(SEED_PLAN, r#"{"1": {"ident": "host-01"}}"#, "")
            .unwrap_or_else(|e| panic!("{e}"));
        let two = &after.steps[1];
        assert!(two.unresolved.is_empty());
        assert_eq!(two.args, r#"{"targets":["host-01"],"duration":7200}"#);
        assert!(!codes(&two.decision).contains(&codes::PLAN_UNRESOLVED));
    }

    #[test]
    fn a_path_parameter_from_a_reference_is_never_allowed_blindly() {
        let plan = json!({"tool_calls": [
            {"step": 1, "function": {"name": "target_query", "arguments": {}}},
            {"step": 2, "function": {"name": "target_get", "arguments": {"ident": "$step1.result.ident"}}}
        ]})
        .to_string();
        let engine = engine();
        let d = engine
            .assess_plan(&plan, "", "")
            .unwrap_or_else(|e| panic!("{e}"));
        let two = &d.steps[1].decision;
        assert_eq!(two.action, Action::Confirm);
        assert_eq!(
            codes(two)[..2],
            [codes::PLAN_UNRESOLVED, codes::PLAN_REFERENCE_PATH]
        );
        // Resolved to a value that would change the path: still refused.
        let d = engine
            .assess_plan(&plan, r#"{"1": {"ident": "../admin"}}"#, "")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d.steps[1].decision.action, Action::Confirm);
        assert!(codes(&d.steps[1].decision).contains(&codes::REGISTRY_BAD_PATH_PARAM));
        // Resolved to a plain name: a level-1 query, allowed.
        let d = engine
            .assess_plan(&plan, r#"{"1": {"ident": "host-01"}}"#, "")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d.steps[1].decision.action, Action::Allow);
        // A result without the field: held.
        let d = engine
            .assess_plan(&plan, r#"{"1": {"name": "host-01"}}"#, "")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            codes(&d.steps[1].decision)[0],
            codes::PLAN_REFERENCE_MISSING
        );
    }

    #[test]
    fn a_result_completes_a_command_line_read_whole() {
        let plan = json!({"plan": "p", "tool_calls": [
            {"step": 1, "function": {"name": "target_query", "arguments": {}}},
            {"step": 2, "depends_on": [1], "function": {"name": "execute_command",
              "arguments": {"command": "ping -c 1 $step1.result.host", "risk_level": "low"}}}
        ]})
        .to_string();
        let engine = Engine::default();
        let d = engine
            .assess_plan(&plan, r#"{"1": {"host": "x; rm -rf /"}}"#, "")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d.steps[1].decision.action, Action::Confirm);
        let d = engine
            .assess_plan(&plan, r#"{"1": {"host": "example.com"}}"#, "")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            d.steps[1].args,
            r#"{"command":"ping -c 1 example.com","risk_level":"low"}"#
        );
    }

    #[test]
    fn malformed_plans_are_refused() {
        let engine = engine();
        for (plan, why) in [
            (json!({"plan": "p"}), "tool_calls"),
            (
                json!({"tool_calls": [{"step": 1, "function": {"name": "a"}}, {"step": 1, "function": {"name": "b"}}]}),
                "twice",
            ),
            (
                json!({"tool_calls": [{"step": 1, "depends_on": [2], "function": {"name": "a"}}, {"step": 2, "function": {"name": "b"}}]}),
                "does not run before",
            ),
            (
                json!({"tool_calls": [{"step": 1, "function": {"name": "a", "arguments": {"x": "$step1.result"}}}]}),
                "does not run before",
            ),
            (
                json!({"tool_calls": [{"step": 1, "function": {"name": "a", "arguments": {"x": "$step0.id"}}}]}),
                "not a reference",
            ),
            (
                json!({"tool_calls": [{"step": 0, "function": {"name": "a"}}]}),
                "positive",
            ),
            (json!({"tool_calls": [{"step": 1}]}), "function"),
        ] {
            let err = engine
                .assess_plan(&plan.to_string(), "", "")
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains(why), "{plan}: {err}");
        }
        let ok = SEED_PLAN;
        assert!(engine.assess_plan(ok, r#"{"3": 1}"#, "").is_err());
        assert!(engine.assess_plan(ok, "[]", "").is_err());
    }
}
