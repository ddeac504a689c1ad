//! What the floor reads beyond the program table's rows: the readings some
//! rows name (a database client's destroying statements, forced pushes, git
//! aliases that run a shell, `tee` truncating its files), credentials
//! printed, the HTTP clients' words, and every word of a command the
//! grammar did not prove (secret files and internal hosts in any spelling,
//! paths no reading can place). Used only to refuse a "low" rating, never
//! to allow; it may over-match.

use super::capabilities;
use super::paths::{COMPUTED, LOOP_VALUE};
use super::table::{self, Client, Sends};
use crate::codes;

/// What a database client is given that drops, deletes or rewrites data.
const DESTROYING_STATEMENTS: &[&str] = &[
    "drop ",
    "drop\t",
    "drop\n",
    "truncate",
    "delete ",
    "delete\n",
    "update ",
    "alter ",
    "dropdatabase",
    ".drop(",
    "deletemany",
    "deleteone",
    "remove(",
    "flushall",
    "flushdb",
    // A client's own commands that run a shell or write files: SQLite's
    // `.shell`, `.system`, `.output`/`.once`, psql's and mysql's `\!`,
    // psql's `\o`, `program` (COPY to or from a program).
    ".shell",
    ".system",
    ".output",
    ".once",
    "\\!",
    "\\o",
    "program",
];

/// Which stored credential a command line prints, if it names one: a row of
/// the `credentials` of the program's entry (the program, then words that
/// must follow in this order; other words, options with their values, may
/// come between: `gcloud --project p auth print-access-token`), or any
/// `docker-credential-*` helper's `get`. They need no file a path check
/// could see, so the floor names them.
pub fn prints_credentials(program: &str, args: &[String]) -> Option<String> {
    if program.starts_with("docker-credential-") && args.iter().any(|a| a == "get") {
        return Some(format!("`{program} get` prints a registry credential"));
    }
    let entry = table::lookup(program)?;
    entry
        .credentials
        .iter()
        .find(|words| {
            let mut rest = args.iter();
            words.iter().all(|w| rest.any(|a| a == w))
        })
        .map(|words| {
            format!(
                "`{} {}` prints a stored credential",
                entry.name,
                words.join(" ")
            )
        })
}

/// What an HTTP client's words send or reach: files it uploads or reads
/// requests from, and words that may be URLs. Over-matches (the floor only
/// asks a person): every operand may be a URL, with or without a scheme
/// (`curl 169.254.169.254/latest`), and so may a proxy.
#[derive(Debug, Default)]
pub struct ClientWords {
    /// Files whose bytes go out (`-d @F`, `-F x=@F`, `-T F`, `-H @F`,
    /// `--post-file=F`, httpie's `field@F`) or that configure the request
    /// (`-K F`, `-b F`, `-i F`).
    pub files: Vec<String>,
    /// Words that may name the target or a proxy.
    pub urls: Vec<String>,
}

/// The files and possible targets of an HTTP client's words, if `program`
/// is one.
pub fn client_words(program: &str, args: &[String]) -> Option<ClientWords> {
    let client = table::lookup(program)?.client?;
    let (options, items) = match client {
        Client::Options(options) => (options, false),
        Client::Items => (&[][..], true),
    };
    let mut out = ClientWords::default();
    let mut seen_url = false;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let (name, attached) = match word.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ if word.len() > 2 && word.starts_with('-') && !word.starts_with("--") => (
                word.get(..2).unwrap_or(word),
                word.get(2..).map(str::to_owned),
            ),
            _ => (word.as_str(), None),
        };
        if let Some((_, kind)) = options.iter().find(|(o, _)| *o == name) {
            let Some(value) = attached.or_else(|| words.next().cloned()) else {
                continue;
            };
            match kind {
                Sends::File => out.files.push(value),
                Sends::Proxy => out.urls.push(value),
                Sends::Plain => {}
                Sends::Data => {
                    let named = value
                        .find("=@")
                        .or_else(|| value.find("=<"))
                        .and_then(|at| value.get(at + 2..));
                    if let Some(file) = value.strip_prefix('@').or(named) {
                        // A form field's options follow the file (`=@f;type=x`).
                        out.files
                            .push(file.split(';').next().unwrap_or(file).to_owned());
                    } else if (name == "-b" || name == "--cookie") && !value.contains('=') {
                        out.files.push(value);
                    }
                }
            }
            continue;
        }
        if word.starts_with('-') {
            continue;
        }
        if items {
            // `[METHOD] URL [ITEM…]`: the method is upper-case letters, the
            // first other operand the URL, the rest request items.
            if !seen_url && !word.is_empty() && word.bytes().all(|b| b.is_ascii_uppercase()) {
                continue;
            }
            if seen_url {
                if let Some(at) = word.find('@').filter(|at| *at > 0) {
                    let file = word.get(at + 1..).unwrap_or("");
                    out.files.push(file.to_owned());
                }
                continue;
            }
            seen_url = true;
            if word.starts_with(':') {
                out.urls.push(format!("localhost{word}"));
                continue;
            }
        }
        out.urls.push(word.clone());
    }
    Some(out)
}

