//! Which programs are read-only, with which arguments; and which are positively
//! destructive (for the guarded floor only).

/// How a read-only program's arguments are checked.
#[derive(Clone, Copy, Debug)]
pub enum Args {
    /// No argument can make the program write, delete or run anything.
    Any,
    /// Read-only unless one of these options is present. `long` options also match
    /// in their `--name=value` form; `short` letters match anywhere in a cluster of
    /// short options (`-ro` contains `o`), which may over-match and is safe.
    Forbid {
        long: &'static [&'static str],
        short: &'static [char],
        /// Whole words that are forbidden (for `find`'s single-dash actions).
        words: &'static [&'static str],
    },
    /// A dedicated check; `Err` names the unsafe argument.
    Check(fn(&[String]) -> Result<(), String>),
}

/// The read-only programs. A program that is not here is not proven read-only.
pub fn read_only(program: &str) -> Option<Args> {
    let rule = match program {
        // Seed whitelist.
        "ls" | "cat" | "pwd" | "echo" | "grep" | "egrep" | "fgrep" => Args::Any,
        // Text inspection.
        "head" | "tail" | "wc" | "cut" | "tr" | "nl" | "rev" | "tac" | "column" | "cmp"
        | "comm" | "diff" | "md5sum" | "sha1sum" | "sha256sum" | "sha512sum" | "seq" | "printf"
        | "basename" | "dirname" | "realpath" | "readlink" | "stat" | "du" | "df" | "which"
        | "whereis" | "type" | "true" | "false" | "test" | "[" | "cd" => Args::Any,
        // System inspection.
        "whoami" | "id" | "uname" | "uptime" | "free" | "ps" | "pgrep" | "nproc" | "lscpu"
        | "lsblk" | "printenv" | "groups" | "arch" | "tty" | "locale" => Args::Any,
        "file" => Args::Forbid {
            long: &["--compile"],
            short: &['C'],
            words: &[],
        },
        "tree" => Args::Forbid {
            long: &[],
            short: &['o'],
            words: &[],
        },
        "sort" => Args::Forbid {
            long: &["--output", "--compress-program"],
            short: &['o'],
            words: &[],
        },
        "find" => Args::Forbid {
            long: &[],
            short: &[],
            words: &[
                "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
                "-fls",
            ],
        },
        "uniq" => Args::Check(uniq),
        "date" => Args::Check(date),
        "hostname" => Args::Check(hostname),
        "env" => Args::Check(no_arguments),
        _ => return None,
    };
    Some(rule)
}

/// Checks a read-only program's arguments against its rule.
pub fn check_args(rule: Args, args: &[String]) -> Result<(), String> {
    match rule {
        Args::Any => Ok(()),
        Args::Forbid { long, short, words } => {
            for arg in args {
                if arg == "--" {
                    break;
                }
                if words.contains(&arg.as_str()) {
                    return Err(arg.clone());
                }
                if let Some(name) = arg.strip_prefix("--") {
                    let name = name.split('=').next().unwrap_or(name);
                    if long.iter().any(|l| l.strip_prefix("--") == Some(name)) {
                        return Err(arg.clone());
                    }
                } else if let Some(cluster) = arg.strip_prefix('-') {
                    if cluster.chars().any(|c| short.contains(&c)) {
                        return Err(arg.clone());
                    }
                }
            }
            Ok(())
        }
        Args::Check(check) => check(args),
    }
}

/// `uniq [OPTION]… [INPUT [OUTPUT]]`: a second operand is a file it writes.
fn uniq(args: &[String]) -> Result<(), String> {
    let mut operands = 0;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if matches!(arg.as_str(), "-f" | "-s" | "-w") {
            iter.next();
        } else if arg == "-" || !arg.starts_with('-') {
            operands += 1;
            if operands > 1 {
                return Err(arg.clone());
            }
        }
    }
    Ok(())
}

