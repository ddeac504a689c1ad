//! `execute_command`: a command line is read-only only if every simple command in
//! it (every side of every `;`, `&&`, `||` and pipe) runs a program on the
//! read-only list with arguments that keep it read-only, nothing is substituted
//! or redirected into a file, and the lexer understood all of it.

mod lexer;
mod programs;

use super::{combine, Assessment, Assessor, Verdict};
use crate::args::string_field;
use crate::codes;
use crate::decision::Finding;
use lexer::{lex, Construct, Segment};
use serde_json::{Map, Value};

/// How deep `bash -c '…'` is followed when looking for destructive programs.
const MAX_SHELL_DEPTH: usize = 3;

/// Directories whose programs are the system's own: `/usr/bin/ls` is `ls`, but
/// `./ls` is whatever the working directory holds.
const SYSTEM_DIRS: &[&str] = &[
    "/bin/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/sbin/",
    "/usr/sbin/",
];

/// The command assessor: reads the command line from one string argument.
#[derive(Clone, Debug)]
pub struct CommandAssessor {
    /// The argument that holds the command line.
    pub field: String,
}

impl Default for CommandAssessor {
    fn default() -> Self {
        CommandAssessor {
            field: String::from("command"),
        }
    }
}

impl Assessor for CommandAssessor {
    fn assess(&self, args: &Map<String, Value>) -> Assessment {
        match string_field(args, &self.field) {
            Ok(line) => assess_command(line),
            Err(finding) => Assessment::single(Verdict::Unproven, "", finding),
        }
    }
}

/// Assesses a command line.
pub fn assess_command(line: &str) -> Assessment {
    let operation = line.to_owned();
    if line.trim().is_empty() {
        return Assessment::single(
            Verdict::Unproven,
            operation,
            Finding::new(codes::COMMAND_EMPTY, "the command is empty"),
        );
    }
    let lexed = match lex(line) {
        Ok(lexed) => lexed,
        Err(e) => {
            return Assessment::single(
                Verdict::Unproven,
                operation,
                Finding::new(
                    codes::COMMAND_PARSE_ERROR,
                    format!("the command could not be split: {e}"),
                ),
            )
        }
    };

    let mut verdict = Verdict::ReadOnly;
    let mut findings = Vec::new();
    let mut unproven = |findings: &mut Vec<Finding>, code: &str, message: String| {
        verdict = combine(verdict, Verdict::Unproven);
        findings.push(Finding::new(code, message));
    };

    for construct in &lexed.constructs {
        match construct {
            Construct::Substitution(what) => unproven(
                &mut findings,
                codes::COMMAND_SUBSTITUTION,
                format!("{what} runs another command"),
            ),
            Construct::Unsupported(what) => unproven(
                &mut findings,
                codes::COMMAND_UNSUPPORTED_SYNTAX,
                format!("{what} is not analysed"),
            ),
        }
    }
    if lexed.segments.is_empty() {
        unproven(
            &mut findings,
            codes::COMMAND_EMPTY,
            String::from("the command holds only comments"),
        );
    }

    let mut destroys = None;
    for segment in &lexed.segments {
        let words = match shell_words::split(&segment.text) {
            Ok(words) => words,
            Err(e) => {
                unproven(
                    &mut findings,
                    codes::COMMAND_PARSE_ERROR,
                    format!("the command could not be split into words: {e}"),
                );
                continue;
            }
        };
        if destroys.is_none() {
            destroys = destruction(&words, 0);
        }
        if let Err((code, message)) = check_segment(segment, &words) {
            unproven(&mut findings, code, message);
        }
    }

    if destroys.is_none() {
        destroys = lexed
            .substituted
            .iter()
            .find_map(|body| destruction_in_line(body, 1));
    }
    if let Some(what) = destroys {
        verdict = Verdict::Destructive;
        findings.insert(0, Finding::new(codes::COMMAND_DESTRUCTIVE, what));
    }
    if verdict == Verdict::ReadOnly {
        findings.push(Finding::new(
            codes::COMMAND_READ_ONLY,
            if lexed.segments.len() > 1 {
                format!("all {} commands only read", lexed.segments.len())
            } else {
                String::from("the command only reads")
            },
        ));
    }
    Assessment {
        verdict,
        operation,
        findings,
    }
}