/// Whether a database client's words, or the text on its input, hold a
/// statement that drops, deletes or rewrites data, or a client command that
/// runs a shell or writes a file (compared in lower case as substrings).
pub fn destroying_statement(args: &[String], input: &[String]) -> bool {
    args.iter().chain(input).any(|a| {
        let lower = a.to_ascii_lowercase();
        DESTROYING_STATEMENTS.iter().any(|s| lower.contains(s))
    })
}

/// `git -c alias.x='!cmd'`: an alias that runs a shell command.
pub fn git_shell_alias(args: &[String]) -> bool {
    args.iter()
        .any(|a| a.contains("alias.") && a.contains("=!"))
}

/// `tee FILE` without `-a` (or a prefix of `--append`) truncates FILE; the
/// standard streams and `/dev/null` are not files it overwrites.
pub fn tee_overwrites(args: &[String]) -> bool {
    !args.iter().any(|a| a == "-a" || a.starts_with("--a"))
        && args.iter().any(|a| {
            !a.starts_with('-')
                && !matches!(a.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr")
        })
}

/// `git push` forms that overwrite or delete remote history, beyond the
/// exact spellings the git table knows (`--force-with-lease=…`, `--mirror`,
/// `+ref`, `:ref`, abbreviations of `--force`).
pub fn git_push(args: &[String]) -> Option<&'static str> {
    let push = args.iter().position(|a| a == "push")?;
    let rest = args.get(push + 1..)?;
    rest.iter()
        .any(|a| {
            a.starts_with("--force")
                || a.starts_with("--mirror")
                || a.starts_with("--delete")
                || a.starts_with("--prune")
                || (a.len() > 3 && "--force".starts_with(a.split('=').next().unwrap_or(a)))
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && (a.contains('f') || a.contains('d')))
                || a.starts_with('+')
                || a.contains(":")
                    && !a.contains("://")
                    && a.split(':').next().is_some_and(str::is_empty)
        })
        .then_some("overwrites or deletes remote history")
}

/// Interpreters whose inline program (`-e`, `-c`, an awk or sed script) the
/// floor reads word by word for destroying programs (`system("rm -rf ~")`):
/// the entry's `inline_code`.
pub fn inline_code(program: &str) -> bool {
    table::has(program, |entry| entry.inline_code)
}

/// Calls in inline code (Python, Perl, Ruby, Node, PHP, Lua, Tcl…) that
/// delete, truncate or overwrite files, or run commands, compared in lower
/// case as substrings: over-matching only asks a person.
const DESTROYING_CALLS: &[&str] = &[
    "rmtree",
    "remove(",
    "unlink",
    "rmdir",
    "removedirs",
    "rmsync",
    "rm_rf",
    "rm_r(",
    "rm_f",
    "fileutils",
    "file.delete",
    "dir.delete",
    "delete_file",
    "truncate",
    "shutil.move",
    "os.rename",
    "os.replace",
    "renamesync",
    "rename(",
    "writefile",
    "write_text",
    "write_bytes",
    "'w'",
    "\"w\"",
    "'wb'",
    "\"wb\"",
    "'w+'",
    "\"w+\"",
    "> \"",
    ">\"",
    "os.system",
    "subprocess",
    "popen",
    "spawn",
    "execsync",
    "execfile",
    "exec(",
    "execv",
    "system(",
    "`",
    "%x",
    "child_process",
    "shell_exec",
    "passthru",
    "proc_open",
    "pcntl_exec",
    "os.execute",
    "io.popen",
    "eval(",
    "__import__",
    "kill(",
    "chmod",
    "chown",
    "killpg",
    "fs.rm",
    "fs.write",
    "deno.remove",
    "deno.run",
    "deno.command",
    "bun.spawn",
    "bun.write",
    "file_put_contents",
    "fwrite",
    "fputs",
    "socket",
    "connect(",
];

