//! The command line's grammar, declared once in `shapes/cli.json`: every
//! command, its options and operands, the help text's parts, the usage errors'
//! wording and the exit codes.
//!
//! Every CLI derives its parsing and its help from that one file, as ripgrep
//! declares each flag once: the Rust CLI reads it with these types
//! (`host-rs/src/cli/args.rs`), the JavaScript CLI reads the copy its build
//! puts in `gen/cli.json` (`host-js/bin/toolgate.js`), and the Python CLI the
//! module generated from it (`host-py/scripts/gen_grammar.py`). Adding an option
//! is one entry in a command's `options` (and the code that uses its value);
//! the parity tests run the CLIs over one table of argument lists and compare
//! every byte.
//!
//! The file is data, not code: the rules that read it (the order of the checks,
//! how a synopsis is laid out) are written in each CLI and described in
//! `docs/cli.md`.

use serde::Deserialize;
use std::collections::BTreeMap;

/// The grammar's text, as committed (`shapes/cli.json`).
pub const GRAMMAR_JSON: &str = include_str!("../cli.json");

/// The whole command line: its commands, options, help and exit codes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grammar {
    /// The program's name (`toolgate`).
    pub program: String,
    /// The help's first line.
    pub about: String,
    /// The help's usage line.
    pub usage: String,
    /// The column a help line's words are wrapped at.
    pub width: usize,
    /// The options every command takes, `--help` and `--version` among them.
    pub options: Vec<OptionSpec>,
    /// The commands, in the help's order; a command of several words
    /// (`config check`) makes its first words a parent that needs a subcommand.
    pub commands: Vec<CommandSpec>,
    /// The lines printed after the options.
    pub notes: Vec<String>,
    /// The exit codes, in the help's order.
    pub exits: Vec<Exit>,
    /// The usage errors' wording.
    pub errors: Errors,
    /// The hosts a command may be limited to, by key, and their names in the help.
    pub hosts: BTreeMap<String, String>,
}

/// One option.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionSpec {
    /// Its long name, `--` included.
    pub name: String,
    /// The name its value is shown with (`FILE`); none for a flag.
    #[serde(default)]
    pub value: Option<String>,
    /// A one-letter spelling (`-h`), only for `--help` and `--version`.
    #[serde(default)]
    pub short: Option<String>,
    /// What the option does at once, wherever it stands.
    #[serde(default)]
    pub action: Option<Action>,
    /// Its line in the help's options (global options only).
    #[serde(default)]
    pub help: Option<String>,
    /// The command cannot run without it.
    #[serde(default)]
    pub required: bool,
    /// Another option of the command it is only given with.
    #[serde(default)]
    pub requires: Option<String>,
}

/// What an option with an action does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Print the help and stop reading the arguments.
    Help,
    /// Print the policy's version, whatever the command.
    Version,
}

/// One command.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    /// Its words, joined by a space (`audit verify`).
    pub name: String,
    /// The hosts whose CLI runs it (keys of [`Grammar::hosts`]); every host's
    /// when not given. A command of one host says so in the help.
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// Its own options (the global ones apply too).
    #[serde(default)]
    pub options: Vec<OptionSpec>,
    /// Groups of its options of which exactly one must be given.
    #[serde(default)]
    pub one_of: Vec<Vec<String>>,
    /// Its operands are shown after `--`.
    #[serde(default)]
    pub dashes: bool,
    /// Its required operands, by the names the help and usage errors use.
    #[serde(default)]
    pub operands: Vec<String>,
    /// Its optional operands, after the required ones.
    #[serde(default)]
    pub optional: Vec<String>,
    /// Any number of operands may follow (a command line to run).
    #[serde(default)]
    pub variadic: bool,
    /// What it does, one paragraph (the help wraps it).
    pub help: String,
}

/// One exit code.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exit {
    /// The code.
    pub code: u8,
    /// The name the CLIs' code gives it (`USAGE`).
    pub name: String,
    /// Its line in the help.
    pub help: String,
}

/// The usage errors' wording: `{name}`-style holes the parser fills.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Errors {
    /// How a usage error is printed on standard error (`{message}`).
    pub report: String,
    /// An argument that is not UTF-8 or holds U+FFFD (`{index}`, from 1).
    pub not_utf8: String,
    /// An option no command declares (`{name}`).
    pub unknown_option: String,
    /// An option without its value, or with an empty one (`{name}`).
    pub needs_value: String,
    /// A flag given `=value` (`{name}`).
    pub takes_no_value: String,
    /// An option given twice (`{name}`).
    pub given_twice: String,
    /// No command.
    pub no_command: String,
    /// Words that name no command (`{command}`).
    pub unknown_command: String,
    /// A parent command without its subcommand (`{command}`, `{choices}`).
    pub needs_subcommand: String,
    /// Another command's option (`{name}`, `{command}`).
    pub not_applicable: String,
    /// A missing operand or option (`{subject}` needs `{what}`).
    pub needs: String,
    /// An operand too many (`{argument}`).
    pub unexpected: String,
    /// Two options of a `one_of` group (`{subject}`, `{choices}`).
    pub not_both: String,
}

impl Grammar {
    /// The committed grammar.
    ///
    /// # Errors
    /// When `shapes/cli.json` does not have this shape (the crate's tests
    /// read it, so a release never does).
    pub fn load() -> Result<Self, serde_json::Error> {
        serde_json::from_str(GRAMMAR_JSON)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_grammar_reads_and_is_consistent() {
        let grammar = Grammar::load().unwrap();
        let mut takes_value = BTreeMap::new();
        let all = grammar
            .options
            .iter()
            .chain(grammar.commands.iter().flat_map(|c| c.options.iter()));
        for option in all {
            // Options may stand before their command, so whether one takes a
            // value must not depend on the command.
            let previous = takes_value.insert(option.name.clone(), option.value.is_some());
            assert!(
                previous.is_none_or(|v| v == option.value.is_some()),
                "{} takes a value in one command and not in another",
                option.name
            );
            assert!(option.name.starts_with("--"), "{}", option.name);
        }
        for command in &grammar.commands {
            let names: Vec<&str> = command.options.iter().map(|o| o.name.as_str()).collect();
            for option in &command.options {
                if let Some(required) = &option.requires {
                    assert!(names.contains(&required.as_str()), "{}", command.name);
                }
            }
            for group in &command.one_of {
                assert!(group.len() >= 2, "{}", command.name);
                assert!(group.iter().all(|n| names.contains(&n.as_str())));
            }
            for host in command.hosts.iter().flatten() {
                assert!(grammar.hosts.contains_key(host), "{host}");
            }
            assert!(
                !grammar
                    .commands
                    .iter()
                    .any(|other| command.name.starts_with(&format!("{} ", other.name))),
                "{} is a command and a parent",
                command.name
            );
        }
    }
}
