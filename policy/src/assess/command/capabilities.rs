//! What a program can do beyond what its line names: the capability column
//! of the program table. A model's `low` never passes these under guarded
//! trust, whatever the program is on no list: the floor reads them on every
//! command the read-only grammar did not prove (a proven read is allowed
//! anyway, so a capability never turns a proof into a refusal).
//!
//! The rows are per program and form, held in the program's entry of the
//! program table ([`super::table`]), gathered from GTFOBins (the public
//! catalogue of what Unix programs can be made to do; its `_gtfobins/<name>`
//! files, snapshot 7382261ef936e35896ba70e7a6b833352ffb9a22, name the
//! function — shell, command, file-write, upload, download, reverse-shell,
//! bind-shell, library-load, privilege-escalation — with a code snippet) and
//! from the programs' own manuals; each row cites its source. Rows for `*`
//! hold for any program: options whose name says they run a command, and
//! environment variables that make a program run code or load a library.
//!
//! Matching over-matches on purpose (it only asks a person); it never allows.

use super::names::{base_name, harmless_variable, is_assignment, is_wrapper};
use super::table;

/// What a form lets the line do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// Runs code the line does not name: an escape, an `exec=` option, a
    /// pager's or editor's command, a build file, package scripts.
    RunsCode,
    /// Loads a library or plug-in into the process.
    LoadsLibrary,
    /// Sends files to, or fetches files from, another machine.
    Transfers,
    /// Opens a shell or a listener on a network socket.
    Socket,
    /// Changes privileges, owners, capabilities or accounts.
    Privileges,
    /// Changes the host: clock, network, mounts, kernel, services, packages.
    HostState,
    /// Removes or overwrites an existing file.
    Overwrites,
    /// Writes a place that runs code later (start-up files, cron, hooks).
    Persistence,
}

impl Capability {
    /// The message fragment, after the program's name.
    pub fn message(self) -> &'static str {
        match self {
            Capability::RunsCode => "runs code the line does not name",
            Capability::LoadsLibrary => "loads a library or plug-in",
            Capability::Transfers => "sends or fetches files over the network",
            Capability::Socket => "opens a shell or a listener on a network socket",
            Capability::Privileges => "changes privileges, owners or accounts",
            Capability::HostState => {
                "changes the host's state (clock, network, mounts, kernel, services, packages)"
            }
            Capability::Overwrites => "removes or overwrites an existing file",
            Capability::Persistence => "writes a place that runs code later",
        }
    }
}

/// How a row matches a command's words (the words after the program).
#[derive(Clone, Copy, Debug)]
pub enum Form {
    /// Any use of the program.
    Always,
    /// No argument at all (an interactive session: a REPL, a client).
    NoOperand,
    /// An option, as `-o`, `--opt`, `--opt=value`, or a short option with its
    /// value attached (`-ovalue`); compared case-sensitively.
    Option(&'static str),
    /// A GNU long option or any abbreviation of it at least `min` bytes long
    /// (`--i` is `--in-place` to GNU sed: getopt_long takes unique prefixes).
    LongPrefix(&'static str, usize),
    /// A short option letter, alone or bundled with others (`-i`, `-ni`).
    Short(char),
    /// A word among the operands (a subcommand or an action).
    Word(&'static str),
    /// A word that starts with this text (`set-`, `exec:`, `kernel.`).
    WordPrefix(&'static str),
    /// A word that holds this text (`=`, `ProxyCommand`).
    Contains(&'static str),
    /// At least this many operands that are neither options, values of the
    /// listed options, nor start with `+` (`date 0101…` sets the clock,
    /// `date +%F` and `date -d 2024-01-01` print; `hostname NAME`).
    Operands(usize, &'static [&'static str]),
    /// A mode that sets the set-user-ID or set-group-ID bit (`u+s`, `4755`).
    SetIdMode,
    /// Code given to an interpreter (`-e`, `-c`, a script operand) that holds
    /// this text; read only when the program runs code it is given.
    Code(&'static str),
    /// An operand, unless one of these options is present (`gzip FILE`
    /// replaces FILE with FILE.gz unless `-c`/`-k`/`-l`/`-t`…).
    OperandUnless(&'static [&'static str]),
    /// One of these words (the subcommand) with nothing after it but
    /// options, values of the listed options, or a local path: the program
    /// works on the project in the working directory (`npm install`,
    /// `npm -C . i`) or in a folder (`npm install ./pkg`) and runs the
    /// scripts its manifest holds. A registry package's name after the word
    /// (`npm install left-pad`) is not this form.
    Project(&'static [&'static str], &'static [&'static str]),
    /// One of these words followed by a local path or a URL among its
    /// operands (values of the listed options skipped: `-r requirements.txt`):
    /// the program builds the project there through its build backend
    /// (`pip install .`, `pip install -e .`).
    LocalOperand(&'static [&'static str], &'static [&'static str]),
    /// A task runner: its first operand (values of the listed options
    /// skipped) names a task or a script unless it is one of the first
    /// list's words; with no operand it runs its default task (or installs
    /// the project), unless it is asked for its version, help or list (an
    /// option in the second list).
    Task(
        &'static [&'static str],
        &'static [&'static str],
        &'static [&'static str],
    ),
}

