//! Reading a call's arguments and the model's `risk_level` in them.

use crate::codes;
use crate::decision::{Finding, Risk};
use serde_json::{Map, Value};

/// The name of the parameter the model uses to state its own risk assessment.
pub const RISK_LEVEL: &str = "risk_level";

/// Why arguments could not be read as a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// Longer than the configured bound; not parsed at all.
    #[error("arguments are {len} bytes, over the limit of {limit}")]
    TooLarge {
        /// The arguments' length in bytes.
        len: usize,
        /// The configured limit.
        limit: usize,
    },
    /// Not valid JSON (including nesting deeper than the parser's limit).
    #[error("arguments are not valid JSON: {0}")]
    Json(String),
    /// Valid JSON, but not an object.
    #[error("arguments must be a JSON object, not {0}")]
    NotObject(&'static str),
    /// An object holds the same key twice. Parsers disagree on which copy wins, so
    /// the policy could judge one value while the tool runs the other.
    #[error("arguments hold the key `{0}` more than once")]
    DuplicateKey(String),
}

/// Parses arguments into an object, refusing anything longer than `limit` bytes
/// before parsing so that no input can make the check slow.
pub fn parse_object(args: &str, limit: usize) -> Result<Map<String, Value>, ArgsError> {
    if args.len() > limit {
        return Err(ArgsError::TooLarge {
            len: args.len(),
            limit,
        });
    }
    reject_duplicate_keys(args)?;
    match serde_json::from_str::<Value>(args) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(ArgsError::NotObject(json_type(&other))),
        Err(e) => Err(ArgsError::Json(e.to_string())),
    }
}

