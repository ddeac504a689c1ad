//! What a word of a command names: a program (bare, or in a system
//! directory), a variable assignment, a variable a loop may set, an
//! interpreter or a wrapper. Plain functions of the word, shared by the
//! judgement of a line ([`super::walk`]), of one command (the parent module)
//! and of the program tables ([`super::tools`], [`super::unbounded`]), so none
//! of those needs another for its vocabulary.

/// Directories whose programs are the system's own: `/usr/bin/ls` is `ls`, but
/// `./ls` or `/tmp/ls` is whatever that file holds.
const SYSTEM_DIRS: &[&str] = &[
    "/bin/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/sbin/",
    "/usr/sbin/",
];

/// Variables that only change formatting, so `LC_ALL=C sort` stays read-only.
pub fn harmless_variable(name: &str) -> bool {
    name.starts_with("LC_")
        || matches!(
            name,
            "LANG"
                | "LANGUAGE"
                | "TZ"
                | "NO_COLOR"
                | "CLICOLOR"
                | "FORCE_COLOR"
                | "COLUMNS"
                | "LINES"
                | "TERM"
                | "GREP_COLOR"
                | "GREP_COLORS"
        )
}

/// Interpreters that run a program read from standard input (the entry's
/// `interpreter` in the program table).
pub fn is_interpreter(program: &str) -> bool {
    super::table::has(program, |entry| entry.interpreter)
}

/// A variable a loop or `read` may set: a lower-case name (upper case is where
/// the environment lives: `PATH`, `IFS`, `LD_PRELOAD`…) that is not tied to one
/// in some shell (zsh's `path`, `cdpath`, `fpath`, `manpath`, …).
pub fn safe_loop_variable(name: &str) -> bool {
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    valid
        && !matches!(
            name,
            "path"
                | "cdpath"
                | "fpath"
                | "manpath"
                | "module_path"
                | "mailpath"
                | "psvar"
                | "watch"
                | "_"
        )
}

/// `NAME=value`: a shell variable assignment.
pub fn is_assignment(word: &str) -> bool {
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
pub fn program_name(word: &str) -> Option<&str> {
    if !word.contains('/') {
        return Some(word);
    }
    SYSTEM_DIRS
        .iter()
        .find_map(|dir| word.strip_prefix(dir))
        .filter(|rest| !rest.is_empty() && !rest.contains('/'))
}

/// The last path component, for the destructive recogniser (which may over-match).
pub fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Programs the destructive recogniser looks through (it may over-match): the
/// entry's `wrapper` in the program table.
pub fn is_wrapper(program: &str) -> bool {
    super::table::has(program, |entry| entry.wrapper)
}
