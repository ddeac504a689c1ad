//! Everyday tools with read-only subcommands: containers, clusters, services,
//! logs, package managers, `curl`. Each check accepts a subcommand only if,
//! with the options it allows, it cannot write, delete, run another program or
//! change the system; anything else (an unknown option included, where the
//! rule is a whitelist) needs confirmation. `Err` names the argument that
//! made the call unproven.

use crate::assess::http::url_problem;

/// Splits leading global options off: returns the first word that is not an
/// option (the subcommand) and the words after it. `with_value` options take
/// the next word unless written `--name=value`; an option in neither list is
/// refused.
fn split_global<'a>(
    args: &'a [String],
    with_value: &[&str],
    flags: &[&str],
) -> Result<(Option<&'a str>, &'a [String]), String> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') || arg == "-" {
            return Ok((Some(arg.as_str()), args.get(i + 1..).unwrap_or(&[])));
        }
        let name = arg.split('=').next().unwrap_or(arg);
        if with_value.contains(&name) {
            i += if arg.contains('=') { 1 } else { 2 };
        } else if flags.contains(&name) {
            i += 1;
        } else {
            return Err(arg.clone());
        }
    }
    Ok((None, &[]))
}

/// The first word of `rest` that is not an option.
fn first_word(rest: &[String]) -> Option<&str> {
    rest.iter()
        .map(String::as_str)
        .find(|a| !a.starts_with('-'))
}

/// `docker`: listing and inspecting containers, images, volumes, networks.
pub fn docker(args: &[String]) -> Result<(), String> {
    let (sub, rest) = split_global(
        args,
        // Not `--config`: another configuration directory could name helpers.
        &[
            "-H",
            "--host",
            "-c",
            "--context",
            "-l",
            "--log-level",
            "--tlscacert",
            "--tlscert",
            "--tlskey",
        ],
        &[
            "-D",
            "--debug",
            "--tls",
            "--tlsverify",
            "-v",
            "--version",
            "-h",
            "--help",
        ],
    )?;
    let Some(sub) = sub else { return Ok(()) };
    let reads = |allowed: &[&str]| match first_word(rest) {
        Some(word) if allowed.contains(&word) => Ok(()),
        Some(word) => Err(word.to_owned()),
        None => Err(sub.to_owned()),
    };
    match sub {
        "ps" | "images" | "inspect" | "logs" | "version" | "info" | "top" | "port" | "history"
        | "diff" | "stats" | "events" | "search" => Ok(()),
        "image" => reads(&["ls", "list", "inspect", "history"]),
        "container" => reads(&[
            "ls", "list", "ps", "inspect", "logs", "top", "port", "diff", "stats",
        ]),
        "volume" | "network" | "context" => reads(&["ls", "list", "inspect", "show"]),
        "system" => reads(&["df", "info", "events"]),
        "compose" => reads(&["ps", "ls", "logs", "images", "top", "version", "config"]),
        other => Err(other.to_owned()),
    }
}

/// Whether a kubectl resource list (`pods,secrets`, `secret/db`) names secrets,
/// whose values reading would disclose.
fn names_secrets(word: &str) -> bool {
    word.split(',').any(|r| {
        let kind = r.split('/').next().unwrap_or(r).to_ascii_lowercase();
        kind == "secret"
            || kind == "secrets"
            || kind.starts_with("secrets.")
            || kind.starts_with("secret.")
    })
}

/// `kubectl`: reading cluster state; secrets and profile files excluded. The
/// user's own kubeconfig only: `--kubeconfig` could name a file whose `exec`
/// credential plugin runs any command, and `--server` would send the current
/// user's credentials to another server.
pub fn kubectl(args: &[String]) -> Result<(), String> {
    if let Some(bad) = args.iter().find(|a| {
        let name = a.split('=').next().unwrap_or(a);
        matches!(name, "--kubeconfig" | "-s" | "--server")
    }) {
        return Err(bad.clone());
    }
    const WITH_VALUE: &[&str] = &[
        "--context",
        "--cluster",
        "--user",
        "-n",
        "--namespace",
        "--token",
        "--as",
        "--as-group",
        "--as-uid",
        "--request-timeout",
        "--certificate-authority",
        "--client-certificate",
        "--client-key",
        "--tls-server-name",
        "-v",
        "--v",
        "--cache-dir",
        "-l",
        "--selector",
    ];
    const FLAGS: &[&str] = &[
        "--insecure-skip-tls-verify",
        "--match-server-version",
        "--warnings-as-errors",
        "-h",
        "--help",
        "-A",
        "--all-namespaces",
    ];
    let (sub, rest) = split_global(args, WITH_VALUE, FLAGS)?;
    let Some(sub) = sub else { return Ok(()) };
    if let Some(bad) = rest.iter().find(|a| {
        let name = a.split('=').next().unwrap_or(a);
        // `--raw` names any API path (secrets included) as text.
        matches!(
            name,
            "--profile" | "--profile-output" | "--output-directory" | "--raw"
        )
    }) {
        return Err(bad.clone());
    }
    let second = first_word(rest);
    match sub {
        "get" | "describe" => match rest
            .iter()
            .find(|a| !a.starts_with('-') && names_secrets(a))
        {
            Some(secret) => Err(secret.clone()),
            None => Ok(()),
        },
        "logs" | "version" | "api-resources" | "api-versions" | "explain" | "top" | "events" => {
            Ok(())
        }
        "cluster-info" => match second {
            Some("dump") => Err(String::from("dump")),
            _ => Ok(()),
        },
        "config" => match second {
            Some("view" | "get-contexts" | "current-context" | "get-clusters" | "get-users") => {
                Ok(())
            }
            other => Err(other.unwrap_or("config").to_owned()),
        },
        "auth" => match second {
            Some("can-i" | "whoami") => Ok(()),
            other => Err(other.unwrap_or("auth").to_owned()),
        },
        other => Err(other.to_owned()),
    }
}