/// The first destroying call in inline code, if any.
pub fn destroying_call(code: &str) -> Option<&'static str> {
    let lower = code.to_ascii_lowercase();
    DESTROYING_CALLS.iter().copied().find(|c| lower.contains(c))
}

/// Programs that run their arguments as a command somewhere else (another
/// machine, container, namespace or multi-call binary): the floor reads the
/// arguments as a command line. The entry's `runs_arguments` says when.
pub fn runs_arguments(program: &str, args: &[String]) -> bool {
    table::lookup(program)
        .and_then(|entry| entry.runs_arguments)
        .is_some_and(|when| when.holds(args, &[]))
}

/// The secret file a word names, read every way a program might take it:
/// the whole word, an option's value (`--key=F`, `-TF`), each piece a shell,
/// an option parser or an interpreter would cut out of it (`@F`, `x=@F`,
/// `'cat F'`, `exec:cat F`), and a `file://` URL's path. `secret` is the
/// places' check (relative paths from every directory a `cd` entered).
/// Computed pieces are not read here: their own checks report them.
/// `globbed`: the shell expands the whole word as a pattern (pieces of a
/// quoted string are not patterns to the shell).
pub fn secret_in_word(
    word: &str,
    globbed: bool,
    secret: impl Fn(&str, bool) -> Option<String>,
) -> Option<String> {
    let check = |piece: &str, globbed: bool| -> Option<String> {
        let piece = piece.strip_prefix("file://").unwrap_or(piece);
        if piece.is_empty() || piece.contains([COMPUTED, LOOP_VALUE]) {
            return None;
        }
        secret(piece, globbed)
    };
    // A whole word with white space or control characters is no one path
    // (a script, a here-document): only its pieces are.
    if !word.starts_with('-') && !word.contains(|c: char| c.is_whitespace() || c.is_control()) {
        if let Some(why) = check(word, globbed) {
            return Some(why);
        }
    }
    let check = |piece: &str| check(piece, false);
    for token in capabilities::tokens(word).take(64) {
        if let Some(why) = check(token) {
            return Some(why);
        }
        // A short option with its value attached (`-T~/.ssh/id_rsa`).
        let attached = token
            .strip_prefix('-')
            .filter(|rest| !rest.starts_with('-'))
            .and_then(|rest| rest.get(1..));
        if let Some(why) = attached.and_then(check) {
            return Some(why);
        }
    }
    None
}

/// Schemes whose URL names a host to connect to, as curl and other clients
/// read them (curl(1) supported protocols).
const SCHEMES: &[&str] = &[
    "http",
    "https",
    "ftp",
    "ftps",
    "gopher",
    "gophers",
    "dict",
    "ldap",
    "ldaps",
    "imap",
    "imaps",
    "pop3",
    "pop3s",
    "smtp",
    "smtps",
    "rtsp",
    "scp",
    "sftp",
    "smb",
    "smbs",
    "telnet",
    "tftp",
    "ws",
    "wss",
    "mqtt",
    "redis",
    "rediss",
    "postgres",
    "postgresql",
    "mysql",
    "mongodb",
    "amqp",
    "socks4",
    "socks4a",
    "socks5",
    "socks5h",
];

