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

/// `ip`: showing addresses, links, routes and neighbours. Not `-batch` (a
/// script of commands) or `-force`, and never a verb that changes anything.
pub fn ip(args: &[String]) -> Result<(), String> {
    const FLAGS: &[&str] = &[
        "-4",
        "-6",
        "-0",
        "-br",
        "-brief",
        "-s",
        "-stats",
        "-statistics",
        "-c",
        "-color",
        "-color=auto",
        "-color=always",
        "-color=never",
        "-j",
        "-json",
        "-p",
        "-pretty",
        "-d",
        "-details",
        "-o",
        "-oneline",
        "-h",
        "-human",
        "-r",
        "-resolve",
        "-a",
        "-all",
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        if !FLAGS.contains(&arg.as_str()) {
            return Err(arg.clone());
        }
        i += 1;
    }
    let Some(object) = args.get(i) else {
        return Err(String::from("(no object)"));
    };
    const OBJECTS: &[&str] = &[
        "address",
        "addr",
        "a",
        "link",
        "l",
        "route",
        "r",
        "ro",
        "neighbour",
        "neighbor",
        "neigh",
        "n",
        "rule",
        "ru",
        "maddress",
        "maddr",
        "m",
        "tunnel",
        "tun",
        "netconf",
    ];
    if !OBJECTS.contains(&object.as_str()) {
        return Err(object.clone());
    }
    match args.get(i + 1).map(String::as_str) {
        None | Some("show" | "list" | "ls" | "lst" | "sh" | "s" | "get" | "help") => Ok(()),
        // `ip addr dev eth0` is `show` with a selector.
        Some("dev" | "up" | "scope" | "label" | "table" | "type") => Ok(()),
        Some(verb) => Err(verb.to_owned()),
    }
}

/// `ifconfig`: listing only (no address, flag or `up`/`down` after the name).
pub fn ifconfig(args: &[String]) -> Result<(), String> {
    let mut names = 0;
    for arg in args {
        match arg.as_str() {
            "-a" | "-s" | "-v" | "-as" | "-av" => {}
            a if a.starts_with('-') => return Err(arg.clone()),
            _ => {
                names += 1;
                if names > 1 {
                    return Err(arg.clone());
                }
            }
        }
    }
    Ok(())
}

/// `tar`: listing an archive's members (`-t`), never extracting, creating or
/// running a program (`--to-command`, `-I`, `--checkpoint-action`), and no
/// `host:file` archive (which `tar` reaches through a remote shell).
pub fn tar(args: &[String]) -> Result<(), String> {
    const REFUSED_LONG: &[&str] = &[
        "--extract",
        "--get",
        "--create",
        "--append",
        "--update",
        "--catenate",
        "--concatenate",
        "--delete",
        "--to-command",
        "--use-compress-program",
        "--info-script",
        "--new-volume-script",
        "--checkpoint-action",
        "--index-file",
        "--rsh-command",
        "--volno-file",
        "--to-stdout",
        "--overwrite",
        "--remove-files",
    ];
    let mut lists = false;
    for (i, arg) in args.iter().enumerate() {
        if arg.contains(':') {
            return Err(arg.clone());
        }
        if let Some(name) = arg.strip_prefix("--") {
            if name.split('=').next() == Some("list") {
                lists = true;
            } else if super::programs::long_matches(REFUSED_LONG, name) {
                return Err(arg.clone());
            }
            continue;
        }
        // The first word may be a bundle of letters without a dash (`tzf`).
        let cluster = match arg.strip_prefix('-') {
            Some(c) => Some(c),
            None if i == 0 => Some(arg.as_str()),
            None => None,
        };
        if let Some(cluster) = cluster {
            if cluster.chars().any(|c| "xcruAdIFO".contains(c)) {
                return Err(arg.clone());
            }
            if cluster.contains('t') {
                lists = true;
            }
        }
    }
    if lists {
        Ok(())
    } else {
        Err(String::from("(not a listing)"))
    }
}

/// `unzip`: listing or testing only (`-l`, `-v`, `-t`, `-Z`), never extracting.
pub fn unzip(args: &[String]) -> Result<(), String> {
    match args.first() {
        Some(first)
            if first.len() > 1
                && first.starts_with('-')
                && first.chars().skip(1).all(|c| "ltvZq".contains(c))
                && first.chars().any(|c| "ltvZ".contains(c)) =>
        {
            Ok(())
        }
        Some(first) => Err(first.clone()),
        None => Err(String::from("(no arguments)")),
    }
}