/// Checks one simple command: its redirections, its program and its arguments.
fn check_segment(segment: &Segment, words: &[String]) -> Result<(), (&'static str, String)> {
    if let Some(redirect) = segment.redirects.iter().find(|r| r.writes()) {
        return Err((
            codes::COMMAND_REDIRECT_WRITE,
            format!(
                "`{}{}` writes to `{}`",
                redirect.fd.as_deref().unwrap_or(""),
                redirect.op,
                redirect.target
            ),
        ));
    }
    let Some(first) = words.first() else {
        // Only redirections that do not write, such as `< file`.
        return Ok(());
    };
    if is_assignment(first) {
        return Err((
            codes::COMMAND_ENV_ASSIGNMENT,
            format!("`{first}` sets a variable for the program it runs"),
        ));
    }
    if segment.expands && first.contains(['$', '*', '?', '[', '{']) {
        return Err((
            codes::COMMAND_EXPANSION,
            format!("the program name `{first}` is expanded by the shell"),
        ));
    }
    let Some(name) = program_name(first) else {
        return Err((
            codes::COMMAND_UNKNOWN_PROGRAM,
            format!("`{first}` is not a system program on the read-only list"),
        ));
    };
    let Some(rule) = programs::read_only(name) else {
        return Err((
            codes::COMMAND_UNKNOWN_PROGRAM,
            format!("`{name}` is not on the read-only list"),
        ));
    };
    if segment.expands && !matches!(rule, programs::Args::Any) {
        return Err((
            codes::COMMAND_EXPANSION,
            format!("`{name}` has arguments the shell expands, which could add options"),
        ));
    }
    programs::check_args(rule, words.get(1..).unwrap_or_default()).map_err(|arg| {
        (
            codes::COMMAND_UNSAFE_ARGUMENT,
            format!("`{name} {arg}` can write, delete or run programs"),
        )
    })
}

/// `NAME=value`: a shell variable assignment.
fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
        }
        None => false,
    }
}

/// The program a word names, if it is a bare name or lives in a system directory.
fn program_name(word: &str) -> Option<&str> {
    if !word.contains('/') {
        return Some(word);
    }
    SYSTEM_DIRS
        .iter()
        .find_map(|dir| word.strip_prefix(dir))
        .filter(|rest| !rest.is_empty() && !rest.contains('/'))
}

/// The last path component, for the destructive recogniser (which may over-match).
fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Whether a simple command positively destroys something, looking through
/// assignments, wrappers (`sudo`, `xargs`, …), `find -exec`/`-delete` and
/// `sh -c '…'`. Used for the guarded floor only; it may over-match, never allow.
fn destruction(words: &[String], depth: usize) -> Option<String> {
    let start = words.iter().position(|w| !is_assignment(w))?;
    let rest = words.get(start..)?;
    let (first, args) = rest.split_first()?;
    let program = base_name(first);
    if let Some(what) = programs::destructive(program) {
        return Some(format!("`{program}` {what}"));
    }
    if program == "find" {
        if args.iter().any(|a| a == "-delete") {
            return Some(String::from("`find -delete` deletes files"));
        }
        for (i, arg) in args.iter().enumerate() {
            if matches!(arg.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                if let Some(what) = args
                    .get(i + 1..)
                    .and_then(|inner| destruction(inner, depth))
                {
                    return Some(what);
                }
            }
        }
    }
    if programs::is_wrapper(program) {
        // Options of wrappers may take values; trying every position over-matches
        // harmlessly and cannot miss the wrapped program.
        return (1..rest.len())
            .find_map(|i| rest.get(i..).and_then(|inner| destruction(inner, depth)));
    }
    if programs::is_shell(program) && depth < MAX_SHELL_DEPTH {
        let script = args
            .iter()
            .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
            .and_then(|i| args.get(i + 1))?;
        return destruction_in_line(script, depth + 1);
    }
    None
}

