//! Self-protection: the files that decide what runs later without a person.
//! An agent that may write toolgate's configuration, its own settings (which
//! register toolgate's hook and the agent's permissions), git hooks or CI
//! definitions can loosen the policy or plant code that runs unasked later
//! (on the next commit, the next push, the next session). So a call that is
//! not proven read-only and names one of them is confirmed by a person with
//! `floor.self-protection`, whatever allowed it: a mode (`accept-edits`), an
//! allow rule, a grant, `auto_approved_tools`, the model's rating. Denials
//! stay denials; reading these files is judged as before.
//!
//! Recognised by what the call's text names, in every argument of every
//! kind of tool but HTTP and registry API tools (which reach other hosts):
//! - a path with a segment that is one of [`DIRECTORIES`] (`.git`,
//!   `.github`, `.claude`, `.gemini`, `.codex`, `.husky`, …), or `toolgate`
//!   under a configuration directory (`.config/toolgate`);
//! - a file named in [`FILES`] (`.toolgate.toml`, `.gitlab-ci.yml`,
//!   `Jenkinsfile`, `.pre-commit-config.yaml`, `.mcp.json`, …) or ending in
//!   `.gitlab-ci.yml`;
//! - the git setting `core.hooksPath`, which moves the hooks to any
//!   directory (its usual targets, `.husky` and `.githooks`, are in the
//!   list; a target elsewhere is not known by name, since the policy does
//!   not read the repository's configuration).
//!
//! Names compare in ASCII lower case (Windows and macOS file systems fold
//! case), with `/` and `\` as separators; a path written through a variable
//! or a substitution is not a literal the policy can read, and no rule or
//! mode allows such a command in the first place.

use crate::config::ToolKind;
use crate::decision::Finding;
use serde_json::{Map, Value};

/// Directories whose contents decide what runs later: git's own directory
/// (hooks, `config` with `core.hooksPath`, `core.fsmonitor`, filters), the
/// usual `core.hooksPath` targets, CI definitions, the coding agents'
/// settings and toolgate's own.
pub const DIRECTORIES: &[&str] = &[
    ".git",
    ".husky",
    ".githooks",
    ".github",
    ".gitlab",
    ".circleci",
    ".buildkite",
    ".woodpecker",
    ".azure-pipelines",
    ".claude",
    ".gemini",
    ".codex",
    ".toolgate",
];

/// Files that decide what runs later: toolgate's configuration, CI
/// definitions (GitLab, Travis, Azure Pipelines, Bitbucket, Jenkins, Drone,
/// Woodpecker, AppVeyor), pre-commit's hooks, and the agents' MCP server
/// lists (each entry is a command the agent starts).
pub const FILES: &[&str] = &[
    ".toolgate.toml",
    ".toolgate.json",
    "toolgate.toml",
    "toolgate.json",
    ".gitlab-ci.yml",
    ".gitlab-ci.yaml",
    ".travis.yml",
    "azure-pipelines.yml",
    "azure-pipelines.yaml",
    "bitbucket-pipelines.yml",
    "jenkinsfile",
    ".drone.yml",
    ".woodpecker.yml",
    "appveyor.yml",
    ".appveyor.yml",
    ".pre-commit-config.yaml",
    ".claude.json",
    ".mcp.json",
];

/// Git settings that move or add what git runs by itself.
const SETTINGS: &[&str] = &["core.hookspath", "core.fsmonitor"];

/// Parents under which a `toolgate` directory is toolgate's configuration.
const CONFIG_PARENTS: &[&str] = &[".config", "etc", "application support", "appdata"];

/// At most this many strings of a call's arguments are read.
const MAX_STRINGS: usize = 256;

