//! What a configuration's text must not leave ambiguous: a key written
//! twice in one JSON object (serde_json keeps the last; TOML refuses it, and
//! so does this, so a managed `denied_tools` cannot vanish under a second
//! one), and two spellings of one tool name ([`crate::toolname::fold`]) in
//! the lists a call's name meets (`tools`, `denied_tools`,
//! `auto_approved_tools`): `Execute_SQL` beside `execute_sql` would let a
//! look-alike escape the other's settings.

use crate::config::{Config, ConfigError};
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Reads JSON text as a value, refusing a key that appears twice in one
/// object (the error names its line and column).
pub(crate) fn json_value(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = (&mut de).deserialize_any(Strict)?;
    de.end()?;
    Ok(value)
}

/// A visitor building a [`Value`] that refuses duplicate keys.
struct Strict;

impl<'de> serde::de::DeserializeSeed<'de> for Strict {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(Strict)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "the key `{key}` appears twice in one object"
                )));
            }
            let value = map.next_value_seed(Strict)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// Two spellings of one tool name in the lists a call's name meets.
pub(super) fn check_names(config: &Config) -> Result<(), ConfigError> {
    let mut seen: Vec<(String, &str)> = Vec::new();
    let names = config
        .tools
        .keys()
        .chain(config.denied_tools.iter())
        .chain(config.auto_approved_tools.iter());
    for name in names {
        let folded = crate::toolname::fold(name);
        match seen.iter().find(|(f, _)| *f == folded) {
            Some((_, other)) if *other != name.as_str() => {
                return Err(ConfigError::SameName {
                    first: (*other).to_owned(),
                    second: name.clone(),
                })
            }
            Some(_) => {}
            None => seen.push((folded, name)),
        }
    }
    if let Some(tool) = config.denied_tools.iter().find(|d| {
        config
            .auto_approved_tools
            .iter()
            .any(|a| crate::toolname::same(a, d))
    }) {
        return Err(ConfigError::Conflict { tool: tool.clone() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_twice_is_refused_with_its_place() {
        let err = json_value("{\"denied_tools\": [\"x\"],\n \"denied_tools\": []}")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`denied_tools` appears twice") && err.contains("line 2"),
            "{err}"
        );
        assert!(json_value("{\"a\": {\"b\": 1}, \"c\": {\"b\": 2}}").is_ok());
        assert!(json_value("{\"a\": [{\"b\": 1, \"b\": 2}]}").is_err());
        assert!(json_value("{} x").is_err());
    }

    #[test]
    fn two_spellings_of_one_name_are_refused() {
        for text in [
            r#"{"tools": {"execute_sql": {"always_confirm": true}, "Execute_SQL": {"kind": "sql"}}}"#,
            "{\"denied_tools\": [\"execute_sql\", \"execute\\u200b_sql\"]}",
            r#"{"tools": {"send_email": {"always_confirm": true}}, "auto_approved_tools": ["ＳＥＮＤ_EMAIL"]}"#,
        ] {
            let err = Config::from_json(text).unwrap_err();
            assert!(matches!(err, ConfigError::SameName { .. }), "{text}: {err}");
        }
        let err = Config::from_json(
            r#"{"denied_tools": ["Drop_Database"], "auto_approved_tools": ["drop_database"]}"#,
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::SameName { .. } | ConfigError::Conflict { .. }
            ),
            "{err}"
        );
        assert!(Config::from_json(
            r#"{"tools": {"execute_sql": {"always_confirm": true}}, "denied_tools": ["execute_sql"]}"#
        )
        .is_ok());
    }
}