/// Walks the JSON once without building it and fails on the first object that
/// holds a key twice (`Value` would silently keep the last copy), also when
/// the two spellings differ only in case, surrounding spaces, invisible or
/// confusable characters ([`crate::toolname::loose_key`]).
pub(crate) fn reject_duplicate_keys(args: &str) -> Result<(), ArgsError> {
    use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
    use std::collections::HashSet;
    use std::fmt;

    const DUPLICATE: &str = "\u{0}duplicate key\u{0}";

    struct Check;
    impl<'de> Deserialize<'de> for Check {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Check, D::Error> {
            d.deserialize_any(CheckVisitor)
        }
    }
    struct CheckVisitor;
    impl<'de> Visitor<'de> for CheckVisitor {
        type Value = Check;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Check, E> {
            Ok(Check)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Check, E> {
            Ok(Check)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Check, E> {
            Ok(Check)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Check, E> {
            Ok(Check)
        }
        fn visit_str<E>(self, _: &str) -> Result<Check, E> {
            Ok(Check)
        }
        fn visit_unit<E>(self) -> Result<Check, E> {
            Ok(Check)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Check, A::Error> {
            while seq.next_element::<Check>()?.is_some() {}
            Ok(Check)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Check, A::Error> {
            let mut seen = HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                // `sql` and `SQL`, or `sql` and `sql\u{200b}`, are one key to
                // an executor that matches loosely.
                if !seen.insert(crate::toolname::loose_key(&key)) {
                    return Err(A::Error::custom(format_args!("{DUPLICATE}{key}")));
                }
                map.next_value::<Check>()?;
            }
            Ok(Check)
        }
    }

    match serde_json::from_str::<Check>(args) {
        Ok(Check) => Ok(()),
        Err(e) => {
            let text = e.to_string();
            match text.strip_prefix(DUPLICATE) {
                // serde_json appends " at line L column C"; the key is what matters.
                Some(rest) => {
                    let key = rest.rsplit_once(" at line ").map_or(rest, |(k, _)| k);
                    Err(ArgsError::DuplicateKey(key.to_owned()))
                }
                None => Err(ArgsError::Json(text)),
            }
        }
    }
}

/// The JSON type of a value, for messages.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The model's stated risk, if any. `null` means "not provided" (OpenAI strict
/// mode makes the parameter required and nullable); any other unreadable value is
/// reported and ignored, never trusted.
pub fn model_risk(args: &Map<String, Value>) -> (Option<Risk>, Option<Finding>) {
    match args.get(RISK_LEVEL) {
        None | Some(Value::Null) => (None, None),
        Some(Value::String(s)) => match Risk::parse(s) {
            Some(risk) => (Some(risk), None),
            None => (
                None,
                Some(invalid_risk_level(&format!(
                    "`{}`",
                    crate::text::preview(s, 40)
                ))),
            ),
        },
        Some(other) => (None, Some(invalid_risk_level(json_type(other)))),
    }
}

fn invalid_risk_level(what: &str) -> Finding {
    Finding::new(
        codes::LLM_INVALID_RISK_LEVEL,
        format!("risk_level {what} is not low, medium or high; ignored"),
    )
}

/// The arguments a tool really receives: `risk_level` removed, nothing else
/// changed (key order and number formatting are preserved).
pub fn strip_risk_level(args: &str) -> Result<String, ArgsError> {
    let mut map = parse_object(args, usize::MAX)?;
    map.remove(RISK_LEVEL);
    serde_json::to_string(&Value::Object(map)).map_err(|e| ArgsError::Json(e.to_string()))
}

/// A string field the assessor needs, or a finding that says why it is unusable.
pub fn string_field<'a>(args: &'a Map<String, Value>, field: &str) -> Result<&'a str, Finding> {
    match args.get(field) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(Finding::new(
            codes::ARGS_MISSING_FIELD,
            format!("the `{field}` argument is missing"),
        )),
        Some(other) => Err(Finding::new(
            codes::ARGS_WRONG_TYPE,
            format!(
                "the `{field}` argument is {}, not a string",
                json_type(other)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_removes_only_risk_level_and_keeps_order() {
        let out = strip_risk_level(r#"{"z":1,"risk_level":"low","a":[1.50,"x"]}"#).unwrap();
        assert_eq!(out, r#"{"z":1,"a":[1.50,"x"]}"#);
    }

    #[test]
    fn strip_refuses_non_objects() {
        assert_eq!(
            strip_risk_level("[1]"),
            Err(ArgsError::NotObject("an array"))
        );
        assert!(matches!(strip_risk_level("{"), Err(ArgsError::Json(_))));
    }

    #[test]
    fn limit_is_checked_before_parsing() {
        assert_eq!(
            parse_object("{}   ", 3),
            Err(ArgsError::TooLarge { len: 5, limit: 3 })
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(matches!(
            parse_object(&deep, usize::MAX),
            Err(ArgsError::Json(_))
        ));
    }

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        assert_eq!(
            parse_object(r#"{"sql":"SELECT 1","sql":"DROP TABLE t"}"#, 1000),
            Err(ArgsError::DuplicateKey("sql".into()))
        );
        assert_eq!(
            parse_object(r#"{"a":[{"b":1,"b":2}]}"#, 1000),
            Err(ArgsError::DuplicateKey("b".into()))
        );
        assert!(parse_object(r#"{"a":{"b":1},"b":{"a":2.50}}"#, 1000).is_ok());
        assert_eq!(
            parse_object(r#"{"sql":"SELECT 1","SQL":"DROP TABLE t"}"#, 1000),
            Err(ArgsError::DuplicateKey("SQL".into()))
        );
        assert!(parse_object("{\"sql\":\"SELECT 1\",\"sql\u{200b}\":\"DROP\"}", 1000).is_err());
        assert!(parse_object(r#"{"file_name":"a","filename":"b","x1":1,"xl":2}"#, 1000).is_ok());
    }

    #[test]
    fn risk_level_forms() {
        let read = |s: &str| model_risk(&parse_object(s, 1000).unwrap());
        assert_eq!(read(r#"{"risk_level":"HIGH"}"#), (Some(Risk::High), None));
        assert_eq!(read(r#"{"risk_level":null}"#), (None, None));
        let (risk, finding) = read(r#"{"risk_level":"none"}"#);
        assert_eq!(risk, None);
        assert_eq!(finding.unwrap().code, codes::LLM_INVALID_RISK_LEVEL);
        let (_, finding) = read(r#"{"risk_level":1}"#);
        assert!(finding.unwrap().message.contains("a number"));
    }
}
