//! Grammars whose operands need more than a kind: searchers (a pattern then
//! files), compressors (only to standard output), programs that would set the
//! clock or the host name with an operand, repeat forever without a count, or
//! print the environment or the shadow database.

use super::grammar::{check_path, Grammar, Kind, Parsed, BASE};
use super::refusal::Refusal;
use super::tables;
use crate::codes;

const fn g(flags: &'static str, long_flags: &'static [&'static str]) -> Grammar {
    Grammar {
        flags,
        long_flags,
        ..BASE
    }
}

/// GNU/BSD/BusyBox grep: no option of any of them writes or runs anything;
/// `-f FILE` and `--exclude-from` read a file (checked as a path).
const GREP: Grammar = Grammar {
    valued: "ABCDdem",
    path_valued: "f",
    long_valued: &[
        "after-context",
        "before-context",
        "regexp",
        "max-count",
        "include",
        "exclude",
        "exclude-dir",
        "label",
        "devices",
        "directories",
        "binary-files",
    ],
    long_paths: &["file", "exclude-from"],
    long_optional: &["color", "colour", "context"],
    number_option: true,
    then: Some(pattern_then_paths),
    ..g(
        "EFGPivwxcLlHhnbsqroaIRTUZz",
        &[
            "extended-regexp",
            "fixed-strings",
            "basic-regexp",
            "perl-regexp",
            "ignore-case",
            "no-ignore-case",
            "invert-match",
            "word-regexp",
            "line-regexp",
            "count",
            "files-without-match",
            "files-with-matches",
            "with-filename",
            "no-filename",
            "line-number",
            "byte-offset",
            "no-messages",
            "quiet",
            "silent",
            "recursive",
            "dereference-recursive",
            "only-matching",
            "text",
            "initial-tab",
            "null",
            "null-data",
            "line-buffered",
        ],
    )
};

/// ripgrep. Not `--pre`/`--pre-glob`/`--hostname-bin` (run programs), `-z`
/// (runs decompressors), `--ignore-file` is a read (checked as a path).
const RG: Grammar = Grammar {
    valued: "ABCmegtTjdMr",
    path_valued: "f",
    long_valued: &[
        "after-context",
        "before-context",
        "context",
        "max-count",
        "regexp",
        "glob",
        "iglob",
        "type",
        "type-not",
        "threads",
        "max-depth",
        "max-columns",
        "sort",
        "sortr",
        "replace",
        "color",
        "colors",
        "encoding",
        "max-filesize",
        "context-separator",
        "field-match-separator",
        "path-separator",
    ],
    long_paths: &["file", "ignore-file"],
    then: Some(pattern_then_paths),
    ..g(
        "niSswvlcHNoFxULIqapP0h",
        &[
            "line-number",
            "ignore-case",
            "smart-case",
            "case-sensitive",
            "word-regexp",
            "invert-match",
            "files-with-matches",
            "files-without-match",
            "count",
            "count-matches",
            "with-filename",
            "no-filename",
            "no-line-number",
            "only-matching",
            "fixed-strings",
            "line-regexp",
            "multiline",
            "follow",
            "files",
            "json",
            "heading",
            "no-heading",
            "vimgrep",
            "column",
            "trim",
            "pretty",
            "null",
            "text",
            "type-list",
            "stats",
            "quiet",
            "passthru",
            "pcre2",
            "no-messages",
            "glob-case-insensitive",
            "byte-offset",
            "no-config",
            "crlf",
            "binary",
        ],
    )
};

/// `zcat`, `bzcat`, `xzcat`, `zstdcat`: print the decompressed files.
const CAT_COMPRESSED: Grammar = Grammar {
    operands: Kind::Path,
    ..g("q", &["quiet"])
};

/// The grammar of a searcher, compressor or system program, if on the list.
pub fn grammar(program: &str) -> Option<Grammar> {
    let grammar: Grammar = match program {
        // No option of grep on any platform writes or runs anything.
        "grep" | "egrep" | "fgrep" => Grammar {
            tolerant: true,
            ..GREP
        },
        "zgrep" | "zegrep" | "zfgrep" => Grammar {
            then: Some(zgrep),
            ..GREP
        },
        "rg" => RG,
        "zcat" | "bzcat" | "xzcat" | "zstdcat" => CAT_COMPRESSED,
        // `-S SUF` and xz `-C CHECK` take values and are left out; without
        // `-c`, `-l` or `-t` these replace the file they are given.
        "gzip" => Grammar {
            operands: Kind::Path,
            then: Some(to_stdout),
            ..g(
                "cdltvqnNfr123456789",
                &[
                    "stdout",
                    "to-stdout",
                    "decompress",
                    "uncompress",
                    "list",
                    "test",
                    "verbose",
                    "quiet",
                    "no-name",
                    "name",
                    "fast",
                    "best",
                    "recursive",
                ],
            )
        },
        "bzip2" => Grammar {
            operands: Kind::Path,
            then: Some(to_stdout),
            ..g(
                "cdtvqsf123456789",
                &["stdout", "decompress", "test", "verbose", "quiet", "small"],
            )
        },
        "xz" => Grammar {
            valued: "T",
            long_valued: &["threads", "format"],
            operands: Kind::Path,
            then: Some(to_stdout),
            ..g(
                "cdltvqfe0123456789",
                &[
                    "stdout",
                    "to-stdout",
                    "decompress",
                    "uncompress",
                    "list",
                    "test",
                    "verbose",
                    "quiet",
                    "extreme",
                ],
            )
        },
        // Not `-o` (writes), `--rm`, `--patch-from`, `--train`, `-D`.
        "zstd" => Grammar {
            valued: "T",
            operands: Kind::Path,
            then: Some(to_stdout),
            ..g(
                "cdltvqf0123456789",
                &[
                    "stdout",
                    "decompress",
                    "uncompress",
                    "list",
                    "test",
                    "verbose",
                    "quiet",
                ],
            )
        },
        // Any operand (or `-F`, `-b`) sets the name.
        "hostname" => Grammar {
            max_operands: 0,
            tolerant: true,
            ..g(
                "fsdiIAa",
                &[
                    "fqdn",
                    "long",
                    "short",
                    "domain",
                    "ip-address",
                    "all-ip-addresses",
                    "all-fqdns",
                    "alias",
                ],
            )
        },
        // Not `-s` (sets the clock), `-f FILE` (reads dates from a file and
        // echoes the bad ones); BSD `-f` is an input format, `-r` differs.
        "date" => Grammar {
            valued: "d",
            long_valued: &["date", "reference"],
            long_optional: &["iso-8601", "rfc-3339"],
            max_operands: 1,
            then: Some(date),
            optional_attached: "I",
            ..g(
                "uR",
                &["utc", "universal", "rfc-email", "rfc-2822", "debug"],
            )
        },
        // Not `-v VAR` (bash's builtin assigns the variable).
        "printf" => Grammar {
            then: Some(printf_format),
            ..BASE
        },
        "printenv" => Grammar {
            then: Some(printenv),
            ..g("0", &["null"])
        },
        "getent" => Grammar {
            valued: "s",
            long_valued: &["service"],
            then: Some(getent),
            ..g("i", &["no-idn"])
        },
        "vmstat" => Grammar {
            valued: "S",
            long_valued: &["unit"],
            max_operands: 2,
            then: Some(counted_operands),
            ..g(
                "adDmsftwn",
                &[
                    "active",
                    "disk",
                    "disk-sum",
                    "slabs",
                    "stats",
                    "forks",
                    "timestamp",
                    "wide",
                ],
            )
        },
        // Not `-f` (floods), `-p` (a payload), `-I` (an interface or
        // address), `-b`; a count is required (it never ends without one).
        "ping" | "ping6" => Grammar {
            valued: "ciWwst",
            max_operands: 1,
            then: Some(ping),
            ..g("46nqvDO", &[])
        },
        "sleep" => Grammar {
            then: Some(sleep),
            ..BASE
        },
        // Only in batch mode with a count: otherwise it never ends, and keys
        // typed to it can kill or renice.
        "top" => Grammar {
            valued: "ndpuUowE",
            max_operands: 0,
            then: Some(top),
            ..g("bcHiSs1", &[])
        },
        _ => return None,
    };
    Some(grammar)
}

/// zgrep (gzip 1.12; zegrep and zfgrep run it) reads each file through
/// gzip and hands grep the text on its standard input, passing on the
/// options it does not know itself: with a recursive option grep has no
/// file operand and searches the working directory
/// (`zgrep --dereference-recursive alpha a.txt` read `.env` and
/// `config/credentials.yml` when the command oracle ran every declared
/// form). gzip 1.12's zgrep refuses `-r`, `-R`, `-d`, `--recursive`,
/// `--directories`, `--include` and `--exclude*` by their prefixes but not
/// `--dereference-recursive`; other versions differ. No recursive or
/// directory option of zgrep is proven.
fn zgrep(parsed: &Parsed) -> Result<(), Refusal> {
    const RECURSIVE: &[&str] = &[
        "-r",
        "-R",
        "-d",
        "--recursive",
        "--dereference-recursive",
        "--directories",
        "--include",
        "--exclude",
        "--exclude-dir",
        "--exclude-from",
    ];
    if let Some((name, _)) = parsed
        .options
        .iter()
        .find(|(name, _)| RECURSIVE.contains(&name.as_str()))
    {
        return Err(Refusal::argument(
            &parsed.program,
            name,
            "makes grep search the working directory: zgrep hands grep the files' text on its standard input, so grep has no file operand",
        ));
    }
    pattern_then_paths(parsed)
}

/// A searcher's first operand is its pattern unless `-e`/`-f` gave one; the
/// rest are files it reads.
fn pattern_then_paths(parsed: &Parsed) -> Result<(), Refusal> {
    let given = ["-e", "-f", "--regexp", "--file"]
        .iter()
        .any(|o| parsed.has(o))
        || parsed.has("--files")
        || parsed.has("--type-list");
    let files: Vec<&String> = parsed.operands.iter().skip(usize::from(!given)).collect();
    // A recursive grep reads hidden files (`.env`, `.git/config`); over the
    // working directory, a parent, the root or home it is a secret read.
    let recursive = ["-r", "-R", "--recursive", "--dereference-recursive"]
        .iter()
        .any(|o| parsed.has(o))
        || parsed
            .values("-d")
            .chain(parsed.values("--directories"))
            .any(|v| v == "recurse");
    // A recursive search reads every file of a tree, hidden ones included,
    // and any directory may hold one with secrets: the working directory, a
    // parent, the root, home, and a subdirectory too (`backend/.env`,
    // `services/api/.env.local`). Only a filter that keeps it to named file
    // types (`--include='*.rs'`, `-g '*.py'`, `-t rust`) proves which files
    // it opens. ripgrep always recurses, and with no path searches the
    // working directory.
    let searches_tree = parsed.program == "rg" || (recursive && parsed.program.ends_with("grep"));
    if searches_tree {
        if let Some(dir) = files
            .iter()
            .find(|f| holds_secrets(f) || holds_secrets(&normalise(f)))
        {
            return Err(Refusal::new(
                crate::codes::COMMAND_SENSITIVE_PATH,
                format!(
                    "`{}` would search `{dir}`, which holds files with secrets",
                    parsed.program
                ),
            ));
        }
        // Under a confinement that masks the working tree's secrets (the
        // caller's context says so), the tree holds none to print: a search
        // of it or of a directory inside it is proven; a parent, the root
        // and home stay refused (they are not the tree the walk masked).
        let inside_tree = |f: &&String| {
            let f = normalise(f);
            !f.starts_with(['/', '~', '$']) && !f.starts_with("..")
        };
        let confined_tree = super::confined::confined() && files.iter().all(inside_tree);
        let only_files = !files.is_empty() && files.iter().all(|f| tables::reads_as_file(f));
        if !filtered_to_types(parsed) && !only_files && !confined_tree {
            let place = files
                .iter()
                .find(|f| !tables::reads_as_file(f))
                .map_or_else(
                    || String::from("the working directory"),
                    |f| format!("`{f}`"),
                );
            return Err(Refusal::new(
                crate::codes::COMMAND_SENSITIVE_PATH,
                format!(
                    "`{}` searches every file under {place}, and any directory may hold `.env` or credential files (`backend/.env`); an include filter such as `--include='*.rs'` or `-t rust` names what it reads",
                    parsed.program
                ),
            ));
        }
    }
    for file in files {
        if file.contains('\n') {
            return Err(Refusal::argument(
                &parsed.program,
                file,
                "is a file name with a line break (zgrep's script misreads it)",
            ));
        }
        check_path(&parsed.program, file)?;
    }
    Ok(())
}

/// A path with `.` components dropped and `..` taken back where it can be
/// (`/etc/.` is `/etc`, `src/..` is `.`, `/..` is `/`); a climb out of a
/// relative path stays as `..`.
fn normalise(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => String::from("."),
        (false, false) => joined,
    }
}

