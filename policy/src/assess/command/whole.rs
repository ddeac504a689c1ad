//! The checks of a parsed whole that grammars in the program table name as
//! their `then`: what a kind per operand cannot say (a pattern before the
//! files, an operand count, required options, output only to standard
//! output, numbers within bounds, host names handed to the egress rule).

use super::grammar::{check_path, Parsed};
use super::refusal::Refusal;
use crate::codes;

/// `seq` prints at most a bounded count: `seq inf` or a huge last bound floods.
/// `diff`: a directory operand is a set of files. Two directories compared
/// print every file both hold (`diff backend ~` prints a `.env` of each);
/// a file against a directory reads the directory's file of the same name,
/// which the secret check of the file's name already covers. So at least one
/// compared operand must read as a file: `-` or a last component with an
/// extension (`a.txt`). A directory disguised under such a name is a trap of
/// the tree the executor's confinement answers (SECURITY.md, "Commands").
pub(super) fn diff_operands(parsed: &Parsed) -> Result<(), Refusal> {
    let compared: Vec<&str> = parsed
        .operands
        .iter()
        .map(String::as_str)
        .chain(parsed.values("--from-file"))
        .chain(parsed.values("--to-file"))
        .collect();
    if compared.iter().any(|o| reads_as_file(o)) {
        return Ok(());
    }
    Err(Refusal::new(
        crate::codes::COMMAND_SENSITIVE_PATH,
        format!(
            "`diff {}` may compare two directories, printing every file both hold (secret files included)",
            crate::text::preview(&compared.join(" "), 60)
        ),
    ))
}

