//! The approval channel: the calls by which the agent would answer for the
//! person. A confirmed call waits for a person; if the agent could run
//! `toolgate approvals …` or `toolgate grants …`, rewrite the grant or
//! checkpoint store, edit toolgate's configuration (or the hook that puts
//! toolgate in its path) or post to an approval page on this machine, it
//! would approve its own calls. Such a call is denied with
//! `floor.approval-channel`, whatever the mode, the model's rating, the
//! rules, the auto-approvals and the grants say, and no grant is proposed
//! for it.
//!
//! Recognised by what the call's text names, for the tools that can reach
//! the channel (commands, files, SQL, HTTP, and unknown tools whose
//! arguments point to one of those kinds):
//! - a command word whose program name starts with `toolgate` (the CLI,
//!   `bin/toolgate.js`) followed by `approvals` or `grants`, in any word
//!   position (after `npx`, `sudo`, `cargo run -p toolgate --`);
//! - a path in toolgate's own directories (`…/.config/toolgate/…`,
//!   `…/state/toolgate/…`, `/etc/toolgate/…`, a `.toolgate` directory), a
//!   configuration file `.toolgate.toml`/`toolgate.toml`/`toolgate.json`
//!   (docs/hooks.md), the coding agents' settings that register the hook
//!   (`.claude/settings.json`, `.claude/settings.local.json`,
//!   `.gemini/settings.json`);
//! - the stores' tables (`toolgate_checkpoints`, `toolgate_claims`,
//!   `toolgate_grants`, `toolgate_audit`, docs/approvals.md);
//! - a URL on a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`,
//!   `0.0.0.0`) with a path segment `approvals`, `approval`, `approve`,
//!   `grants` or `toolgate`.
//!
//! A store or configuration kept elsewhere under a name of the deployment's
//! choosing is not recognised by name: keep it outside the tools' roots.

use crate::config::ToolKind;
use crate::decision::Finding;
use serde_json::{Map, Value};

/// Subcommands of the toolgate CLI that settle or list approvals and grants.
const SUBCOMMANDS: &[&str] = &["approvals", "grants"];

/// The stores' tables (docs/approvals.md).
const TABLES: &[&str] = &[
    "toolgate_checkpoints",
    "toolgate_claims",
    "toolgate_grants",
    "toolgate_audit",
];

/// Directories whose `toolgate` child is toolgate's own state or
/// configuration (XDG base directories, macOS, Windows, /etc).
const PARENTS: &[&str] = &[
    ".config",
    "state",
    "config",
    "etc",
    "application support",
    "appdata",
    "roaming",
    "local",
    "$xdg_state_home",
    "$xdg_config_home",
    "${xdg_state_home}",
    "${xdg_config_home}",
];

/// File names that are toolgate's configuration or register its hook, as
/// `(parent directory or "", name)`.
const FILES: &[(&str, &str)] = &[
    ("", ".toolgate.toml"),
    ("", ".toolgate.json"),
    ("", "toolgate.toml"),
    ("", "toolgate.json"),
    (".claude", "settings.json"),
    (".claude", "settings.local.json"),
    (".gemini", "settings.json"),
];

/// Path segments of an approval page.
const PAGE_SEGMENTS: &[&str] = &["approvals", "approval", "approve", "grants", "toolgate"];

/// At most this many strings of a call's arguments are read.
const MAX_STRINGS: usize = 256;

/// The finding for a call of a tool of `kind` (with `args`) that reaches the
/// approval channel, if it does.
pub fn approval_channel(kind: Option<ToolKind>, args: &Map<String, Value>) -> Option<Finding> {
    let kind = kind?;
    if !matches!(
        kind,
        ToolKind::Command | ToolKind::File | ToolKind::Sql | ToolKind::Http
    ) {
        return None;
    }
    let mut strings = Vec::new();
    collect(
        args.iter()
            .filter(|(k, _)| k.as_str() != crate::args::RISK_LEVEL)
            .map(|(_, v)| v),
        &mut strings,
        0,
    );
    for text in strings {
        if let Some(what) = reaches(kind, text) {
            return Some(Finding::new(
                crate::codes::FLOOR_APPROVAL_CHANNEL,
                format!(
                    "the call reaches the approval channel ({what}): only a person answers approvals, never the agent"
                ),
            ));
        }
    }
    None
}

fn collect<'a>(values: impl Iterator<Item = &'a Value>, out: &mut Vec<&'a str>, depth: usize) {
    for value in values {
        if out.len() >= MAX_STRINGS || depth > 8 {
            return;
        }
        match value {
            Value::String(s) => out.push(s),
            Value::Array(items) => collect(items.iter(), out, depth + 1),
            Value::Object(map) => collect(map.values(), out, depth + 1),
            _ => {}
        }
    }
}

/// Words every name of [`reaches`] holds one of (in any case): a text with
/// none of them is not read further, so a large argument costs one pass.
const MARKERS: &[&[u8]] = &[b"toolgate", b"approv", b"grant", b"settings"];