/// Compressors read-only only when writing to standard output, listing or testing.
fn to_stdout(parsed: &Parsed) -> Result<(), Refusal> {
    let safe = [
        "-c",
        "-l",
        "-t",
        "--stdout",
        "--to-stdout",
        "--list",
        "--test",
    ]
    .iter()
    .any(|o| parsed.has(o));
    // `-r` reads a whole tree (to standard output with `-c`), hidden
    // secret files included: not proven.
    if ["-r", "--recursive"].iter().any(|o| parsed.has(o)) {
        return Err(Refusal::argument(
            &parsed.program,
            parsed.operands.first().map_or("", String::as_str),
            "reads a directory tree recursively (`-r`), secret files included",
        ));
    }
    if !safe {
        return Err(Refusal::argument(
            &parsed.program,
            parsed.operands.first().map_or("", String::as_str),
            "replaces the file in place without `-c`, `-l` or `-t`",
        ));
    }
    parsed
        .operands
        .iter()
        .try_for_each(|o| check_path(&parsed.program, o))
}

/// `date`: a bare operand sets the clock; only `+FORMAT` prints.
fn date(parsed: &Parsed) -> Result<(), Refusal> {
    match parsed.operands.first() {
        Some(operand) if !operand.starts_with('+') => {
            Err(Refusal::argument("date", operand, "sets the clock"))
        }
        _ => Ok(()),
    }
}