/// `date` only displays unless it is asked to set the clock.
fn date(args: &[String]) -> Result<(), String> {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--set" || arg.starts_with("--set=") {
            return Err(arg.clone());
        }
        if matches!(
            arg.as_str(),
            "-d" | "-f" | "-r" | "--date" | "--file" | "--reference"
        ) {
            iter.next();
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            if cluster.contains('s') {
                return Err(arg.clone());
            }
        } else if !arg.starts_with("--") && !arg.starts_with('+') {
            // A bare operand such as `0101120026` sets the clock.
            return Err(arg.clone());
        }
    }
    Ok(())
}

/// `hostname` with an operand, `-F` or `-b` sets the name.
fn hostname(args: &[String]) -> Result<(), String> {
    for arg in args {
        let sets = !arg.starts_with('-')
            || matches!(arg.as_str(), "--file" | "--boot")
            || arg.starts_with("--file=")
            || (!arg.starts_with("--") && (arg.contains('F') || arg.contains('b')));
        if sets {
            return Err(arg.clone());
        }
    }
    Ok(())
}

/// Programs that run another command when given arguments (`env rm x`).
fn no_arguments(args: &[String]) -> Result<(), String> {
    match args.first() {
        Some(arg) => Err(arg.clone()),
        None => Ok(()),
    }
}

/// What a program positively destroys or stops, if it is one that does.
/// Used only for the guarded floor and explanations, never to allow.
pub fn destructive(program: &str) -> Option<&'static str> {
    let what = match program {
        "rm" | "rmdir" | "unlink" | "shred" | "srm" => "deletes files",
        "dd" | "wipefs" | "fdisk" | "sfdisk" | "parted" | "mkswap" => "overwrites disks",
        "truncate" => "truncates files",
        "kill" | "killall" | "pkill" => "kills processes",
        "shutdown" | "reboot" | "halt" | "poweroff" => "stops the machine",
        p if p.starts_with("mkfs") => "formats a file system",
        _ => return None,
    };
    Some(what)
}

/// Programs that run the command given in their arguments; the floor looks
/// through them (`sudo rm -rf /` is as destructive as `rm -rf /`).
pub fn is_wrapper(program: &str) -> bool {
    matches!(
        program,
        "sudo"
            | "doas"
            | "env"
            | "nohup"
            | "nice"
            | "ionice"
            | "time"
            | "timeout"
            | "xargs"
            | "exec"
            | "command"
            | "builtin"
            | "stdbuf"
            | "setsid"
            | "chrt"
            | "taskset"
    )
}

/// Shells whose `-c` argument is itself a command line.
pub fn is_shell(program: &str) -> bool {
    matches!(
        program,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "fish"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(program: &str, args: &[&str]) -> bool {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        read_only(program).is_some_and(|rule| check_args(rule, &args).is_ok())
    }

    #[test]
    fn forbidden_options() {
        assert!(ok("sort", &["-r", "file"]));
        assert!(!ok("sort", &["-ro", "out", "file"]));
        assert!(!ok("sort", &["--output=out"]));
        assert!(ok("find", &[".", "-name", "*.rs"]));
        assert!(!ok("find", &[".", "-delete"]));
        assert!(!ok("find", &[".", "-exec", "rm", "{}", ";"]));
        assert!(!ok("file", &["-C", "-m", "magic"]));
    }

    #[test]
    fn dedicated_checks() {
        assert!(ok("uniq", &["-c"]));
        assert!(ok("uniq", &["-f", "2", "in"]));
        assert!(!ok("uniq", &["in", "out"]));
        assert!(ok("date", &["+%Y-%m-%d"]));
        assert!(ok("date", &["-u", "-d", "yesterday"]));
        assert!(!ok("date", &["-s", "2020-01-01"]));
        assert!(!ok("date", &["0101120026"]));
        assert!(ok("hostname", &[]));
        assert!(ok("hostname", &["-f"]));
        assert!(!ok("hostname", &["evil"]));
        assert!(ok("env", &[]));
        assert!(!ok("env", &["rm", "-rf", "/"]));
    }

    #[test]
    fn unknown_programs_are_not_read_only() {
        assert!(read_only("rm").is_none());
        assert!(read_only("make").is_none());
        assert!(read_only("sed").is_none());
    }
}