/// An internal host a word names, in any spelling a client reads: a URL of
/// any scheme (read as HTTP by every client's reading, `http:/\host` and
/// `http:host` included), or a host piece of a `host:port:address`
/// (`--resolve`, `--connect-to`), `user@host`, `/dev/tcp/host/port` or
/// proxy value: a dotted IPv4 address of four parts in any base, an IPv6
/// literal, or a name the URL rules call internal (`localhost`, metadata
/// names), after IDNA folding (full-width and circled digits, ideographic
/// dots, zero-width characters). Two- and three-part numbers are left to
/// URLs: they are also version numbers.
pub fn internal_target(word: &str) -> Option<String> {
    use crate::assess::urls::{host, url_problems};
    let rule = super::net::rule();
    for token in word
        .split(|c: char| {
            c.is_whitespace() || matches!(c, '\'' | '"' | '=' | ',' | ';' | '(' | ')' | '<' | '>')
        })
        .take(64)
    {
        let lower = token.to_ascii_lowercase();
        let scheme = lower
            .split_once(':')
            .map(|(s, _)| s)
            .filter(|s| SCHEMES.contains(s));
        if let Some(scheme) = scheme {
            let rest = token.get(scheme.len()..).unwrap_or("");
            let url = format!("http{rest}");
            let found = url_problems(&url, &rule.allow_hosts, &rule.deny_hosts)
                .unwrap_or_default()
                .into_iter()
                .find(|f| f.code == codes::HTTP_LOCAL_TARGET || f.code == codes::HTTP_DENIED_HOST);
            if let Some(found) = found {
                return Some(found.message);
            }
        }
        if let Some(inner) = token
            .find('[')
            .and_then(|at| token.get(at + 1..))
            .and_then(|rest| rest.split(']').next())
        {
            if let Ok(ip) = inner.parse::<std::net::Ipv6Addr>() {
                if let Some(why) = host::internal(&host::Host::V6(ip)) {
                    return Some(format!("`{ip}` {why}"));
                }
            }
        }
        for piece in token.split([':', '/', '@', '\\', '[', ']', '!']).take(64) {
            let folded = host::fold(piece);
            let four_parts = folded.split('.').count() == 4
                && folded
                    .split('.')
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_hexdigit() || c == 'x'));
            let name = folded == "localhost"
                || folded.ends_with(".localhost")
                || folded.ends_with(".internal")
                || folded == "metadata";
            if !(four_parts || name) {
                continue;
            }
            let normalised = host::normalise(&folded);
            if rule
                .allow_hosts
                .iter()
                .any(|p| host::matches(p, &normalised))
            {
                continue;
            }
            if let Some(why) = host::internal(&normalised) {
                return Some(format!("`{}` {why}", crate::text::preview(piece, 60)));
            }
        }
    }
    None
}

/// Whether a word holds a path no reading can place: a Windows variable
/// the shell does not expand but the program or its runtime may
/// (`%USERPROFILE%\.ssh`), or another user's home (`~bob/…`; `~root` is
/// `/root`, read by the secret table).
pub fn unresolvable_path(word: &str) -> bool {
    let windows_variable = word.find('%').is_some_and(|start| {
        word.get(start + 1..).is_some_and(|rest| {
            rest.find('%').is_some_and(|end| {
                let name = rest.get(..end).unwrap_or("");
                !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && rest
                        .get(end + 1..)
                        .is_some_and(|after| after.is_empty() || after.starts_with(['\\', '/']))
            })
        })
    });
    let other_home = word.strip_prefix('~').is_some_and(|rest| {
        let name = rest.split('/').next().unwrap_or("");
        !name.is_empty()
            && name != "root"
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    });
    windows_variable || other_home
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn destroyers_beyond_the_file_programs() {
        for (p, a) in [
            ("kubectl", &["delete", "namespace", "prod"][..]),
            ("terraform", &["destroy"]),
            ("terraform", &["apply", "-destroy"]),
            ("docker", &["system", "prune", "-af"]),
            ("helm", &["uninstall", "x"]),
            ("psql", &["-c", "DROP TABLE users"]),
            ("mysql", &["-e", "delete from t"]),
            ("git", &["push", "--force-with-lease=main", "origin"]),
            ("git", &["push", "origin", "+main"]),
            ("git", &["push", "origin", ":main"]),
            ("aws", &["s3", "rm", "s3://b/x"]),
        ] {
            assert!(table::destruction(p, &words(a), &[]).is_some(), "{p} {a:?}");
        }
        for (p, a) in [
            ("kubectl", &["get", "pods"][..]),
            ("docker", &["ps"]),
            ("psql", &["-c", "SELECT 1"]),
            ("git", &["push", "origin", "main"]),
            ("git", &["push", "https://x/y.git", "main"]),
        ] {
            assert!(table::destruction(p, &words(a), &[]).is_none(), "{p} {a:?}");
        }
    }
}