/// Environment variables that hold no credentials.
const PLAIN_VARIABLES: &[&str] = &[
    "HOME",
    "PATH",
    "USER",
    "LOGNAME",
    "SHELL",
    "PWD",
    "OLDPWD",
    "LANG",
    "LANGUAGE",
    "TERM",
    "HOSTNAME",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "TMPDIR",
    "TZ",
    "SHLVL",
    "COLUMNS",
    "LINES",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "VIRTUAL_ENV",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "NODE_ENV",
    "CI",
];

/// `printenv` alone prints every variable, tokens included; it may print
/// variables known to hold none.
fn printenv(parsed: &Parsed) -> Result<(), Refusal> {
    if parsed.operands.is_empty() {
        return Err(Refusal::new(
            codes::COMMAND_ENVIRONMENT,
            String::from("`printenv` prints the whole environment, where tokens and keys live"),
        ));
    }
    match parsed
        .operands
        .iter()
        .find(|v| !(PLAIN_VARIABLES.contains(&v.as_str()) || v.starts_with("LC_")))
    {
        Some(variable) => Err(Refusal::new(
            codes::COMMAND_ENVIRONMENT,
            format!("`printenv {variable}` prints a variable that may hold a secret"),
        )),
        None => Ok(()),
    }
}

/// `getent DATABASE [KEY…]`: the databases that hold no password hashes.
fn getent(parsed: &Parsed) -> Result<(), Refusal> {
    const DATABASES: &[&str] = &[
        "passwd",
        "group",
        "hosts",
        "ahosts",
        "ahostsv4",
        "ahostsv6",
        "services",
        "protocols",
        "networks",
        "rpc",
        "ethers",
        "netgroup",
        "initgroups",
        "aliases",
    ];
    match parsed.operands.first() {
        // A key of a host database is a name to resolve: a DNS lookup, which
        // carries the name out as `host NAME` does. Without keys only the
        // local file is listed. `networks` may be served by DNS as well.
        Some(db) if db.starts_with("ahosts") || db == "hosts" || db == "networks" => {
            let keys: Vec<&str> = parsed.operands.iter().skip(1).map(String::as_str).collect();
            if keys.is_empty() {
                Ok(())
            } else {
                super::net::names("getent", &keys)
            }
        }
        Some(db) if DATABASES.contains(&db.as_str()) => Ok(()),
        Some(db) => Err(Refusal::new(
            codes::COMMAND_SENSITIVE_PATH,
            format!("`getent {db}` is not a database proven free of secrets (`shadow` holds password hashes)"),
        )),
        None => Err(Refusal::argument("getent", "", "names no database")),
    }
}

