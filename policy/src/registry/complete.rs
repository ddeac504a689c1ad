//! Argument completion (seed 002 §4.3): what the seed has the model do with
//! the parameters a user leaves unsaid, done once here so a host need not
//! trust the model's arithmetic, and every runtime completes a call alike.
//!
//! - Names: the model's names for arguments the API names otherwise are
//!   renamed by the tool's declared `argument_names` (§7.2: `cause` →
//!   `note`).
//! - Defaults from the caller's context (§4.3: "group_id 未指定 -> 使用用户默认
//!   业务组"): a value of the context's `defaults` fills a parameter the call
//!   leaves out, when the tool declares that parameter (its URL pattern or
//!   one of its schemas names it).
//! - Relative times (§4.3: "2小时" -> Unix timestamps): a `duration` in
//!   seconds (§2.2: "持续时长(秒)，与 etime 二选一") becomes `btime` and
//!   `etime` when the tool declares `etime` and not `duration`: `btime` is
//!   the call's own, else the caller's clock; `etime` is `btime` plus the
//!   duration.
//!
//! The completed call is what is decided, approved and sent: completion
//! runs before the decision, never after a person has seen the call.

use crate::args::parse_object;
use crate::codes;
use crate::config::{Config, ToolKind};
use crate::context::Context;
use crate::decision::Finding;
use crate::text::preview;
use serde_json::{Map, Value};

/// The argument seed 002 §2.2 gives a relative time in, in seconds.
const DURATION: &str = "duration";
/// The start and end timestamps it becomes (§2.2, §2.3).
const START: &str = "btime";
const END: &str = "etime";

/// A non-negative whole number of seconds (a JSON integer, or a float with
/// no fraction), if `value` is one.
fn seconds(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0 && *f < 9.0e15)
            .map(|f| f as u64)
    })
}

/// The arguments of a call of registry tool `tool` (`args`, the model's JSON
/// object) completed as the module says, at `now_ms` (milliseconds since the
/// Unix epoch, the caller's clock), as JSON text. Errors, all at once: the
/// arguments are not an object, a rename would overwrite an argument the
/// model gave, a duration that is not a whole number of seconds, or both a
/// duration and an end.
pub fn complete_args(
    config: &Config,
    tool: &str,
    args: &str,
    context: &Context,
    now_ms: u64,
) -> Result<String, Vec<Finding>> {
    let mut args: Map<String, Value> = parse_object(args, config.max_args_bytes)
        .map_err(|e| vec![Finding::new(codes::ARGS_INVALID, e.to_string())])?;
    let Some(entry) = config.tools.get(tool).filter(|t| {
        matches!(
            t.kind,
            Some(ToolKind::Api | ToolKind::Mcp | ToolKind::Script)
        )
    }) else {
        return Err(vec![Finding::new(
            codes::REQUEST_NOT_API,
            format!("`{}` is not a registry tool", preview(tool, 60)),
        )]);
    };
    let mut problems = Vec::new();

    for (model, api) in &entry.argument_names {
        let Some(value) = args.remove(model) else {
            continue;
        };
        match args.get(api) {
            Some(other) if !other.is_null() && *other != value => {
                problems.push(Finding::new(
                    codes::ARGS_SCHEMA,
                    format!(
                        "`{}` is the API's `{}`, which the call also gives another value",
                        preview(model, 40),
                        preview(api, 40)
                    ),
                ));
                args.insert(model.clone(), value);
            }
            _ => {
                args.insert(api.clone(), value);
            }
        }
    }

    let names = entry.declared_params();
    for (name, value) in &context.defaults {
        if names.contains(name) && args.get(name).is_none_or(Value::is_null) {
            args.insert(name.clone(), value.clone());
        }
    }

    if names.contains(END) && !names.contains(DURATION) {
        if let Some(duration) = args.get(DURATION).cloned() {
            let end_given = args.get(END).is_some_and(|v| !v.is_null());
            let start = match args.get(START).filter(|v| !v.is_null()) {
                Some(given) => seconds(given),
                None => Some(now_ms / 1000),
            };
            match (seconds(&duration), start, end_given) {
                (_, _, true) => problems.push(Finding::new(
                    codes::ARGS_SCHEMA,
                    "`duration` and `etime` are one or the other (seed 002 §2.2); the call gives both",
                )),
                (None, _, _) => problems.push(Finding::new(
                    codes::ARGS_SCHEMA,
                    format!(
                        "`duration` = `{}` is not a whole number of seconds",
                        preview(&duration.to_string(), 40)
                    ),
                )),
                (_, None, _) => problems.push(Finding::new(
                    codes::ARGS_SCHEMA,
                    "`btime` is not a Unix timestamp in seconds, so no end can be computed from `duration`",
                )),
                (Some(length), Some(from), false) => match from.checked_add(length) {
                    Some(end) => {
                        args.remove(DURATION);
                        if args.get(START).is_none_or(Value::is_null) {
                            args.insert(START.to_owned(), Value::from(from));
                        }
                        args.insert(END.to_owned(), Value::from(end));
                    }
                    None => problems.push(Finding::new(
                        codes::ARGS_SCHEMA,
                        "`btime` plus `duration` is past any timestamp",
                    )),
                },
            }
        }
    }
    if problems.is_empty() {
        Ok(Value::Object(args).to_string())
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config() -> Config {
        Config::from_text(include_str!(
            "../../../tests/config/seed-002-definition.json"
        ))
        .unwrap_or_default()
    }

    fn complete(args: Value, context: &str, now: u64) -> Result<Value, Vec<String>> {
        let context = Context::from_json(context).unwrap_or_default();
        complete_args(
            &config(),
            "alert_mute_create",
            &args.to_string(),
            &context,
            now,
        )
        .map(|text| serde_json::from_str(&text).unwrap_or(Value::Null))
        .map_err(|f| f.into_iter().map(|f| f.code).collect())
    }

    #[test]
    fn the_seed_s_example_params_complete_against_the_caller_s_clock() {
        // §2.3's example_params: a group, targets and 7200 s, at 2024-01-02 00:00 UTC.
        let got = complete(
            json!({"group_id": 1, "targets": ["host-01"], "duration": 7200}),
            "",
            1_704_153_600_123,
        );
        assert_eq!(
            got,
            Ok(
                json!({"group_id": 1, "targets": ["host-01"], "btime": 1704153600, "etime": 1704160800})
            )
        );
    }

    #[test]
    fn defaults_fill_only_declared_parameters_left_out() {
        let context = r#"{"defaults": {"group_id": 7, "unrelated": 1}}"#;
        let got = complete(json!({"btime": 1, "etime": 2}), context, 0);
        assert_eq!(got, Ok(json!({"btime": 1, "etime": 2, "group_id": 7})));
        let got = complete(json!({"group_id": 3, "btime": 1, "etime": 2}), context, 0);
        assert_eq!(got, Ok(json!({"group_id": 3, "btime": 1, "etime": 2})));
    }

    #[test]
    fn contradictions_are_refused() {
        assert_eq!(
            complete(json!({"duration": 60, "etime": 5}), "", 0),
            Err(vec![String::from("args.schema")])
        );
        assert_eq!(
            complete(json!({"duration": "2h"}), "", 0),
            Err(vec![String::from("args.schema")])
        );
        assert_eq!(
            complete(json!({"duration": -1}), "", 0),
            Err(vec![String::from("args.schema")])
        );
        assert_eq!(
            complete(json!([1]), "", 0).map(|_| ()),
            Err(vec![String::from("args.invalid")])
        );
    }
}
