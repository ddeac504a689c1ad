//! Tool names that look like another: `Execute_Command`, `execute_command`
//! with a zero-width space or a trailing space, Cyrillic `е` for Latin `e`,
//! `execute_cornmand`. An executor that matches names loosely runs the known
//! tool; a model that was told to avoid a tool can reach it under such a
//! name. Such a call is judged as the tool it looks like (its floor and its
//! deny apply) and is never proven read-only on its own.
//!
//! Also: an unknown tool whose arguments carry a known kind's field (a
//! `command`, an `sql`, a `url`, a `path` with an `operation`) gets that
//! kind's floor.

use crate::config::{ToolConfig, ToolKind};
use serde_json::{Map, Value};

/// Characters that render as nothing (or as a plain space) and so hide in
/// a name: format characters, joiners, variation selectors, tags, fillers.
/// The ranges are Unicode's `Default_Ignorable_Code_Point` property
/// (DerivedCoreProperties.txt, Unicode 15.1), all of it; control
/// characters (C0, DEL, C1) besides.
fn invisible(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x034F
            | 0x061C
            | 0x115F
            | 0x1160
            | 0x17B4
            | 0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFF8
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
    ) || c.is_control()
}

/// The normal form in which a tool name meets a list (`denied_tools`,
/// `auto_approved_tools`, `tools`, rules' `tool` globs, grants): invisible
/// characters (`invisible`: Unicode's default-ignorable code points and
/// controls) dropped, the full-width forms of ASCII (U+FF01–U+FF5E, Unicode's
/// `<wide>` compatibility decompositions of `!` to `~`) read as ASCII, and
/// lower case. `Execute_SQL`, `execute\u{200b}_sql` and `ｅｘｅｃｕｔｅ_sql`
/// are all `execute_sql`. Names that differ only in this form are refused
/// in one configuration ([`crate::config::Config`]). Narrower than [`key`],
/// which also maps look-alike letters and is used only to find the tool a
/// name imitates.
pub fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| !invisible(*c))
        .map(wide)
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether two tool names are one in the normal form of [`fold`].
pub fn same(a: &str, b: &str) -> bool {
    a == b || fold(a) == fold(b)
}

/// A full-width ASCII form (U+FF01–U+FF5E) as its ASCII character.
fn wide(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
        other => other,
    }
}

/// Letters of other scripts that look like Latin ones (lower case).
const CONFUSABLES: &[(char, char)] = &[
    ('а', 'a'),
    ('е', 'e'),
    ('о', 'o'),
    ('р', 'p'),
    ('с', 'c'),
    ('у', 'y'),
    ('х', 'x'),
    ('і', 'i'),
    ('ј', 'j'),
    ('ѕ', 's'),
    ('ԁ', 'd'),
    ('ԛ', 'q'),
    ('ԝ', 'w'),
    ('һ', 'h'),
    ('ӏ', 'l'),
    ('ү', 'y'),
    ('ɡ', 'g'),
    ('ı', 'i'),
    ('ℓ', 'l'),
    ('ο', 'o'),
    ('α', 'a'),
    ('ν', 'v'),
    ('ι', 'i'),
    ('κ', 'k'),
    ('ρ', 'p'),
    ('τ', 't'),
    ('υ', 'u'),
    ('χ', 'x'),
    ('ε', 'e'),
];