/// The finding for a call of a tool of `kind` (`None`: a tool without a
/// kind of its own) whose arguments name a protected file, if they do. The
/// caller applies it only to a call that is not proven read-only.
pub fn self_protection(kind: Option<ToolKind>, args: &Map<String, Value>) -> Option<Finding> {
    if matches!(kind, Some(ToolKind::Http | ToolKind::Api)) {
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
    let what = strings.into_iter().find_map(protected)?;
    Some(Finding::new(
        crate::codes::FLOOR_SELF_PROTECTION,
        format!(
            "the call may write {what}, which decides what runs later without a person: a person confirms it"
        ),
    ))
}

/// The arguments with every protected name made ordinary (its first
/// character replaced by `x`: `.git` is `xgit`, `Jenkinsfile` `xenkinsfile`),
/// in any case. Judged again, they tell whether the call only reads the
/// protected files: a read of `.git/config` is held back by its secrets,
/// not by a write, and is proven read-only once the name is ordinary; a
/// write stays a write whatever its path is called.
pub fn neutralized(args: &Map<String, Value>) -> Map<String, Value> {
    args.iter()
        .map(|(k, v)| (k.clone(), neutral_value(v, 0)))
        .collect()
}

fn neutral_value(value: &Value, depth: usize) -> Value {
    match value {
        Value::String(s) => Value::String(neutral_text(s)),
        Value::Array(items) if depth <= 8 => {
            Value::Array(items.iter().map(|v| neutral_value(v, depth + 1)).collect())
        }
        Value::Object(map) if depth <= 8 => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), neutral_value(v, depth + 1)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `text` with the first byte of every ASCII-case-insensitive occurrence of
/// a protected name replaced by `x`.
fn neutral_text(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let names = DIRECTORIES
        .iter()
        .chain(FILES)
        .chain(SETTINGS)
        .chain(std::iter::once(&"toolgate"));
    for name in names {
        let name = name.as_bytes();
        let mut at = 0;
        while let Some(window) = bytes.get(at..at + name.len()) {
            if window.eq_ignore_ascii_case(name) {
                if let Some(first) = bytes.get_mut(at) {
                    *first = b'x';
                }
                at += name.len();
            } else {
                at += 1;
            }
        }
    }
    // Only ASCII bytes were replaced by ASCII, so the text is still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())
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

/// What protected file `text` names, if any.
fn protected(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    if let Some(setting) = SETTINGS.iter().find(|s| lower.contains(*s)) {
        return Some(format!("the git setting `{setting}`"));
    }
    lower
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | '`' | ';' | '|' | '&' | '(' | ')' | '<' | '>' | '=' | ',' | ':'
                )
        })
        .filter(|w| !w.is_empty())
        .find_map(protected_path)
}

/// What protected file a (lower-case) path names, if any.
fn protected_path(word: &str) -> Option<String> {
    let segments: Vec<&str> = word.split(['/', '\\']).filter(|s| !s.is_empty()).collect();
    for (at, segment) in segments.iter().enumerate() {
        if let Some(dir) = DIRECTORIES.iter().find(|d| **d == *segment) {
            return Some(format!("`{dir}/`"));
        }
        if let Some(file) = FILES.iter().find(|f| **f == *segment) {
            return Some(format!("`{file}`"));
        }
        if segment.ends_with(".gitlab-ci.yml") {
            return Some(format!("`{segment}`"));
        }
        let parent = at.checked_sub(1).and_then(|p| segments.get(p));
        if *segment == "toolgate" && parent.is_some_and(|p| CONFIG_PARENTS.contains(p)) {
            return Some(String::from("toolgate's configuration directory"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(kind: Option<ToolKind>, args: Value) -> bool {
        let Value::Object(args) = args else {
            return false;
        };
        self_protection(kind, &args).is_some()
    }

    #[test]
    fn neutral_names_are_ordinary() {
        let args = json!({"command": "cat .GIT/config .gitignore Jenkinsfile", "n": [".claude/x"]});
        let Value::Object(args) = args else { panic!() };
        let neutral = neutralized(&args);
        assert_eq!(neutral["command"], "cat xGIT/config xgitignore xenkinsfile");
        assert_eq!(neutral["n"], json!(["xclaude/x"]));
        assert!(self_protection(Some(ToolKind::Command), &neutral).is_none());
    }

    #[test]
    fn protected_both_ways() {
        let command = Some(ToolKind::Command);
        let file = Some(ToolKind::File);
        for line in [
            "echo x > .git/hooks/pre-commit",
            "cp hook .git\\hooks\\pre-push",
            "tee -a .github/workflows/ci.yml",
            "sed -i s/a/b/ .gitlab-ci.yml",
            "mv a.json ~/.claude/settings.local.json",
            "git config core.hooksPath scripts",
            "git config --local CORE.HOOKSPATH=x",
            "cat x >>.gemini/settings.json",
            "printf x > ./.codex/config.toml",
            "cp x ci/prod.gitlab-ci.yml",
            "cp x ~/.config/toolgate/config.toml",
            "echo > Jenkinsfile",
            "cd .husky && echo x > pre-commit",
        ] {
            assert!(names(command, json!({ "command": line })), "{line}");
        }
        for line in [
            "echo x > src/hooks/pre-commit",
            "git commit -m 'fix hooks'",
            "cp a.json settings.json",
            "echo github > notes.txt",
            "cp x .gitignore",
        ] {
            assert!(!names(command, json!({ "command": line })), "{line}");
        }
        assert!(names(
            file,
            json!({"operation": "write", "path": "/p/.claude/settings.json"})
        ));
        assert!(names(
            file,
            json!({"operation": "write", "path": "C:\\p\\.GitHub\\workflows\\x.yml"})
        ));
        assert!(!names(
            file,
            json!({"operation": "write", "path": "/p/src/github.rs"})
        ));
        assert!(!names(
            Some(ToolKind::Http),
            json!({"url": "https://example.com/.git/config"})
        ));
        assert!(names(None, json!({"target": "/p/.git/config"})));
    }
}