/// `vmstat DELAY` repeats forever; `vmstat DELAY COUNT` with a small count ends.
fn counted_operands(parsed: &Parsed) -> Result<(), Refusal> {
    match parsed.operands.as_slice() {
        [] => Ok(()),
        [delay, count] if small_number(delay, 60) && small_number(count, 100) => Ok(()),
        [first, ..] => Err(Refusal::argument(
            &parsed.program,
            first,
            "repeats without a small count",
        )),
    }
}

fn small_number(text: &str, most: u64) -> bool {
    !text.is_empty()
        && text.len() <= 6
        && text.chars().all(|c| c.is_ascii_digit())
        && text.parse::<u64>().is_ok_and(|n| n <= most)
}

/// `ping` needs `-c COUNT` (a small one) or it never ends.
fn ping(parsed: &Parsed) -> Result<(), Refusal> {
    let counted = parsed.values("-c").any(|c| small_number(c, 100));
    let counts_ok = parsed.values("-c").all(|c| small_number(c, 100));
    if counted && counts_ok && parsed.operands.len() == 1 {
        let names: Vec<&str> = parsed.operands.iter().map(String::as_str).collect();
        super::net::names(&parsed.program, &names)
    } else {
        Err(Refusal::argument(
            &parsed.program,
            parsed.operands.first().map_or("", String::as_str),
            "needs `-c COUNT` (at most 100) and one host, or it never ends",
        ))
    }
}