/// One row of a program's capabilities (the `capabilities` of its entry in
/// the program table, or the rows for any program, [`table::ANY`]).
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The form.
    pub form: Form,
    /// What it can do.
    pub capability: Capability,
    /// Where the row comes from: a GTFOBins entry (`GTFOBins tar: shell`)
    /// or a manual page section.
    pub source: &'static str,
}

use Form::{
    Always, Code, Contains, LocalOperand, LongPrefix, NoOperand, OperandUnless, Operands,
    Option as Opt, Project, SetIdMode, Short, Task, Word, WordPrefix,
};

/// The operands of `args` (from the start), skipping options and the
/// values of the `valued` options that take their value as the next word.
fn plain_operands<'a>(
    args: &'a [String],
    valued: &'a [&'static str],
) -> impl Iterator<Item = &'a str> + 'a {
    let mut skip = false;
    args.iter().filter_map(move |arg| {
        if skip {
            skip = false;
            return None;
        }
        if valued.contains(&arg.as_str()) {
            skip = true;
            return None;
        }
        (!arg.starts_with('-')).then_some(arg.as_str())
    })
}

/// Whether an operand names a local folder, a file or a URL rather than a
/// registry package (`.`, `./pkg`, `~/x`, `src/pkg`, `file:…`,
/// `git+https://…`, `pkg.tgz`); a scoped npm name (`@scope/pkg`) is a
/// package.
fn local_operand(operand: &str) -> bool {
    operand.starts_with('.')
        || operand.starts_with('~')
        || operand.contains(':')
        || (operand.contains('/') && !operand.starts_with('@'))
        || [".tgz", ".tar.gz", ".tar", ".zip", ".tar.bz2"]
            .iter()
            .any(|ext| operand.ends_with(ext))
}

/// The arguments after the first one that is among `words`, if any is.
fn after_word<'a>(args: &'a [String], words: &[&str]) -> Option<&'a [String]> {
    let at = args.iter().position(|a| words.contains(&a.as_str()))?;
    args.get(at + 1..)
}

/// Environment variables that make a program run code, load a library or
/// read code from another place, set for one command (`X=… prog`) or with
/// `env`/`export`. Sources: GTFOBins (less, git, crash, restic, perl,
/// autoconf, nroff, facter, bundle, systemctl, zypper) and ld.so(8),
/// bash(1), git(1), python(1), node(1), perlrun(1), ruby(1), java(1).
pub const CODE_VARIABLES: &[&str] = &[
    "LESSOPEN",
    "LESSCLOSE",
    "LESSEDIT",
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "CRASHPAGER",
    "EDITOR",
    "VISUAL",
    "GIT_EDITOR",
    "SYSTEMD_EDITOR",
    "SUDO_EDITOR",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_EXEC_PATH",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_DIR",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "PS4",
    "PERL5OPT",
    "PERL5LIB",
    "PERL5DB",
    "PERLLIB",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONINSPECT",
    "NODE_OPTIONS",
    "NODE_PATH",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "AUTOM4TE",
    "GROFF_BIN_PATH",
    "FACTERLIB",
    "RESTIC_PASSWORD_COMMAND",
    "BUNDLE_GEMFILE",
    "GCONV_PATH",
    "PATH",
    "IFS",
    "HISTFILE",
];

/// Shells (GTFOBins: ash, bash, csh, dash, elvish, fish, ksh, posh, pwsh,
/// rc, sash, tcsh, yash, zsh): run with no script they read commands; a word
/// naming one hands the program a shell (`env /bin/sh`, `-I '/bin/sh -c …'`,
/// `exec:/bin/sh`).
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "pdksh", "csh", "tcsh", "fish", "ash", "yash",
    "posh", "rc", "elvish", "sash", "pwsh",
];