/// `gzip`, `bzip2`, `xz`, `zstd`: only to standard output, or listing or
/// testing an archive; without `-c`/`-l`/`-t` they replace the file in place.
pub fn compressor(args: &[String]) -> Result<(), String> {
    let safe = args.iter().any(|a| {
        matches!(a.as_str(), "--stdout" | "--to-stdout" | "--list" | "--test")
            || (a.starts_with('-') && !a.starts_with("--") && a.chars().any(|c| "clt".contains(c)))
    });
    let refused = args.iter().find(|a| {
        let name = a.split('=').next().unwrap_or(a);
        // Output files, and zstd's patch/train modes that write.
        matches!(
            name,
            "-o" | "--output" | "--rm" | "--train" | "--patch-from" | "--keep" | "-k"
        )
    });
    match (safe, refused) {
        (_, Some(arg)) => Err(arg.clone()),
        (true, None) => Ok(()),
        (false, None) => Err(String::from("(compresses in place)")),
    }
}

/// `hostnamectl`, `timedatectl`, `localectl`, `loginctl`: their reporting verbs.
pub fn systemd_status(args: &[String]) -> Result<(), String> {
    match first_word(args) {
        None => Ok(()),
        Some(
            "status" | "show" | "list-timezones" | "list-keymaps" | "list-locales"
            | "list-sessions" | "list-users" | "list-seats" | "show-session" | "show-user"
            | "show-seat" | "session-status" | "user-status" | "seat-status" | "timesync-status"
            | "show-timesync" | "hostname",
        ) => Ok(()),
        Some(other) => Err(other.to_owned()),
    }
}

/// `mount` and `ulimit`: listing only, with no arguments (or `-l` / `-a`).
pub fn listing_only(args: &[String]) -> Result<(), String> {
    match args {
        [] => Ok(()),
        [flag] if flag == "-l" || flag == "-a" => Ok(()),
        [first, ..] => Err(first.clone()),
    }
}

/// `read`: reads a line of standard input into variables, which must be safe
/// to set (see `safe_loop_variable`); `-u FD` reads another descriptor.
pub fn read(args: &[String]) -> Result<(), String> {
    const WITH_VALUE: &[&str] = &["-d", "-n", "-N", "-p", "-t", "-u", "-i"];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "-a" {
            match args.get(i) {
                Some(name) if super::super::command::safe_loop_variable(name) => i += 1,
                _ => return Err(arg.clone()),
            }
        } else if WITH_VALUE.contains(&arg.as_str()) {
            i += 1;
        } else if arg.starts_with('-') {
            if !arg.chars().skip(1).all(|c| "rse".contains(c)) {
                return Err(arg.clone());
            }
        } else if !super::super::command::safe_loop_variable(arg) {
            return Err(arg.clone());
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
        assert!(ok(ip, "-br addr"));
        assert!(ok(ip, "route show table main"));
        assert!(!ok(ip, "link set eth0 down"));
        assert!(!ok(ip, "-batch cmds"));
        assert!(!ok(ip, "netns exec x sh"));
        assert!(ok(ifconfig, "eth0"));
        assert!(!ok(ifconfig, "eth0 down"));
        assert!(ok(tar, "-tzf a.tgz"));
        assert!(ok(tar, "tvf a.tar"));
        assert!(!ok(tar, "-xzf a.tgz"));
        assert!(!ok(tar, "-tf a.tar --to-command=sh"));
        assert!(!ok(tar, "-t -I sh -f a.tar"));
        assert!(!ok(tar, "-tf host:/a.tar"));
        assert!(!ok(tar, "--checkpoint-action=exec=sh -tf a.tar"));
        assert!(ok(unzip, "-l a.zip"));
        assert!(!ok(unzip, "a.zip"));
        assert!(!ok(unzip, "-o a.zip"));
        assert!(ok(compressor, "-l a.gz"));
        assert!(ok(compressor, "-dc a.gz"));
        assert!(!ok(compressor, "a.txt"));
        assert!(!ok(compressor, "-d a.gz"));
        assert!(!ok(compressor, "-c -o out a"));
        assert!(ok(systemd_status, "status"));
        assert!(!ok(systemd_status, "set-hostname x"));
        assert!(ok(listing_only, "-l"));
        assert!(!ok(listing_only, "/dev/sdb1 /mnt"));
        assert!(ok(read, "-r line"));
        assert!(ok(read, "-r -a parts"));
        assert!(!ok(read, "PATH"));
        assert!(!ok(read, "-a IFS"));
        assert!(!ok(read, "path"));
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