/// Whether any simple command of a whole command line (or of a substitution
/// inside it) positively destroys something.
fn destruction_in_line(line: &str, depth: usize) -> Option<String> {
    if depth > MAX_SHELL_DEPTH {
        return None;
    }
    let lexed = lex(line).ok()?;
    lexed
        .segments
        .iter()
        .find_map(|segment| {
            shell_words::split(&segment.text)
                .ok()
                .and_then(|words| destruction(&words, depth))
        })
        .or_else(|| {
            lexed
                .substituted
                .iter()
                .find_map(|body| destruction_in_line(body, depth + 1))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(line: &str) -> Verdict {
        assess_command(line).verdict
    }

    fn first_code(line: &str) -> String {
        assess_command(line).findings.remove(0).code
    }

    #[test]
    fn seed_whitelist_and_pipelines() {
        for line in [
            "ls -la",
            "cat README.md",
            "pwd",
            "echo hello",
            "grep -rn TODO src | sort | uniq -c | head -20",
            "cd src && ls",
            "ls $HOME",
            "grep foo *.rs 2>/dev/null",
            "/usr/bin/ls -l",
            "find . -name '*.rs' -type f",
        ] {
            assert_eq!(verdict(line), Verdict::ReadOnly, "{line}");
        }
    }

    #[test]
    fn every_segment_counts() {
        assert_eq!(
            first_code("ls; make install"),
            codes::COMMAND_UNKNOWN_PROGRAM
        );
        assert_eq!(verdict("ls && rm -rf /"), Verdict::Destructive);
        assert_eq!(verdict("cat x | sh"), Verdict::Unproven);
    }

    #[test]
    fn tricks_are_not_read_only() {
        assert_eq!(
            first_code("echo $(curl -s example.com)"),
            codes::COMMAND_SUBSTITUTION
        );
        assert_eq!(
            first_code("ls > listing.txt"),
            codes::COMMAND_REDIRECT_WRITE
        );
        assert_eq!(first_code("FOO=1 ls"), codes::COMMAND_ENV_ASSIGNMENT);
        assert_eq!(first_code("find . -delete"), codes::COMMAND_DESTRUCTIVE);
        assert_eq!(
            first_code("sort -o /etc/passwd x"),
            codes::COMMAND_UNSAFE_ARGUMENT
        );
        assert_eq!(first_code("sort $OPTS x"), codes::COMMAND_EXPANSION);
        assert_eq!(first_code("$CMD x"), codes::COMMAND_EXPANSION);
        assert_eq!(first_code("./ls"), codes::COMMAND_UNKNOWN_PROGRAM);
        assert_eq!(first_code("echo 'x"), codes::COMMAND_PARSE_ERROR);
        assert_eq!(first_code("   "), codes::COMMAND_EMPTY);
        assert_eq!(first_code("# just a comment"), codes::COMMAND_EMPTY);
    }

    #[test]
    fn destruction_is_seen_through_wrappers() {
        for line in [
            "rm -rf /tmp/x",
            "sudo rm -rf /",
            "sudo -u root rm x",
            "FOO=1 rm x",
            "xargs rm < list",
            "bash -c 'echo hi; rm -rf /'",
            "sh -lc \"shutdown now\"",
            "find /tmp -exec rm {} ;",
            "/bin/rm x",
            "mkfs.ext4 /dev/sda1",
            "env rm x",
            "echo $(rm -rf ~)",
            "echo `shred secret`",
            "cat <(rm x)",
        ] {
            assert_eq!(verdict(line), Verdict::Destructive, "{line}");
        }
        assert_eq!(verdict("echo rm"), Verdict::ReadOnly);
        assert_eq!(verdict("grep rm file"), Verdict::ReadOnly);
    }
}
