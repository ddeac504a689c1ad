//! The read-only programs, with the arguments that keep them read-only.
//!
//! A program is on this list only if, with the arguments its rule accepts, it
//! cannot write or delete a file, run another program, or change the system.
//! Everything else needs confirmation. The table is data: add a program with the
//! rule that describes its dangerous options.

use super::{git, tools};

/// How a read-only program's arguments are checked.
#[derive(Clone, Copy, Debug)]
pub enum Args {
    /// No argument can make the program write, delete or run anything.
    Any,
    /// Read-only unless one of these options is present.
    Forbid(Forbid),
    /// A dedicated check; `Err` names the unsafe argument.
    Check(fn(&[String]) -> Result<(), String>),
}

/// Options that make an otherwise read-only program write or execute.
#[derive(Clone, Copy, Debug)]
pub struct Forbid {
    /// Long options, matched in `--name=value` form and by any prefix of two or
    /// more letters (GNU getopt accepts unambiguous abbreviations: `--out=f`
    /// is `--output=f`).
    pub long: &'static [&'static str],
    /// Short option letters, matched anywhere in a cluster (`-ro` holds `o`);
    /// this over-matches a cluster whose letters are an option's value, safely.
    pub short: &'static [char],
    /// Whole words (for single-dash long options such as `find -delete`).
    pub words: &'static [&'static str],
}

const fn forbid(
    long: &'static [&'static str],
    short: &'static [char],
    words: &'static [&'static str],
) -> Args {
    Args::Forbid(Forbid { long, short, words })
}

/// The read-only programs. A program that is not here is not proven read-only.
pub fn read_only(program: &str) -> Option<Args> {
    let rule = match program {
        // Files and text: no option of these writes or executes.
        "ls" | "cat" | "pwd" | "echo" | "grep" | "egrep" | "fgrep" | "head" | "tail" | "wc"
        | "cut" | "tr" | "nl" | "rev" | "tac" | "column" | "cmp" | "comm" | "diff" | "md5sum"
        | "sha1sum" | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" | "b2sum" | "cksum"
        | "seq" | "printf" | "basename" | "dirname" | "realpath" | "readlink" | "stat" | "du"
        | "df" | "which" | "whereis" | "type" | "true" | "false" | "test" | "[" | "cd"
        | "base64" | "base32" | "od" | "hexdump" | "strings" | "fold" | "fmt" | "expand"
        | "unexpand" | "paste" | "join" | "numfmt" | "expr" | "jq" | "look" | "pathchk"
        | "nproc" | "getconf" | "tsort" | "printenv" => Args::Any,
        // The system, read-only.
        "whoami" | "id" | "uname" | "uptime" | "free" | "ps" | "pgrep" | "lscpu" | "lsblk"
        | "lsof" | "groups" | "arch" | "tty" | "locale" | "who" | "w" | "last" | "vmstat"
        | "netstat" | "cal" | "logname" | "users" | "lsusb" | "lspci" | "getent" | "lsmod"
        | "lsb_release" | "sleep" | "dig" | "nslookup" | "host" => Args::Any,
        // Compressed files printed, not unpacked.
        "zcat" | "bzcat" | "xzcat" | "zstdcat" | "zgrep" | "zegrep" | "zfgrep" => Args::Any,
        // `ping -f` floods.
        "ping" | "ping6" => forbid(&["--flood"], &['f'], &[]),
        "ip" => Args::Check(tools::ip),
        "ifconfig" => Args::Check(tools::ifconfig),
        "tar" => Args::Check(tools::tar),
        "unzip" => Args::Check(tools::unzip),
        "gzip" | "bzip2" | "xz" | "zstd" => Args::Check(tools::compressor),
        "hostnamectl" | "timedatectl" | "localectl" | "loginctl" => {
            Args::Check(tools::systemd_status)
        }
        "mount" | "ulimit" => Args::Check(tools::listing_only),
        "read" => Args::Check(tools::read),
        // `dmesg -c`/`-C` clear the kernel log, `-n`/`-D`/`-E` change the console.
        "dmesg" => forbid(
            &[
                "--clear",
                "--read-clear",
                "--console-off",
                "--console-on",
                "--console-level",
            ],
            &['c', 'C', 'D', 'E', 'n'],
            &[],
        ),
        // `ss -K` kills the sockets it lists.
        "ss" => forbid(&["--kill"], &['K'], &[]),
        "journalctl" => forbid(tools::JOURNALCTL_WRITES, &[], &[]),
        "systemctl" => Args::Check(tools::systemctl),
        "docker" => Args::Check(tools::docker),
        "kubectl" => Args::Check(tools::kubectl),
        "npm" => Args::Check(tools::npm),
        "pip" | "pip3" => Args::Check(tools::pip),
        "top" => Args::Check(tools::top),
        "history" => Args::Check(tools::history),
        "curl" => Args::Check(tools::curl),
        "file" => forbid(&["--compile"], &['C'], &[]),
        "tree" => forbid(&["--output"], &['o'], &[]),
        "sort" => forbid(&["--output", "--compress-program"], &['o'], &[]),
        "shuf" => forbid(&["--output", "--random-source"], &['o'], &[]),
        "rg" => forbid(&["--pre", "--search-zip", "--hostname-bin"], &['z'], &[]),
        "find" => forbid(
            &[],
            &[],
            &[
                "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
                "-fls",
            ],
        ),
        "yq" => forbid(&["--inplace", "--split-exp"], &['i', 's'], &[]),
        "uniq" => Args::Check(uniq),
        "date" => Args::Check(date),
        "hostname" => Args::Check(hostname),
        "xxd" => Args::Check(xxd),
        "sed" => Args::Check(sed),
        "awk" | "gawk" | "mawk" | "nawk" => Args::Check(awk),
        "git" => Args::Check(git::check),
        "python" | "python3" | "node" | "ruby" | "perl" | "php" | "java" | "go" | "cargo"
        | "rustc" | "gcc" | "clang" | "make" | "terraform" => Args::Check(version_only),
        _ => return None,
    };
    Some(rule)
}