/// Whether a path reads as a file rather than a directory: `-`, or a last
/// component with an extension after a stem (`a.txt`, not `.config`, `src`,
/// `..` or `dir/`).
pub(super) fn reads_as_file(path: &str) -> bool {
    // `-` is standard input; a process substitution is a pipe.
    if path == "-" || path.ends_with("process-substitution") {
        return true;
    }
    if path.ends_with('/') {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    name.get(1..).is_some_and(|rest| {
        rest.rsplit_once('.')
            .is_some_and(|(_, ext)| !ext.is_empty() && !ext.contains(['*', '?', '[']))
    })
}

pub(super) fn seq(parsed: &Parsed) -> Result<(), Refusal> {
    let numbers: Vec<Option<f64>> = parsed
        .operands
        .iter()
        .map(|o| o.parse::<f64>().ok().filter(|n| n.is_finite()))
        .collect();
    let bounded = match numbers.as_slice() {
        [Some(last)] => *last <= 1e7,
        [Some(first), Some(last)] => (last - first).abs() <= 1e7,
        [Some(first), Some(step), Some(last)] => {
            step.abs() > 0.0 && ((last - first) / step).abs() <= 1e7
        }
        _ => false,
    };
    if bounded {
        Ok(())
    } else {
        Err(Refusal::argument(
            "seq",
            &parsed.operands.join(" "),
            "is not a bounded count of numbers",
        ))
    }
}

/// GNU `strings @FILE` reads more options from a file.
pub(super) fn strings(parsed: &Parsed) -> Result<(), Refusal> {
    for operand in &parsed.operands {
        if operand.starts_with('@') {
            return Err(Refusal::argument(
                "strings",
                operand,
                "reads further options from a file",
            ));
        }
        check_path("strings", operand)?;
    }
    Ok(())
}

/// `expr` words are the expression; none may look like an option.
pub(super) fn expr(parsed: &Parsed) -> Result<(), Refusal> {
    if parsed.operands.is_empty() {
        return Err(Refusal::argument("expr", "", "has no expression"));
    }
    Ok(())
}

/// `look STRING [FILE]`: the file is read.
pub(super) fn look(parsed: &Parsed) -> Result<(), Refusal> {
    match parsed.operands.get(1) {
        Some(file) => check_path("look", file),
        None => Ok(()),
    }
}

/// `shuf -e` shuffles its operands; otherwise it reads a file.
pub(super) fn shuf(parsed: &Parsed) -> Result<(), Refusal> {
    let counted = parsed.has("-n") || parsed.has("--head-count");
    if (parsed.has("-i") || parsed.has("--input-range")) && !counted {
        return Err(Refusal::argument(
            "shuf",
            "-i",
            "without `-n` prints a range that may be unbounded",
        ));
    }
    if parsed.has("-e") || parsed.has("--echo") || parsed.has("-i") || parsed.has("--input-range") {
        return Ok(());
    }
    if parsed.operands.len() > 1 {
        return Err(Refusal::argument(
            "shuf",
            &parsed.operands.join(" "),
            "names more than one input",
        ));
    }
    parsed
        .operands
        .iter()
        .try_for_each(|o| check_path("shuf", o))
}

/// `tail`: an obsolete `+NUMf` operand may be read as "follow"; `+` is
/// accepted only before digits.
pub(super) fn tail(parsed: &Parsed) -> Result<(), Refusal> {
    for operand in &parsed.operands {
        if let Some(rest) = operand.strip_prefix('+') {
            if !rest.chars().all(|c| c.is_ascii_digit()) {
                return Err(Refusal::option("tail", operand));
            }
        }
        check_path("tail", operand)?;
    }
    Ok(())
}

/// `lsof +r` repeats forever and `+D`/`+d` take values: `+` options are
/// not declared. `-D` only as `i` (ignore the device cache file), `-F` only
/// with field letters and digits.
/// net-tools 2.10's netstat names every address it lists by asking the
/// resolver unless `-n` is given (`netstat -g` asked for
/// `1.0.0.224.in-addr.arpa` and the IPv6 group addresses when the command
/// oracle ran every declared form): a lookup of a name the line does not
/// hold, sent to whatever resolver the machine has. Only the interface and
/// statistics tables list no address; everything else needs `-n`.
pub(super) fn netstat(parsed: &Parsed) -> Result<(), Refusal> {
    if parsed.has("-n") || parsed.has("--numeric") {
        return Ok(());
    }
    let tables = ["-i", "--interfaces", "-s", "--statistics"];
    let shaping = ["-e", "--extend", "-v", "-W", "--wide"];
    let no_addresses = tables.iter().any(|t| parsed.has(t))
        && parsed
            .options
            .iter()
            .all(|(name, _)| tables.contains(&name.as_str()) || shaping.contains(&name.as_str()));
    if no_addresses {
        Ok(())
    } else {
        Err(Refusal::argument(
            "netstat",
            &parsed.option_names(),
            "looks up the name of every address it lists (a host the line does not name) without `-n`",
        ))
    }
}

/// `lsof`: the files it names, or with `-n` any selection.
///
/// Without `-n` lsof converts the address of every network file it lists to
/// a host name (lsof(8): "-n inhibits the conversion of network numbers to
/// host names for network files"), a lookup of names the line does not hold,
/// sent to the machine's resolver, as netstat's is. Without `-n` a line is
/// proven only when it selects nothing but the files it names (no `-p`,
/// `-u`, `-c`, `-d`, `-g`, `-i`, `-U` selection, which lsof joins with "or"):
/// a named file is never a network file (lsof 4.95 run here lists nothing
/// for a socket's `/proc/PID/fd/N`, and with no operand it lists every open
/// file, sockets included). A host `-i@NAME` names is looked up even with
/// `-n`, so it goes to the egress rule as `host` does.
pub(super) fn lsof(parsed: &Parsed) -> Result<(), Refusal> {
    if let Some(option) = parsed.operands.iter().find(|o| o.starts_with('+')) {
        return Err(Refusal::option(&parsed.program, option));
    }
    let numeric = parsed.has("-n");
    let selectors = ["-p", "-u", "-c", "-d", "-g", "-i", "-U"];
    let selects = parsed
        .options
        .iter()
        .any(|(n, _)| selectors.contains(&n.as_str()));
    if !numeric && (selects || parsed.operands.is_empty()) {
        return Err(Refusal::argument(
            "lsof",
            &parsed.option_names(),
            "looks up the host name of every network address it lists (a host the line does not name) without `-n`",
        ));
    }
    if let Some(value) = parsed.values("-D").find(|v| *v != "i") {
        return Err(Refusal::argument(
            "lsof",
            "-D",
            &format!("`{value}` reads or writes the device cache"),
        ));
    }
    if let Some(value) = parsed
        .values("-F")
        .find(|v| !v.chars().all(|c| c.is_ascii_alphanumeric()))
    {
        return Err(Refusal::argument(
            "lsof",
            "-F",
            &format!("`{value}` is not a list of field letters"),
        ));
    }
    Ok(())
}

/// The host of an lsof `-i` address (`4TCP@host:80`, `@[::1]`), when it
/// names one.
/// The host names in `ss`'s filter (its entry's reach). ss.c reads leading
/// `state NAME` and `exclude NAME` pairs, then hands the rest to its filter,
/// whose lexer (`ssfilter.y`, iproute2 6.1) splits tokens at spaces and tabs
/// only and reads every token that is not a keyword or operator as an
/// address, resolving a name through the resolver: `ss lnp` looked up `lnp`
/// (the command oracle saw it), and so would `ss established`. The value
/// after `dev`, `fwmark` and `cgroup`, ports (`:ssh`, looked up in the local
/// services file) and address literals are not names; every other token is
/// one, with its `:port` or `/prefix` removed (a token the egress rule cannot
/// read as a host, `(dport` or one with a backslash, is refused there).
pub fn ss_names(parsed: &Parsed) -> Option<Vec<&str>> {
    const KEYWORDS: &[&str] = &[
        "!",
        "not",
        "&",
        "&&",
        "and",
        "|",
        "||",
        "or",
        "(",
        ")",
        "dst",
        "src",
        "dport",
        "sport",
        ">=",
        "ge",
        "geq",
        "<=",
        "le",
        "leq",
        "!=",
        "ne",
        "neq",
        "=",
        "==",
        "eq",
        ">",
        "gt",
        "<",
        "lt",
        "autobound",
    ];
    let mut operands = parsed.operands.iter().map(String::as_str).peekable();
    while operands
        .peek()
        .is_some_and(|o| matches!(*o, "state" | "exclude" | "excl"))
    {
        operands.next();
        operands.next();
    }
    let mut names = Vec::new();
    let mut skip_next = false;
    for word in operands
        .flat_map(|o| o.split([' ', '\t']))
        .filter(|w| !w.is_empty())
    {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if matches!(word, "dev" | "fwmark" | "cgroup") {
            skip_next = true;
            continue;
        }
        if KEYWORDS.contains(&word) || word.starts_with(':') {
            continue;
        }
        let host = if word.starts_with('[') {
            word.trim_start_matches('[').split(']').next().unwrap_or("")
        } else if word.matches(':').count() > 1 {
            word
        } else {
            word.split(':').next().unwrap_or("")
        };
        let host = host.split('/').next().unwrap_or("");
        // Only what ss parses as an address is one: `1.2.3.4.` and `.` are
        // names it resolves (strace, iproute2 6.1); a plain number is an
        // address to it.
        let literal = host == "*"
            || host.parse::<std::net::IpAddr>().is_ok()
            || (!host.is_empty() && host.chars().all(|c| c.is_ascii_digit()));
        if !literal {
            names.push(host);
        }
    }
    (!names.is_empty()).then_some(names)
}

/// The hosts `lsof -i @HOST` names (its entry's reach). `-i ADDR` may also
/// be written apart (`lsof -i @mace`): every operand with an `@` is read as
/// an address too.
pub fn lsof_names(parsed: &Parsed) -> Option<Vec<&str>> {
    let hosts: Vec<&str> = parsed
        .values("-i")
        .chain(parsed.operands.iter().map(String::as_str))
        .filter_map(lsof_host)
        .collect();
    (!hosts.is_empty()).then_some(hosts)
}

fn lsof_host(address: &str) -> Option<&str> {
    let (_, rest) = address.split_once('@')?;
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => rest.split(':').next().unwrap_or(rest),
    };
    // An address literal is compared, not looked up.
    (!host.is_empty() && host.parse::<std::net::IpAddr>().is_err()).then_some(host)
}