/// The shells whose bare name, as a whole word, is read as a shell (the
/// others are also ordinary words: `rc`, `posh`).
const COMMON_SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "ash", "pwsh",
];

/// The pieces of a word the floor reads separately: what shells, option
/// parsers and interpreters would cut it into (`--opt=F`, `@F`, `x=@F`,
/// `'sh -c …'`, `exec:/bin/sh,pty`, `%(…)`, `{…}`).
pub fn tokens(word: &str) -> impl Iterator<Item = &str> {
    word.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\'' | '"'
                    | '='
                    | ','
                    | ';'
                    | '|'
                    | '&'
                    | '('
                    | ')'
                    | '{'
                    | '}'
                    | '<'
                    | '>'
                    | '`'
                    | '@'
                    | '!'
                    | '$'
                    | '['
                    | ']'
            )
    })
    .filter(|t| !t.is_empty())
}

/// Whether a token names a shell: a bare shell name, or an absolute path to
/// one (`/bin/sh`, `-H/bin/sh` with the option letter attached, `exec:/bin/sh`).
fn shell_token(token: &str, whole_word: bool) -> bool {
    let tail = token.rsplit([':', '/']).next().unwrap_or(token);
    if whole_word && COMMON_SHELLS.contains(&tail) && !token.contains('/') {
        return true;
    }
    SHELLS.contains(&tail) && (token.contains("/bin/") || token.starts_with('/'))
}

/// The most words of one command the capability rows are matched against.
const MAX_WORDS: usize = 256;

/// A capability the words of one command show, with the row's source: the
/// program's rows, the rows of any program, a shell handed to it, or a
/// code-running variable set for it. `words` is the whole simple command
/// (assignments first).
pub fn capability(words: &[String]) -> Option<String> {
    let start = words
        .iter()
        .position(|w| !is_assignment(w))
        .unwrap_or(words.len());
    // `IFS= read -r line` sets the separators for `read` alone.
    let read = words.get(start).is_some_and(|w| w == "read");
    for assignment in words.get(..start).unwrap_or_default() {
        if read && assignment.starts_with("IFS=") {
            continue;
        }
        if let Some(found) = variable(assignment) {
            return Some(found);
        }
    }
    let (first, args) = words.get(start..)?.split_first()?;
    let program = base_name(first);
    if args.len() > MAX_WORDS {
        // The rows are matched word by word; past this many the floor
        // assumes the worst rather than read on.
        return Some(format!(
            "`{program}` has more than {MAX_WORDS} words, more than the floor reads for capabilities"
        ));
    }
    if program == "env" || program == "export" || program == "declare" || program == "typeset" {
        if let Some(found) = args.iter().find_map(|a| variable(a)) {
            return Some(found);
        }
    }
    if let Some(found) = program_rows(program, args) {
        return Some(found);
    }
    // A shell run with no script, or reading its commands from its input.
    if SHELLS.contains(&program) {
        let operand = args
            .iter()
            .any(|a| !a.starts_with('-') && !a.starts_with('+'));
        let reads_input = args.iter().any(|a| {
            a == "-s"
                || a == "-i"
                || a == "-"
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && (a.contains('s') || a.contains('i')))
        });
        if !operand || reads_input {
            return Some(format!(
                "`{program}` opens a shell that reads commands (GTFOBins {program}: shell)"
            ));
        }
    }
    let mut previous_runs = false;
    for (i, arg) in args.iter().enumerate().take(256) {
        // A whole word naming a shell right after the program or after a
        // word that runs the rest (`env sh`, `exec sh`, `-exec sh`).
        let whole = i == 0 || previous_runs || is_wrapper(program);
        if tokens(arg).any(|t| shell_token(t, whole && t == arg.as_str()))
            || (whole && shell_token(arg, true))
        {
            return Some(format!(
                "`{program}` is handed a shell (`{}`): it runs commands the line does not name (GTFOBins: shell)",
                crate::text::preview(arg, 40)
            ));
        }
        previous_runs = matches!(
            arg.as_str(),
            "exec" | "-exec" | "-execdir" | "--" | "-c" | "run" | "execute"
        );
    }
    // Through wrappers (`sudo`, `nice`, `timeout 5`, …): the wrapped program's
    // rows, tried at every later word.
    if is_wrapper(program) || matches!(program, "sudo" | "doas" | "exec" | "command" | "builtin") {
        for (i, arg) in args.iter().enumerate().take(16) {
            if arg.starts_with('-') || is_assignment(arg) {
                continue;
            }
            if let Some(found) = program_rows(base_name(arg), args.get(i + 1..).unwrap_or_default())
            {
                return Some(found);
            }
        }
    }
    None
}