/// Checks a read-only program's arguments against its rule.
pub fn check_args(rule: Args, args: &[String]) -> Result<(), String> {
    match rule {
        Args::Any => Ok(()),
        Args::Forbid(forbid) => check_forbid(&forbid, args),
        Args::Check(check) => check(args),
    }
}

fn check_forbid(forbid: &Forbid, args: &[String]) -> Result<(), String> {
    for arg in args {
        if arg == "--" {
            break;
        }
        if forbid.words.contains(&arg.as_str()) {
            return Err(arg.clone());
        }
        if let Some(name) = arg.strip_prefix("--") {
            if long_matches(forbid.long, name) {
                return Err(arg.clone());
            }
        } else if let Some(cluster) = arg.strip_prefix('-') {
            if cluster.chars().any(|c| forbid.short.contains(&c)) {
                return Err(arg.clone());
            }
        }
    }
    Ok(())
}

/// Whether `--name[=value]` is one of `long` or an abbreviation of one.
pub fn long_matches(long: &[&str], name: &str) -> bool {
    let name = name.split('=').next().unwrap_or(name);
    name.len() >= 2
        && long.iter().any(|l| {
            l.strip_prefix("--")
                .is_some_and(|full| full.starts_with(name))
        })
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

/// `xxd` writes its second operand, and `-r` turns a dump back into binary.
fn xxd(args: &[String]) -> Result<(), String> {
    let mut operands = 0;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "-r"
            || arg == "-revert"
            || (arg.starts_with('-') && arg.contains('r') && arg.len() == 3)
        {
            return Err(arg.clone());
        }
        if matches!(
            arg.as_str(),
            "-c" | "-g" | "-l" | "-o" | "-s" | "-n" | "-cols" | "-len" | "-seek"
        ) {
            iter.next();
        } else if !arg.starts_with('-') || arg == "-" {
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
        if let Some(name) = arg.strip_prefix("--") {
            if long_matches(&["--set"], name) {
                return Err(arg.clone());
            }
            continue;
        }
        if matches!(arg.as_str(), "-d" | "-f" | "-r" | "-I") {
            iter.next();
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-') {
            if cluster.contains('s') {
                return Err(arg.clone());
            }
        } else if !arg.starts_with('+') {
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
            || arg
                .strip_prefix("--")
                .is_some_and(|name| long_matches(&["--file", "--boot"], name))
            || (!arg.starts_with("--") && (arg.contains('F') || arg.contains('b')));
        if sets {
            return Err(arg.clone());
        }
    }
    Ok(())
}

/// Interpreters, compilers and build tools only run code, except when asked for
/// their version.
fn version_only(args: &[String]) -> Result<(), String> {
    match args {
        [only]
            if matches!(
                only.as_str(),
                "--version" | "-V" | "-v" | "-version" | "version"
            ) =>
        {
            Ok(())
        }
        [] => Err(String::from("(no arguments)")),
        [first, ..] => Err(first.clone()),
    }
}

/// `sed` without in-place editing, script files, or the `w`, `W` and `e`
/// commands and `s` flags that write files or run commands. The script is
/// parsed command by command; anything unexpected fails closed.
fn sed(args: &[String]) -> Result<(), String> {
    let mut scripts: Vec<&String> = Vec::new();
    let mut iter = args.iter();
    let mut explicit_script = false;
    let mut operands = Vec::new();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            operands.extend(iter.by_ref());
            break;
        }
        if let Some(name) = arg.strip_prefix("--") {
            if long_matches(&["--in-place", "--file"], name) {
                return Err(arg.clone());
            }
            if name.starts_with("expression=") {
                scripts.push(arg);
                explicit_script = true;
            } else if long_matches(&["--expression"], name) {
                match iter.next() {
                    Some(script) => scripts.push(script),
                    None => return Err(arg.clone()),
                }
                explicit_script = true;
            }
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            if cluster.contains('i') || cluster.contains('f') {
                return Err(arg.clone());
            }
            if let Some(at) = cluster.find('e') {
                explicit_script = true;
                let rest = cluster.get(at + 1..).unwrap_or("");
                if rest.is_empty() {
                    match iter.next() {
                        Some(script) => scripts.push(script),
                        None => return Err(arg.clone()),
                    }
                } else {
                    scripts.push(arg);
                }
            }
            continue;
        }
        operands.push(arg);
    }
    if !explicit_script {
        match operands.first() {
            Some(script) => scripts.push(script),
            None => return Err(String::from("(no script)")),
        }
    }
    for script in scripts {
        let text = script
            .strip_prefix("--expression=")
            .or_else(|| script.strip_prefix("-e"))
            .unwrap_or(script);
        sed_script_reads(text).map_err(|_| script.clone())?;
    }
    Ok(())
}