/// `sleep` for at most ten minutes in all (`infinity` never ends).
fn sleep(parsed: &Parsed) -> Result<(), Refusal> {
    let mut total = 0.0_f64;
    for operand in &parsed.operands {
        let (number, unit) = match operand.char_indices().last() {
            Some((at, 's')) => (operand.get(..at).unwrap_or(""), 1.0),
            Some((at, 'm')) => (operand.get(..at).unwrap_or(""), 60.0),
            Some((at, 'h')) => (operand.get(..at).unwrap_or(""), 3600.0),
            Some((at, 'd')) => (operand.get(..at).unwrap_or(""), 86400.0),
            _ => (operand.as_str(), 1.0),
        };
        let digits = !number.is_empty() && number.chars().all(|c| c.is_ascii_digit() || c == '.');
        match number.parse::<f64>() {
            Ok(n) if digits && n.is_finite() => total += n * unit,
            _ => {
                return Err(Refusal::argument(
                    "sleep",
                    operand,
                    "is not a plain duration",
                ))
            }
        }
    }
    if parsed.operands.is_empty() || total > 600.0 {
        return Err(Refusal::argument(
            "sleep",
            &parsed.operands.join(" "),
            "sleeps longer than ten minutes",
        ));
    }
    Ok(())
}

/// `top -b -n COUNT`.
fn top(_: &Parsed) -> Result<(), Refusal> {
    // The command oracle saw `top -b -n 1` create `~/.config/procps`: top
    // makes its settings directory on every start.
    Err(Refusal::argument(
        "top",
        "",
        "creates its settings directory on every start; `ps` lists processes without writing",
    ))
}

/// Whether a directory searched recursively holds a system secret: the
/// root, `/etc`, `/proc`, `/root`, `/home` and their like (judged by the
/// secret-path check of files that live there).
/// Whether a recursive search is kept to named file types: every include
/// glob (`--include`, `-g`, `--glob`, `--iglob`) is `*.EXT` with an extension
/// no secret file has, or a `-t`/`--type` names a language; no exclusion-only
/// or negated glob counts.
fn filtered_to_types(parsed: &Parsed) -> bool {
    let globs: Vec<&str> = ["--include", "-g", "--glob", "--iglob"]
        .iter()
        .flat_map(|o| parsed.values(o))
        .collect();
    let types = parsed.values("-t").chain(parsed.values("--type")).count();
    if globs.is_empty() && types == 0 {
        return false;
    }
    globs.iter().all(|g| {
        g.strip_prefix("*.").is_some_and(|ext| {
            !ext.is_empty()
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && crate::assess::file::secret_path(&format!("/x/a.{ext}")).is_none()
                && !matches!(
                    ext.to_ascii_lowercase().as_str(),
                    "env"
                        | "yml"
                        | "yaml"
                        | "json"
                        | "toml"
                        | "ini"
                        | "cfg"
                        | "conf"
                        | "pem"
                        | "key"
                        | "txt"
                        | "properties"
                        | "xml"
                )
        })
    })
}

fn holds_secrets(dir: &str) -> bool {
    if !(dir.starts_with('/') || dir.starts_with('~')) {
        return false;
    }
    let dir = dir.trim_end_matches('/');
    // Ancestors of the system's secret locations, and anything inside one.
    matches!(
        dir,
        "" | "/etc" | "/etc/ssl" | "/var" | "/var/run" | "/run" | "/var/lib" | "/home" | "/Users"
    ) || crate::assess::file::secret_path(&format!("{dir}/x")).is_some()
}

/// `printf` widths and precisions from arguments (`%*d`) or of seven digits
/// and more print without bound.
fn printf_format(parsed: &Parsed) -> Result<(), Refusal> {
    let Some(format) = parsed.operands.first() else {
        return Ok(());
    };
    let mut rest = format.as_str();
    while let Some(at) = rest.find('%') {
        let spec: String = rest
            .get(at + 1..)
            .unwrap_or("")
            .chars()
            .take_while(|c| !c.is_ascii_alphabetic() && *c != '%')
            .collect();
        let digits = spec
            .split(|c: char| !c.is_ascii_digit())
            .any(|run| run.len() >= 7);
        if spec.contains('*') || digits {
            return Err(Refusal::argument(
                "printf",
                format,
                "takes a width that may print without bound",
            ));
        }
        rest = rest.get(at + 1..).unwrap_or("");
    }
    Ok(())
}