/// `systemctl`: the subcommands that report on units.
pub fn systemctl(args: &[String]) -> Result<(), String> {
    match first_word(args) {
        None => Ok(()),
        Some(
            "status" | "show" | "cat" | "list-units" | "list-unit-files" | "list-sockets"
            | "list-timers" | "list-dependencies" | "list-jobs" | "list-machines"
            | "list-automounts" | "list-paths" | "is-active" | "is-enabled" | "is-failed"
            | "is-system-running" | "get-default" | "show-environment" | "help",
        ) => Ok(()),
        Some(other) => Err(other.to_owned()),
    }
}

/// `journalctl` options that write, rotate or delete the journal (or a file).
pub const JOURNALCTL_WRITES: &[&str] = &[
    "--vacuum-size",
    "--vacuum-time",
    "--vacuum-files",
    "--rotate",
    "--flush",
    "--sync",
    "--relinquish-var",
    "--smart-relinquish-var",
    "--setup-keys",
    "--update-catalog",
    "--cursor-file",
];

/// `npm`: reading the installed tree and the registry's metadata.
pub fn npm(args: &[String]) -> Result<(), String> {
    match first_word(args) {
        None => match args {
            [flag] if flag == "-v" || flag == "--version" => Ok(()),
            _ => Err(args.first().cloned().unwrap_or_default()),
        },
        Some(
            "ls" | "list" | "ll" | "la" | "view" | "info" | "show" | "v" | "outdated" | "explain"
            | "why" | "root" | "prefix" | "search" | "find",
        ) => Ok(()),
        Some(other) => Err(other.to_owned()),
    }
}

/// `pip`: reading what is installed. `--log` writes a file.
pub fn pip(args: &[String]) -> Result<(), String> {
    if let Some(log) = args.iter().find(|a| {
        super::programs::long_matches(&["--log", "--log-file"], a.trim_start_matches('-'))
            && a.starts_with("--")
    }) {
        return Err(log.clone());
    }
    match first_word(args) {
        None => match args {
            [flag] if flag == "-V" || flag == "--version" => Ok(()),
            _ => Err(args.first().cloned().unwrap_or_default()),
        },
        Some("list" | "show" | "freeze" | "check" | "help" | "inspect") => Ok(()),
        Some(other) => Err(other.to_owned()),
    }
}

/// `top`: only in batch mode (`-b`), where no keystroke can kill or renice.
pub fn top(args: &[String]) -> Result<(), String> {
    let batch = args
        .iter()
        .any(|a| a == "--batch" || (a.starts_with('-') && !a.starts_with("--") && a.contains('b')));
    if batch {
        Ok(())
    } else {
        Err(String::from("(not in batch mode)"))
    }
}

/// `history`: listing only (`-c`, `-d`, `-w`, `-a`, `-r`, `-n` change or write it).
pub fn history(args: &[String]) -> Result<(), String> {
    match args {
        [] => Ok(()),
        [n] if n.chars().all(|c| c.is_ascii_digit()) => Ok(()),
        [first, ..] => Err(first.clone()),
    }
}

/// `curl` options that take a value and keep it a read: the value is a header,
/// a time, a count or a format that only shapes the output.
const CURL_WITH_VALUE: &[&str] = &[
    "-H",
    "--header",
    "-A",
    "--user-agent",
    "-m",
    "--max-time",
    "--connect-timeout",
    "--retry",
    "--retry-delay",
    "--retry-max-time",
    "-e",
    "--referer",
    "-u",
    "--user",
    "-b",
    "--cookie",
    "--limit-rate",
    "-r",
    "--range",
    "--max-filesize",
    "--oauth2-bearer",
    "--url",
];
/// `curl` flags that keep it a read.
const CURL_FLAGS: &[&str] = &[
    "-s",
    "--silent",
    "-S",
    "--show-error",
    "-f",
    "--fail",
    "--fail-with-body",
    "-i",
    "--include",
    "-I",
    "--head",
    "-v",
    "--verbose",
    "-k",
    "--insecure",
    "--compressed",
    "-G",
    "--get",
    "-q",
    "--disable",
    "-N",
    "--no-buffer",
    "-4",
    "--ipv4",
    "-6",
    "--ipv6",
    "-#",
    "--progress-bar",
    "--http1.1",
    "--http2",
    "--no-progress-meter",
    "-h",
    "--help",
    "-V",
    "--version",
];