/// Parses a sed script just enough to find commands that write or execute.
fn sed_script_reads(script: &str) -> Result<(), ()> {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied();
    loop {
        // Separators and blanks between commands.
        while matches!(at(i), Some(' ' | '\t' | '\n' | ';' | '{' | '}')) {
            i += 1;
        }
        if at(i).is_none() {
            return Ok(());
        }
        // Up to two addresses: a line number, `$`, `first~step`, or `/regex/`.
        for _ in 0..2 {
            match at(i) {
                Some(c) if c.is_ascii_digit() => {
                    while at(i).is_some_and(|c| c.is_ascii_digit() || c == '~') {
                        i += 1;
                    }
                }
                Some('$') => i += 1,
                Some('/') => i = skip_delimited(&chars, i + 1, '/')?,
                Some('\\') => {
                    let delim = at(i + 1).ok_or(())?;
                    i = skip_delimited(&chars, i + 2, delim)?;
                }
                _ => break,
            }
            while matches!(at(i), Some(' ' | 'I' | 'M')) {
                i += 1;
            }
            if at(i) == Some(',') {
                i += 1;
                if at(i) == Some('+') || at(i) == Some('~') {
                    i += 1;
                }
            } else {
                break;
            }
        }
        while matches!(at(i), Some(' ' | '!')) {
            i += 1;
        }
        let command = at(i).ok_or(())?;
        i += 1;
        match command {
            // Commands without arguments.
            'p' | 'P' | 'd' | 'D' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | '=' | 'l' | 'z'
            | 'F' | 'q' | 'Q' => {
                while at(i).is_some_and(|c| c.is_ascii_digit() || c == ' ') {
                    i += 1;
                }
            }
            // Labels and branches, text to print, files to read: to end of line.
            ':' | 'b' | 't' | 'T' | 'a' | 'i' | 'c' | 'r' | 'R' => {
                while at(i).is_some_and(|c| {
                    c != '\n' && (c != ';' || matches!(command, 'a' | 'i' | 'c' | 'r' | 'R'))
                }) {
                    i += 1;
                }
            }
            's' => {
                let delim = at(i).ok_or(())?;
                if delim == '\n' || delim == '\\' {
                    return Err(());
                }
                i = skip_delimited(&chars, i + 1, delim)?;
                i = skip_delimited(&chars, i, delim)?;
                // Flags: `w file` writes, `e` executes the pattern space.
                while let Some(flag) = at(i) {
                    match flag {
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => i += 1,
                        'w' | 'W' | 'e' => return Err(()),
                        _ => break,
                    }
                }
            }
            'y' => {
                let delim = at(i).ok_or(())?;
                i = skip_delimited(&chars, i + 1, delim)?;
                i = skip_delimited(&chars, i, delim)?;
            }
            // `w`, `W` write files; `e` runs a command; anything else is unknown.
            _ => return Err(()),
        }
    }
}