/// Whether `text` holds one of [`MARKERS`] (ASCII) in any case, in one pass:
/// each byte is compared only with the markers that start with it, so a
/// megabyte of argument text costs about a megabyte of comparisons (the
/// limits test holds the heaviest accepted call to half the default budget).
fn holds_marker(text: &[u8]) -> bool {
    text.iter().enumerate().any(|(at, byte)| {
        let first = byte.to_ascii_lowercase();
        MARKERS.iter().any(|marker| {
            marker.first() == Some(&first)
                && text
                    .get(at..at + marker.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(marker))
        })
    })
}

/// What in `text` reaches the channel, if anything.
fn reaches(kind: ToolKind, text: &str) -> Option<String> {
    if !holds_marker(text.as_bytes()) {
        return None;
    }
    let lower = text.to_lowercase();
    if let Some(table) = TABLES.iter().find(|t| lower.contains(*t)) {
        return Some(format!("the store's table `{table}`"));
    }
    let words: Vec<&str> = lower
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | '`' | ';' | '|' | '&' | '(' | ')' | '<' | '>' | '=' | ','
                )
        })
        .filter(|w| !w.is_empty())
        .collect();
    if kind == ToolKind::Command {
        if let Some(at) = words
            .iter()
            .position(|w| program(w).starts_with("toolgate"))
        {
            if let Some(sub) = words.iter().skip(at + 1).find(|w| SUBCOMMANDS.contains(w)) {
                return Some(format!("`toolgate {sub}`"));
            }
        }
    }
    for word in &words {
        if let Some(what) = toolgate_path(word) {
            return Some(what);
        }
        if matches!(kind, ToolKind::Command | ToolKind::Http) && approval_page(word) {
            return Some(String::from("an approval page on this machine"));
        }
    }
    None
}

/// A word's program name: its last path component.
fn program(word: &str) -> &str {
    word.rsplit(['/', '\\']).next().unwrap_or(word)
}

/// Whether a (lower-case) path is one of toolgate's own.
fn toolgate_path(word: &str) -> Option<String> {
    let segments: Vec<&str> = word
        .split(['/', '\\'])
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    for (at, segment) in segments.iter().enumerate() {
        let parent = at.checked_sub(1).and_then(|p| segments.get(p)).copied();
        if *segment == ".toolgate"
            || (*segment == "toolgate" && parent.is_some_and(|p| PARENTS.contains(&p)))
        {
            return Some(String::from("toolgate's own directory"));
        }
        if FILES
            .iter()
            .any(|(dir, name)| segment == name && (dir.is_empty() || parent == Some(*dir)))
        {
            return Some(format!("`{segment}`, toolgate's configuration or hook"));
        }
    }
    None
}

/// Whether a (lower-case) word is a URL of an approval page on a loopback
/// host.
fn approval_page(word: &str) -> bool {
    let rest = word.split_once("://").map_or(word, |(_, rest)| rest);
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or(v6)
    } else {
        host_port.split(':').next().unwrap_or(host_port)
    };
    let host = host.trim_end_matches('.');
    let loopback = host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || matches!(
            host,
            "::1" | "0:0:0:0:0:0:0:1" | "0.0.0.0" | "::" | "0" | "2130706433"
        )
        || host.starts_with("::ffff:127.");
    if !loopback {
        return false;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    path.split('/').any(|s| PAGE_SEGMENTS.contains(&s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reaches_command(line: &str) -> bool {
        reaches(ToolKind::Command, line).is_some()
    }

    #[test]
    fn the_channel_is_recognised_and_its_neighbours_are_not() {
        for line in [
            "toolgate approvals list /var/lib/gate",
            "npx toolgate grants revoke --key-file k dir g-1",
            "cargo run -p toolgate -- approvals list dir",
            "node host-js/bin/toolgate.js grants list --key-file k d",
            "echo '{}' > ~/.config/toolgate/managed.json",
            "rm -rf $XDG_STATE_HOME/toolgate",
            "sed -i s/strict/x/ .toolgate.toml",
            "psql -c 'DELETE FROM toolgate_claims'",
            "curl -X POST http://127.0.0.1:8787/approvals/ap-1",
            "curl http://localhost:9000/approve?id=1",
            "wget -qO- http://[::1]:3000/toolgate/answer",
            "cat .claude/settings.json",
        ] {
            assert!(reaches_command(line), "{line}");
        }
        for line in [
            "npm test",
            "toolgate check examples/tool-calls.jsonl",
            "cat docs/approvals.md",
            "curl https://example.com/approvals",
            "curl http://127.0.0.1:8080/health",
            "ls ~/src/toolgate/policy",
            "git log -- host-rs/src/gate",
        ] {
            assert!(!reaches_command(line), "{line}");
        }
        assert!(reaches(
            ToolKind::File,
            "/home/u/.local/state/toolgate/grants/g-1.json"
        )
        .is_some());
        assert!(reaches(ToolKind::File, "src/main.rs").is_none());
        assert!(reaches(
            ToolKind::Sql,
            "UPDATE toolgate_checkpoints SET checkpoint = ''"
        )
        .is_some());
        assert!(reaches(ToolKind::Http, "http://127.0.0.1:4000/grants").is_some());
        assert!(reaches(ToolKind::Http, "https://api.example.com/grants").is_none());
    }
}
