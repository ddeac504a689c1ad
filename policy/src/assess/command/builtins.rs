//! Shell builtins that assign variables, evaluate text or change the shell
//! (they are not read-only, whatever they print), and the commands that print
//! the environment (where tokens and keys live).

use crate::codes;

/// Builtins that set variables, evaluate text as code, load files or change
/// how the shell runs the rest of the line.
const SHELL_STATE: &[(&str, &str)] = &[
    ("read", "sets variables from its input"),
    ("mapfile", "sets an array from its input"),
    ("readarray", "sets an array from its input"),
    (
        "let",
        "evaluates arithmetic, which assigns and expands subscripts",
    ),
    ("eval", "runs its arguments as a command line"),
    ("source", "runs a file's commands in this shell"),
    (".", "runs a file's commands in this shell"),
    ("exec", "replaces the shell or changes its descriptors"),
    ("shopt", "changes shell options"),
    ("alias", "defines aliases"),
    ("unalias", "removes aliases"),
    ("unset", "removes variables or functions"),
    ("trap", "runs a command on a signal or exit"),
    ("enable", "loads or disables builtins"),
    ("bind", "changes key bindings"),
    ("complete", "changes completion"),
    ("getopts", "sets variables"),
    ("hash", "changes the program lookup table"),
    ("pushd", "changes the directory stack"),
    ("popd", "changes the directory stack"),
    ("shift", "changes the positional parameters"),
    ("builtin", "runs a builtin by name"),
    ("fc", "runs commands from history"),
    ("disown", "detaches jobs"),
    ("bg", "resumes jobs"),
    ("fg", "resumes jobs"),
    ("wait", "waits for jobs"),
    ("suspend", "stops the shell"),
    ("coproc", "runs a command in the background"),
];

/// Variables whose values are no secret and whose expansion is an everyday
/// spelling (`ls $HOME`, `echo $PWD`).
pub fn harmless_expansion(name: &str) -> bool {
    name.starts_with("LC_")
        || (name.len() == 1 && "0123456789@*#?$!-".contains(name))
        || matches!(
            name,
            "HOME"
                | "PWD"
                | "OLDPWD"
                | "USER"
                | "LOGNAME"
                | "SHELL"
                | "HOSTNAME"
                | "HOSTTYPE"
                | "OSTYPE"
                | "MACHTYPE"
                | "TERM"
                | "LANG"
                | "LANGUAGE"
                | "TZ"
                | "TMPDIR"
                | "UID"
                | "EUID"
                | "PPID"
                | "SHLVL"
                | "RANDOM"
                | "SECONDS"
                | "LINENO"
                | "BASH_VERSION"
                | "BASHPID"
                | "COLUMNS"
                | "LINES"
                | "PATH"
                | "EDITOR"
                | "PAGER"
                | "XDG_CONFIG_HOME"
                | "XDG_DATA_HOME"
                | "XDG_CACHE_HOME"
                | "XDG_RUNTIME_DIR"
                | "GOPATH"
                | "GOROOT"
                | "GOOS"
                | "GOARCH"
                | "JAVA_HOME"
                | "VIRTUAL_ENV"
                | "CONDA_PREFIX"
                | "CONDA_DEFAULT_ENV"
                | "PYTHONPATH"
                | "CARGO_HOME"
                | "RUSTUP_HOME"
                | "NVM_DIR"
                | "DISPLAY"
                | "VISUAL"
                | "NODE_ENV"
                | "LD_LIBRARY_PATH"
                | "MANPATH"
                | "HISTSIZE"
        )
}