/// The index just past the next unescaped `delim`, starting at `start`.
fn skip_delimited(chars: &[char], start: usize, delim: char) -> Result<usize, ()> {
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        if c == '\\' {
            i += 2;
            continue;
        }
        if c == delim {
            return Ok(i + 1);
        }
        i += 1;
    }
    Err(())
}

/// `awk` whose program cannot run commands or write files: no `system`, no
/// output redirection or pipes (`>`, `|`), no `getline` (which can read a
/// command's output), no extensions (`@load`), no program files. `>` also
/// rules out a comparison; a false prompt is the safe side.
fn awk(args: &[String]) -> Result<(), String> {
    let mut iter = args.iter();
    let mut program: Option<&String> = None;
    while let Some(arg) = iter.next() {
        if program.is_some() {
            break;
        }
        match arg.as_str() {
            // A field separator or a variable only sets data.
            "-F" | "-v" => {
                iter.next();
            }
            "--" => program = iter.next(),
            a if a.starts_with("-F")
                || a.starts_with("-v")
                || a.starts_with("--field-separator=")
                || a.starts_with("--assign=") => {}
            // Program files, includes, extensions and every other option.
            a if a.starts_with('-') && a.len() > 1 => return Err(arg.clone()),
            _ => program = Some(arg),
        }
    }
    let Some(program) = program else {
        return Err(String::from("(no program)"));
    };
    let lower = program.to_ascii_lowercase();
    if program.contains(['|', '>', '@']) || lower.contains("system") || lower.contains("getline") {
        return Err(program.clone());
    }
    Ok(())
}

/// What a program positively destroys or stops, if it is one that does.
/// Used only for the guarded floor and explanations, never to allow.
pub fn destructive(program: &str, args: &[String]) -> Option<&'static str> {
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let recursive = args.iter().any(|a| {
        a == "--recursive" || (a.starts_with('-') && !a.starts_with("--") && a.contains('R'))
    });
    let what = match program {
        "rm" | "rmdir" | "unlink" | "shred" | "srm" | "wipe" => "deletes files",
        "dd" | "wipefs" | "fdisk" | "sfdisk" | "gdisk" | "parted" | "mkswap" | "blkdiscard" => {
            "overwrites disks"
        }
        "truncate" => "truncates files",
        "kill" | "killall" | "pkill" | "killall5" => "kills processes",
        "shutdown" | "reboot" | "halt" | "poweroff" => "stops the machine",
        "init" | "telinit"
            if args
                .first()
                .is_some_and(|a| matches!(a.as_str(), "0" | "6" | "1" | "s" | "S")) =>
        {
            "changes the run level"
        }
        "systemctl"
            if args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "poweroff" | "reboot" | "halt" | "kexec" | "rescue" | "emergency"
                )
            }) =>
        {
            "stops the machine"
        }
        "sudo" | "doas" | "su" | "pkexec" | "runuser" => "runs a command as another user",
        "chmod" | "chown" | "chgrp" | "setfacl" if recursive => "changes permissions recursively",
        "dropdb" | "dropuser" => "drops a database",
        "mysqladmin" if has("drop") => "drops a database",
        "redis-cli"
            if args.iter().any(|a| {
                a.eq_ignore_ascii_case("flushall") || a.eq_ignore_ascii_case("flushdb")
            }) =>
        {
            "empties a database"
        }
        "crontab" if has("-r") => "deletes the crontab",
        "iptables" | "ip6tables" | "nft" if has("-F") || has("--flush") || has("flush") => {
            "flushes the firewall"
        }
        "userdel" | "groupdel" | "deluser" | "delgroup" => "deletes accounts",
        "git" => return git::destructive(args),
        "mv" if args.last().is_some_and(|a| a == "/dev/null") => "destroys a file",
        p if p.starts_with("mkfs") => "formats a file system",
        _ => return None,
    };
    Some(what)
}