/// The rows for any program, then the rows of `program`'s entry, that match
/// its arguments: the first one found.
fn program_rows(program: &str, args: &[String]) -> Option<String> {
    let own = table::lookup(program).map_or(&[][..], |entry| entry.capabilities);
    table::ANY
        .iter()
        .chain(own)
        .find(|r| matches(&r.form, program, args))
        .map(|r| format!("`{program}` {} ({})", r.capability.message(), r.source))
}

/// A code-running variable assignment (`LESSOPEN=…`), if `word` is one, or
/// any assignment of a variable off the list of harmless ones the
/// read-only grammar keeps ([`harmless_variable`]: `TZ`, `LC_*`, `LANG`,
/// `COLUMNS`, `NO_COLOR`, …). A variable moves where a program reads its
/// configuration, data or code: `HOME=.` and `XDG_CONFIG_HOME=.` make git
/// read the working tree's `.gitconfig` (whose `core.pager` it runs),
/// `TERMINFO=.` makes tput parse the tree's terminal database,
/// `MAGIC=.env` makes file(1) print a line of `.env` in its error and
/// `HOSTALIASES=.env` makes the resolver read it (each seen in a
/// sandbox). Which variables a program reads is its own, so only the
/// list's are passed.
fn variable(word: &str) -> Option<String> {
    let (name, _) = word.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    if CODE_VARIABLES.contains(&name) {
        return Some(format!("`{name}` makes the program run code or load a library the line does not name (GTFOBins, ld.so(8), bash(1))"));
    }
    (!harmless_variable(name)).then(|| {
        format!("`{name}` may move where the program reads its configuration, data or code, and is not a variable known to be harmless (environ(7))")
    })
}

/// Programs that run code they are given (`-e`, `-c`, a script): the
/// interpreters, and the GTFOBins programs with an inline-code form.
fn runs_given_code(program: &str) -> bool {
    super::names::is_interpreter(program)
        || super::floor::inline_code(program)
        || matches!(
            program,
            "jrunscript"
                | "jjs"
                | "jshell"
                | "ghc"
                | "ghci"
                | "guile"
                | "clisp"
                | "gnuplot"
                | "octave"
                | "octave-cli"
                | "slsh"
                | "R"
                | "bpftrace"
                | "puppet"
                | "gdb"
                | "expect"
                | "wish"
                | "pwsh"
                | "powershell"
        )
}

/// Whether a `chmod` mode sets the set-user-ID or set-group-ID bit:
/// symbolic (`u+s`, `g=s`, `+s`, `a+rws`) or octal with four digits whose
/// first holds 4 or 2 (`4755`, `6777`, `2755`).
fn set_id_mode(mode: &str) -> bool {
    if mode.bytes().all(|b| b.is_ascii_digit()) {
        return mode.len() >= 4
            && mode
                .bytes()
                .rev()
                .nth(3)
                .is_some_and(|d| matches!(d, b'2'..=b'7'));
    }
    mode.split(',').any(|clause| {
        clause
            .find(['+', '='])
            .and_then(|at| clause.get(at..))
            .is_some_and(|perms| perms.contains('s'))
    })
}

/// Whether an option word is `option` (or `option=value`, or a short option
/// with its value attached).
fn is_option(word: &str, option: &str) -> bool {
    word == option
        || word.strip_prefix(option).is_some_and(|rest| {
            rest.starts_with('=')
                || (option.len() == 2
                    && !option.starts_with("--")
                    && !rest.is_empty()
                    && !word.starts_with("--"))
        })
}