/// `curl`: a GET (or HEAD) of public http(s) URLs, printed to standard output.
/// Whitelisted options only: anything that writes a file (`-o`, `-O`, `-D`,
/// `-c`, `--trace`), sends data (`-d`, `-F`, `-T`, `--json`), reads a config or
/// variables (`-K`, `--variable`), follows redirects (`-L`), or redirects the
/// connection (`--resolve`, `--connect-to`, `-x`, `--unix-socket`) is refused,
/// and every URL must pass the HTTP assessor's checks (no local, private or
/// metadata targets, no other schemes, no credentials in the URL).
pub fn curl(args: &[String]) -> Result<(), String> {
    let mut urls: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            urls.extend(args.get(i..).unwrap_or(&[]).iter().cloned());
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            urls.push(arg.clone());
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if arg.starts_with("--") => (name, Some(value)),
            _ => (arg.as_str(), None),
        };
        if name == "-X" || name == "--request" {
            let value = match inline {
                Some(v) => Some(v.to_owned()),
                None => {
                    i += 1;
                    args.get(i - 1).cloned()
                }
            };
            match value.as_deref().map(str::to_ascii_uppercase).as_deref() {
                Some("GET" | "HEAD") => continue,
                _ => return Err(arg.clone()),
            }
        }
        if CURL_WITH_VALUE.contains(&name) {
            let value = match inline {
                Some(v) => Some(v.to_owned()),
                None => {
                    i += 1;
                    args.get(i - 1).cloned()
                }
            };
            let Some(value) = value else {
                return Err(arg.clone());
            };
            // `-H @file` reads a file whose contents would be sent, and so does
            // `-b file` (a cookie value without `=` is a file name): refused.
            let cookie_file = matches!(name, "-b" | "--cookie") && !value.contains('=');
            if value.starts_with('@') || cookie_file {
                return Err(arg.clone());
            }
            if name == "--url" {
                urls.push(value);
            }
            continue;
        }
        if CURL_FLAGS.contains(&name) {
            continue;
        }
        // A cluster of flag letters (`-sS`, `-sSf`).
        let cluster = arg
            .strip_prefix('-')
            .filter(|c| !c.starts_with('-') && c.len() > 1);
        if cluster.is_some_and(|c| c.chars().all(|l| "sSfiIvkGqN46#".contains(l))) {
            continue;
        }
        return Err(arg.clone());
    }
    if urls.is_empty() {
        return Err(String::from("(no URL)"));
    }
    for url in &urls {
        if url_problem(url, &[], &[]).is_some() {
            return Err(url.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(check: fn(&[String]) -> Result<(), String>, line: &str) -> bool {
        let args: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        check(&args).is_ok()
    }

    #[test]
    fn subcommands_and_global_options() {
        assert!(ok(docker, "--context prod ps -a"));
        assert!(ok(docker, "image ls"));
        assert!(!ok(docker, "image rm x"));
        assert!(!ok(docker, "--evil ps"));
        assert!(!ok(docker, "image"));
        assert!(ok(kubectl, "-n prod get pods -o wide"));
        assert!(!ok(kubectl, "get Secrets"));
        assert!(!ok(kubectl, "get secrets.v1"));
        assert!(!ok(kubectl, "get --raw /api/v1/secrets"));
        assert!(!ok(kubectl, "--kubeconfig /tmp/evil get pods"));
        assert!(!ok(kubectl, "get pods --server=https://evil.example"));
        assert!(!ok(docker, "--config /tmp/evil ps"));
        assert!(ok(systemctl, "--no-pager status sshd"));
        assert!(!ok(systemctl, "daemon-reload"));
        assert!(ok(npm, "--version"));
        assert!(!ok(npm, "ci"));
        assert!(!ok(pip, "list --log=/tmp/x"));
        assert!(ok(top, "-bn1"));
        assert!(!ok(history, "-w"));
    }

    #[test]
    fn curl_is_a_public_get() {
        assert!(ok(curl, "-sSf https://example.com"));
        assert!(ok(curl, "--request=HEAD https://example.com"));
        assert!(ok(curl, "-b a=1 https://example.com"));
        assert!(!ok(curl, "-XPOST https://example.com"));
        assert!(!ok(curl, "-sSo out https://example.com"));
        assert!(!ok(curl, "https://example.com -o out"));
        assert!(!ok(curl, "-H"));
        assert!(!ok(curl, "-s"));
        assert!(!ok(curl, "http://[::1]/"));
        assert!(!ok(curl, "-- http://10.0.0.1/"));
    }
}