/// Every file `head` reads passes the path checks (endless devices are
/// `unbounded`'s, which knows what bounds them).
pub(super) fn head(parsed: &Parsed) -> Result<(), Refusal> {
    for operand in &parsed.operands {
        check_path("head", operand)?;
    }
    Ok(())
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
pub(super) fn zgrep(parsed: &Parsed) -> Result<(), Refusal> {
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
pub(super) fn pattern_then_paths(parsed: &Parsed) -> Result<(), Refusal> {
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
        let only_files = !files.is_empty() && files.iter().all(|f| reads_as_file(f));
        if !filtered_to_types(parsed) && !only_files && !confined_tree {
            let place = files.iter().find(|f| !reads_as_file(f)).map_or_else(
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
pub(super) fn to_stdout(parsed: &Parsed) -> Result<(), Refusal> {
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
pub(super) fn date(parsed: &Parsed) -> Result<(), Refusal> {
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
pub(super) fn printenv(parsed: &Parsed) -> Result<(), Refusal> {
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
/// Not `netgroup`, which Debian's nsswitch.conf serves from NIS (a server
/// the line does not name).
pub(super) fn getent(parsed: &Parsed) -> Result<(), Refusal> {
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
        "initgroups",
        "aliases",
    ];
    // Only the local files answer: another service (`-s dns`, `-s hesiod`)
    // asks a server the line does not name. A key of a host database is a
    // name to resolve (the entry's reach, `getent_names`).
    if let Some(service) = parsed
        .values("-s")
        .chain(parsed.values("--service"))
        .find(|s| *s != "files")
    {
        return Err(Refusal::argument(
            "getent",
            service,
            "asks an NSS service other than the local files (a server the line does not name)",
        ));
    }
    match parsed.operands.first() {
        Some(db) if DATABASES.contains(&db.as_str()) => Ok(()),
        Some(db) => Err(Refusal::new(
            codes::COMMAND_SENSITIVE_PATH,
            format!("`getent {db}` is not a database proven free of secrets (`shadow` holds password hashes)"),
        )),
        None => Err(Refusal::argument("getent", "", "names no database")),
    }
}

/// The names `getent` resolves (its entry's reach): a key of a host
/// database is a name to resolve, a DNS lookup that carries the name out as
/// `host NAME` does (`networks` may be served by DNS as well). Without keys
/// only the local file is listed.
pub fn getent_names(parsed: &Parsed) -> Option<Vec<&str>> {
    match parsed.operands.first() {
        Some(db)
            if (db.starts_with("ahosts") || db == "hosts" || db == "networks")
                && parsed.operands.len() > 1 =>
        {
            Some(parsed.operands.iter().skip(1).map(String::as_str).collect())
        }
        _ => None,
    }
}

/// `vmstat DELAY` repeats forever; `vmstat DELAY COUNT` with a small count ends.
pub(super) fn counted_operands(parsed: &Parsed) -> Result<(), Refusal> {
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
pub(super) fn ping(parsed: &Parsed) -> Result<(), Refusal> {
    let counted = parsed.values("-c").any(|c| small_number(c, 100));
    let counts_ok = parsed.values("-c").all(|c| small_number(c, 100));
    if counted && counts_ok && parsed.operands.len() == 1 {
        Ok(())
    } else {
        Err(Refusal::argument(
            &parsed.program,
            parsed.operands.first().map_or("", String::as_str),
            "needs `-c COUNT` (at most 100) and one host, or it never ends",
        ))
    }
}

/// `sleep` for at most ten minutes in all (`infinity` never ends).
pub(super) fn sleep(parsed: &Parsed) -> Result<(), Refusal> {
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
pub(super) fn top(_: &Parsed) -> Result<(), Refusal> {
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
pub(super) fn printf_format(parsed: &Parsed) -> Result<(), Refusal> {
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

/// `journalctl -b -1`: journalctl reads the word after `-b` as the boot's
/// offset when it parses as one (journalctl.c, `case 'b'`); anywhere else a
/// `-NUM` is an option it refuses (journalctl 252, run here: `invalid option
/// -- '3'`), so it is not proven.
pub(super) fn journalctl(parsed: &Parsed) -> Result<(), Refusal> {
    for (at, (name, value)) in parsed.options.iter().enumerate() {
        if name != "-NUM" {
            continue;
        }
        let after_boot = at
            .checked_sub(1)
            .and_then(|before| parsed.options.get(before))
            .is_some_and(|(n, v)| (n == "-b" || n == "--boot") && v.is_none());
        if !after_boot {
            return Err(Refusal::option(
                "journalctl",
                &format!("-{}", value.as_deref().unwrap_or("")),
            ));
        }
    }
    Ok(())
}
