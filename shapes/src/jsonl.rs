//! JSON text safe to print and to keep one record a line.
//!
//! serde_json escapes the C0 controls inside strings, but writes DEL, the C1
//! controls (U+0080–U+009F: U+0085 is a line break to some readers, U+009B
//! a terminal's control sequence introducer), the line and paragraph
//! separators (U+2028, U+2029: line breaks to JavaScript before ES2019 and
//! to many editors) and the bidirectional marks and overrides as they are.
//! Written raw into a JSON Lines audit log or printed by `approvals list`,
//! they split a record for some readers, move a terminal's cursor or show
//! a person text in another order than it holds. [`escape_controls`] writes
//! each as a `\uXXXX` escape: the same JSON value, in ASCII-safe text.

/// Whether `c` is written as an escape by [`escape_controls`].
pub fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{061c}'
        )
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `json` (a JSON text, as serde_json writes it) with every character of
/// [`hidden`] written as a `\uXXXX` escape. Outside strings JSON text holds
/// only ASCII, so every such character is inside a string, where the escape
/// means the same character.
pub fn escape_controls(json: &str) -> String {
    if !json.chars().any(hidden) {
        return json.to_owned();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if hidden(c) {
            let mut units = [0_u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_separators_are_escaped_and_the_value_is_the_same() {
        let value =
            serde_json::json!({"a": "x\u{9b}31m\u{85}y\u{2028}z\u{202e}\u{7f}\n", "b": "é ok"});
        let text = escape_controls(&serde_json::to_string(&value).unwrap_or_default());
        assert_eq!(
            text,
            r#"{"a":"x\u009b31m\u0085y\u2028z\u202e\u007f\n","b":"é ok"}"#
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(back, value);
    }
}