/// The loose comparison key of an argument name: invisible characters
/// dropped, full-width forms folded, confusable letters mapped to Latin,
/// lower case, surrounding whitespace trimmed. Unlike [`key`], `_` and `-`
/// and digits stay as they are (`file_name` and `filename`, `x1` and `xl`
/// are different arguments).
pub fn loose_key(name: &str) -> String {
    name.chars()
        .filter(|c| !invisible(*c))
        .map(wide)
        .flat_map(char::to_lowercase)
        .map(|c| {
            CONFUSABLES
                .iter()
                .find(|(from, _)| *from == c)
                .map_or(c, |&(_, to)| to)
        })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// The comparison key of a tool name: invisible characters dropped,
/// full-width forms folded, confusable letters mapped to Latin, lower case,
/// whitespace, `-` and `.` read as `_`, surrounding `_` trimmed, and the
/// visual skeleton taken (`rn` → `m`, `vv` → `w`, `0` → `o`, `1` and `i`
/// → `l`).
pub fn key(name: &str) -> String {
    let mapped: String = name
        .chars()
        .filter(|c| !invisible(*c))
        .map(wide)
        .flat_map(char::to_lowercase)
        .map(|c| {
            CONFUSABLES
                .iter()
                .find(|(from, _)| *from == c)
                .map_or(c, |&(_, to)| to)
        })
        .map(|c| {
            if c.is_whitespace() || c == '-' || c == '.' {
                '_'
            } else {
                c
            }
        })
        .collect();
    mapped
        .trim_matches('_')
        .replace("rn", "m")
        .replace("vv", "w")
        .replace('0', "o")
        .replace(['1', 'i', '|'], "l")
}

/// The first of `known` names that `tool` looks like, if `tool` is not
/// itself one of them.
pub fn lookalike<'a>(tool: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wanted = key(tool);
    if wanted.is_empty() {
        return None;
    }
    known
        .into_iter()
        .find(|name| *name != tool && key(name) == wanted)
}

/// Argument names that carry a known kind's payload, by kind, in the order
/// they are tried.
const COMMAND_FIELDS: &[&str] = &["command", "cmd", "script", "shell", "bash", "commandline"];
const SQL_FIELDS: &[&str] = &["sql", "statement", "sql_query"];
const URL_FIELDS: &[&str] = &["url", "uri", "endpoint", "href", "link"];
const PATH_FIELDS: &[&str] = &[
    "path",
    "file",
    "file_path",
    "filepath",
    "filename",
    "target",
];
const OPERATION_FIELDS: &[&str] = &["operation", "op", "action", "mode"];

/// The kind an unknown tool's arguments point to, with the settings that
/// read the field found, by the fields tools of each kind use. Only the
/// floor is taken from it: an unknown tool is never proven read-only.
pub fn inferred_kind(args: &Map<String, Value>) -> Option<(ToolKind, ToolConfig)> {
    let string = |k: &&str| matches!(args.get(*k), Some(Value::String(_)));
    let first =
        |fields: &[&'static str]| fields.iter().find(|k| string(k)).map(|f| (*f).to_owned());
    let command = COMMAND_FIELDS
        .iter()
        .find(|k| string(k) || matches!(args.get(**k), Some(Value::Array(_))));
    if let Some(field) = command {
        return Some((
            ToolKind::Command,
            ToolConfig {
                field: Some((*field).to_owned()),
                ..ToolConfig::default()
            },
        ));
    }
    if let Some(field) = first(SQL_FIELDS) {
        return Some((
            ToolKind::Sql,
            ToolConfig {
                field: Some(field),
                ..ToolConfig::default()
            },
        ));
    }
    if let Some(field) = first(URL_FIELDS) {
        return Some((
            ToolKind::Http,
            ToolConfig {
                field: Some(field),
                ..ToolConfig::default()
            },
        ));
    }
    if let (Some(path), Some(operation)) = (first(PATH_FIELDS), first(OPERATION_FIELDS)) {
        return Some((
            ToolKind::File,
            ToolConfig {
                field: Some(operation),
                path_field: Some(path),
                ..ToolConfig::default()
            },
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookalikes() {
        let known = ["execute_command", "execute_sql", "file_operations"];
        for name in [
            "Execute_Command",
            "execute_command ",
            " execute_command",
            "execute\u{200b}_command",
            "execute-command",
            "EXECUTE COMMAND",
            "ехесute_command",
            "execute_cornmand",
            "ｅｘｅｃｕｔｅ_command",
            "execute_command\u{feff}",
        ] {
            assert_eq!(lookalike(name, known), Some("execute_command"), "{name:?}");
        }
        assert_eq!(lookalike("execute_command", known), None);
        assert_eq!(lookalike("search_docs", known), None);
    }
}