/// Programs that only run the command given in their arguments.
pub fn is_shell(program: &str) -> bool {
    matches!(
        program,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "fish" | "mksh" | "busybox"
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
        assert!(!ok("sort", &["--out=out"]), "abbreviation");
        assert!(!ok("sort", &["--compress-prog=sh"]));
        assert!(ok("find", &[".", "-name", "*.rs"]));
        assert!(!ok("find", &[".", "-delete"]));
        assert!(!ok("find", &[".", "-exec", "rm", "{}", ";"]));
        assert!(!ok("file", &["-C", "-m", "magic"]));
        assert!(!ok("rg", &["--pre", "sh", "x"]));
        assert!(!ok("rg", &["-z", "x"]));
        assert!(ok("rg", &["-n", "TODO", "src"]));
        assert!(!ok("tree", &["-o", "out.txt"]));
    }

    #[test]
    fn dedicated_checks() {
        assert!(ok("uniq", &["-c"]));
        assert!(ok("uniq", &["-f", "2", "in"]));
        assert!(!ok("uniq", &["in", "out"]));
        assert!(ok("date", &["+%Y-%m-%d"]));
        assert!(ok("date", &["-u", "-d", "yesterday"]));
        assert!(!ok("date", &["-s", "2020-01-01"]));
        assert!(!ok("date", &["--se=2020-01-01"]));
        assert!(!ok("date", &["0101120026"]));
        assert!(ok("hostname", &[]));
        assert!(ok("hostname", &["-f"]));
        assert!(!ok("hostname", &["evil"]));
        assert!(ok("xxd", &["file.bin"]));
        assert!(!ok("xxd", &["-r", "dump", "out"]));
        assert!(!ok("xxd", &["in", "out"]));
        assert!(ok("python3", &["--version"]));
        assert!(!ok("python3", &["-c", "print(1)"]));
        assert!(!ok("python3", &[]));
    }

    #[test]
    fn sed_scripts() {
        for args in [
            &["-n", "1,10p", "file"][..],
            &["s/foo/bar/g", "file"],
            &["-e", "s/a/b/", "-e", "/x/d", "f"],
            &["-n", "/start/,/end/p"],
            &["-E", "s|a|b|2"],
            &["$!N;P;D"],
            &["10q"],
            &["--expression=s/a/b/", "f"],
            &["y/abc/xyz/"],
            &["-n", "$="],
        ] {
            assert!(ok("sed", args), "{args:?}");
        }
        for args in [
            &["-i", "s/a/b/", "f"][..],
            &["-i.bak", "s/a/b/", "f"],
            &["--in-place", "s/a/b/", "f"],
            &["s/a/b/w out.txt", "f"],
            &["s/.*/id/e"],
            &["w out.txt"],
            &["1e id"],
            &["-f", "script.sed"],
            &["-n", "W /tmp/x"],
            &[],
        ] {
            assert!(!ok("sed", args), "{args:?}");
        }
    }

    #[test]
    fn awk_programs() {
        assert!(ok("awk", &["{print $1}", "file"]));
        assert!(ok("awk", &["-F", ":", "{print $1}", "/etc/passwd"]));
        assert!(ok("awk", &["-v", "n=3", "NR<=n"]));
        assert!(!ok("awk", &["BEGIN{system(\"rm -rf /\")}"]));
        assert!(!ok("awk", &["{print > \"out\"}"]));
        assert!(!ok("awk", &["{print | \"sh\"}"]));
        assert!(!ok("awk", &["BEGIN{\"id\" | getline x}"]));
        assert!(!ok("awk", &["-f", "prog.awk"]));
        assert!(!ok("gawk", &["@load \"readfile\"; {}"]));
    }

    #[test]
    fn unknown_programs_are_not_read_only() {
        for program in [
            "rm", "mv", "LS", "cats", "tee", "wget", "xargs", "bash", "sudo",
        ] {
            assert!(read_only(program).is_none(), "{program}");
        }
    }
}