fn matches(form: &Form, program: &str, args: &[String]) -> bool {
    let operands = || args.iter().filter(|a| !a.starts_with('-'));
    match *form {
        Always => true,
        NoOperand => args.is_empty(),
        Code(text) => runs_given_code(program) && args.iter().any(|a| a.contains(text)),
        Operands(min, valued) => {
            let mut count = 0;
            let mut skip = false;
            for arg in args {
                if skip {
                    skip = false;
                    continue;
                }
                if valued.contains(&arg.as_str()) {
                    skip = true;
                } else if !arg.starts_with('-') && !arg.starts_with('+') {
                    count += 1;
                }
            }
            count >= min
        }
        SetIdMode => operands().next().is_some_and(|mode| set_id_mode(mode)),
        Opt(option) => args.iter().any(|a| is_option(a, option)),
        LongPrefix(long, min) => args.iter().any(|a| {
            let name = a.split('=').next().unwrap_or(a);
            name.len() >= min && name.starts_with("--") && long.starts_with(name)
        }),
        Short(letter) => args.iter().any(|a| {
            a.starts_with('-')
                && !a.starts_with("--")
                && a.get(1..).is_some_and(|flags| {
                    // Letters before the first non-letter (a value attached to
                    // an option that takes one ends the bundle).
                    flags
                        .chars()
                        .take_while(char::is_ascii_alphabetic)
                        .any(|c| c == letter)
                })
        }),
        Word(word) => args.iter().any(|a| a == word),
        WordPrefix(prefix) => args.iter().any(|a| a.starts_with(prefix)),
        Contains(text) => args.iter().any(|a| a.contains(text)),
        OperandUnless(options) => {
            let excused = args.iter().any(|a| {
                options.contains(&a.as_str())
                    || (a.starts_with('-')
                        && !a.starts_with("--")
                        && options.iter().any(|o| {
                            o.len() == 2
                                && !o.starts_with("--")
                                && a.get(1..)
                                    .is_some_and(|f| f.contains(o.get(1..).unwrap_or("")))
                        }))
            });
            !excused && operands().next().is_some()
        }
        Project(words, valued) => after_word(args, words).is_some_and(|rest| {
            let mut operands = plain_operands(rest, valued).peekable();
            operands.peek().is_none() || operands.any(local_operand)
        }),
        LocalOperand(words, valued) => after_word(args, words)
            .is_some_and(|rest| plain_operands(rest, valued).any(local_operand)),
        Task(reads, asks, valued) => match plain_operands(args, valued).next() {
            Some(first) => !reads.contains(&first),
            None => !args.iter().any(|a| asks.contains(&a.as_str())),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(line: &str) -> Option<String> {
        capability(&line.split(' ').map(str::to_owned).collect::<Vec<_>>())
    }

    #[test]
    fn capabilities_by_class() {
        for line in [
            "tar cf /dev/null /dev/null --checkpoint=1 --checkpoint-action=exec=/bin/sh",
            "git ls-remote --upload-pack=x origin",
            "make -n",
            "gzip notes.txt",
            "sed --i s/a/b/ notes.txt",
            "sed -ni s/a/b/ notes.txt",
            "ip a a 10.0.0.1/24 dev lo",
            "date 01010000",
            "dmesg -c",
            "mount /dev/sda1 /mnt",
            "LESSOPEN=x less README.md",
            "env /bin/sh",
            "nice -n 5 sh",
            "sudo gzip notes.txt",
            "chmod u+s x",
            "chmod 4755 x",
            "nc -l -p 12345",
            "socat - exec:/bin/sh,pty",
            "man -H/bin/sh man",
            "bash",
            "bash -i",
            // The project's own recipes: lifecycle and named scripts, build
            // backends, build scripts, build files, task files.
            "npm install",
            "npm -C . i",
            "npm install ./pkg",
            "npm ci",
            "npm test",
            "yarn",
            "yarn --cwd .",
            "yarn --cwd . xxx",
            "pnpm build",
            "pip install .",
            "pip install -e src/pkg",
            "pip install git+https://x.test/y.git",
            "cargo check",
            "go generate",
            "mvn package",
            "./gradlew build",
            "just",
            "tox",
        ] {
            assert!(found(line).is_some(), "{line}");
        }
    }

    #[test]
    fn benign_siblings_have_none() {
        for line in [
            "./custom-report.sh --dry",
            "python x.py",
            "bash build.sh",
            "date +%F",
            "date",
            "gzip -c notes.txt",
            "gzip -k notes.txt",
            "sed -n 1p notes.txt",
            "dmesg -T",
            "chmod 644 x",
            "chmod +x run.sh",
            "frobnicate --level 3 input.txt",
            "git commit -m fix-the-bash-completion",
            // Installs of named registry packages, and of a requirements
            // file, stand on a low (the floor vectors' "an install, not a
            // removal"); the project's own install runs its scripts.
            "npm install left-pad",
            "npm install -D @types/node",
            "pip install requests",
            "pip install -r requirements.txt",
            "pnpm add left-pad",
            "npm ls",
            "yarn --version",
            "cargo --version",
            "cargo tree",
            "cargo install ripgrep",
            "mvn -v",
            "gradle --version",
            "just --list",
        ] {
            assert_eq!(found(line), None, "{line}");
        }
    }
}