/// Judges a builtin or environment printer: `None` when `name` is neither.
pub fn check(name: &str, args: &[String]) -> Option<Result<(), (&'static str, String)>> {
    let environment = |what: &str| {
        Some(Err((
            codes::COMMAND_ENVIRONMENT,
            format!("`{what}` prints the environment, which may hold tokens and keys"),
        )))
    };
    if let Some((_, why)) = SHELL_STATE.iter().find(|(n, _)| *n == name) {
        return Some(Err((codes::COMMAND_SHELL_STATE, format!("`{name}` {why}"))));
    }
    match name {
        "declare" | "typeset" | "local" | "export" | "readonly" => {
            if args.is_empty() || args.iter().any(|a| a.starts_with('-') && a.contains('p')) {
                environment(name)
            } else {
                Some(Err((
                    codes::COMMAND_SHELL_STATE,
                    format!("`{name}` sets variables"),
                )))
            }
        }
        "set" if args.is_empty() => environment("set"),
        "set" => Some(Err((
            codes::COMMAND_SHELL_STATE,
            String::from("`set` changes shell options or the positional parameters"),
        ))),
        "printenv" if args.is_empty() || !args.iter().all(|a| harmless_expansion(a)) => {
            environment("printenv")
        }
        "compgen" => environment("compgen"),
        // BSD-style `ps e` / `ps eww` adds each process's environment.
        "ps" if ps_environment(args) => environment("ps e"),
        "awk" | "gawk" | "mawk" | "nawk"
            if args
                .iter()
                .any(|a| a.contains("ENVIRON") || a.contains("PROCINFO")) =>
        {
            environment("awk ENVIRON")
        }
        _ => None,
    }
}

/// Whether `ps` would add each process's environment: a BSD word (no dash)
/// with an `e`, or `environ` anywhere. The words that are option values
/// (`-eo euser,comm`, `axo stat,euid`, `-p 1`) are columns or ids, not BSD
/// letters, so they are passed over as `checks::ps` reads them.
fn ps_environment(args: &[String]) -> bool {
    use super::checks::{PS_BSD_VALUED, PS_LONG_VALUED, PS_UNIX_VALUED};
    let mut values = 0usize;
    for arg in args {
        if arg.contains("environ") {
            return true;
        }
        if values > 0 {
            values -= 1;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            values = usize::from(!long.contains('=') && PS_LONG_VALUED.contains(&long));
        } else if let Some(cluster) = arg.strip_prefix('-') {
            values = usize::from(
                cluster
                    .find(|c: char| PS_UNIX_VALUED.contains(c))
                    .is_some_and(|at| at + 1 == cluster.len()),
            );
        } else if arg.contains('e') {
            return true;
        } else {
            values = arg.chars().filter(|c| PS_BSD_VALUED.contains(*c)).count();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(name: &str, args: &[&str]) -> Option<&'static str> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        check(name, &args).and_then(|r| r.err()).map(|(c, _)| c)
    }

    #[test]
    fn builtins_and_environment() {
        assert_eq!(code("read", &["x"]), Some(codes::COMMAND_SHELL_STATE));
        assert_eq!(code("declare", &["-p"]), Some(codes::COMMAND_ENVIRONMENT));
        assert_eq!(code("export", &["A=1"]), Some(codes::COMMAND_SHELL_STATE));
        assert_eq!(code("ps", &["eww"]), Some(codes::COMMAND_ENVIRONMENT));
        assert_eq!(code("ps", &["aux"]), None);
        assert_eq!(code("ps", &["-ef"]), None);
        assert_eq!(code("ps", &["-eo", "euser,fname"]), None);
        assert_eq!(code("ps", &["axo", "stat,euid"]), None);
        assert_eq!(
            code("ps", &["-p", "1", "e"]),
            Some(codes::COMMAND_ENVIRONMENT)
        );
        assert_eq!(
            code("ps", &["o", "pid", "e"]),
            Some(codes::COMMAND_ENVIRONMENT)
        );
        assert_eq!(
            code("ps", &["axeo", "pid"]),
            Some(codes::COMMAND_ENVIRONMENT)
        );
        assert_eq!(code("printenv", &["HOME"]), None);
        assert_eq!(
            code("printenv", &["AWS_SECRET_ACCESS_KEY"]),
            Some(codes::COMMAND_ENVIRONMENT)
        );
        assert_eq!(code("ls", &[]), None);
    }
}
