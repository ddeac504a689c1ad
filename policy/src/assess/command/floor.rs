//! Destruction the floor must see beyond the program tables: infrastructure
//! tools, database clients given a destroying statement, forced pushes, and
//! the programs a glob could name. Used only to refuse a "low" rating, never
//! to allow; it may over-match.

/// Database clients: a statement that drops, deletes or rewrites data.
const DATABASE_CLIENTS: &[&str] = &[
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "sqlcmd",
    "cockroach",
    "clickhouse-client",
    "clickhouse",
    "mongo",
    "mongosh",
    "cqlsh",
    "duckdb",
    "redis-cli",
    "influx",
];

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

/// Cloud and hosting command lines: a word that deletes.
const CLOUD_CLIS: &[&str] = &[
    "aws",
    "gcloud",
    "gsutil",
    "az",
    "doctl",
    "heroku",
    "flyctl",
    "fly",
    "gh",
    "vercel",
    "netlify",
    "linode-cli",
    "hcloud",
    "oci",
    "ibmcloud",
];

/// What a program of the infrastructure, database or hosting kind destroys.
/// `input` is text it reads on standard input (here-documents, here-strings).
pub fn infrastructure(program: &str, args: &[String], input: &[String]) -> Option<&'static str> {
    // Any word, not only the first operand: options take values
    // (`kubectl -n prod delete …`), and over-matching only asks a person.
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let any = |words: &[&str]| args.iter().any(|a| words.contains(&a.as_str()));
    match program {
        "kubectl" | "oc" | "k3s" | "microk8s.kubectl"
            if any(&["delete", "drain", "cordon", "taint"])
                || (has("replace") && has("--force"))
                || (has("scale") && has("--replicas=0")) =>
        {
            Some("deletes or evicts cluster resources")
        }
        "terraform" | "tofu" | "terragrunt" | "pulumi"
            if any(&["destroy", "force-unlock", "-destroy", "--destroy"])
                || (any(&["state", "workspace", "stack"]) && any(&["rm", "delete", "rm-all"])) =>
        {
            Some("destroys infrastructure")
        }
        "docker" | "podman" | "nerdctl" | "docker-compose"
            if any(&["rm", "rmi", "prune", "kill", "down", "stop", "remove"]) =>
        {
            Some("removes containers, images or volumes")
        }
        "helm" if any(&["uninstall", "delete", "del", "un", "rollback"]) => {
            Some("uninstalls a release")
        }
        "systemctl" if any(&["stop", "disable", "mask", "kill", "isolate", "reset-failed"]) => {
            Some("stops or disables services")
        }
        "git"
            if args
                .iter()
                .any(|a| a.contains("alias.") && a.contains("=!")) =>
        {
            Some("defines an alias that runs a shell command")
        }
        "git" => git_push(args),
        "tee"
            if !args.iter().any(|a| a == "-a" || a.starts_with("--a"))
                && args.iter().any(|a| {
                    !a.starts_with('-')
                        && !matches!(a.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr")
                }) =>
        {
            Some("overwrites the files it is given")
        }
        "cp" if args.iter().any(|a| a == "/dev/null" || a == "/dev/zero") => {
            Some("overwrites a file with nothing")
        }
        p if DATABASE_CLIENTS.contains(&p)
            && args.iter().chain(input).any(|a| {
                let lower = a.to_ascii_lowercase();
                DESTROYING_STATEMENTS.iter().any(|s| lower.contains(s))
            }) =>
        {
            Some("runs a statement that deletes or rewrites data")
        }
        p if CLOUD_CLIS.contains(&p)
            && args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "delete" | "rm" | "rb" | "destroy" | "terminate-instances" | "remove"
                ) || a.starts_with("delete-")
            }) =>
        {
            Some("deletes cloud resources")
        }
        _ => None,
    }
}

/// `git push` forms that overwrite or delete remote history, beyond the
/// exact spellings the git table knows (`--force-with-lease=…`, `--mirror`,
/// `+ref`, `:ref`, abbreviations of `--force`).
fn git_push(args: &[String]) -> Option<&'static str> {
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
/// floor reads word by word for destroying programs (`system("rm -rf ~")`).
pub fn inline_code(program: &str) -> bool {
    matches!(
        program,
        "awk"
            | "gawk"
            | "mawk"
            | "nawk"
            | "sed"
            | "perl"
            | "python"
            | "python3"
            | "ruby"
            | "node"
            | "php"
            | "lua"
            | "tclsh"
            | "python2"
            | "pypy"
            | "pypy3"
            | "perl5"
            | "irb"
            | "nodejs"
            | "deno"
            | "bun"
            | "luajit"
            | "Rscript"
            | "julia"
            | "osascript"
            | "jshell"
            | "groovy"
            | "elixir"
            | "erl"
    )
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
/// arguments as a command line.
pub fn runs_arguments(program: &str, args: &[String]) -> bool {
    match program {
        "ssh" | "rsh" | "slogin" | "busybox" | "toybox" | "chroot" | "nsenter" | "unshare"
        | "firejail" | "bwrap" | "doas" | "pkexec" | "runuser" | "su" | "coproc" | "exec"
        | "builtin" | "trap" | "parallel" | "script" => true,
        "docker" | "podman" | "kubectl" | "oc" | "nerdctl" => args
            .iter()
            .any(|a| matches!(a.as_str(), "exec" | "run" | "debug")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn infrastructure_destroyers() {
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
            assert!(infrastructure(p, &words(a), &[]).is_some(), "{p} {a:?}");
        }
        for (p, a) in [
            ("kubectl", &["get", "pods"][..]),
            ("docker", &["ps"]),
            ("psql", &["-c", "SELECT 1"]),
            ("git", &["push", "origin", "main"]),
            ("git", &["push", "https://x/y.git", "main"]),
        ] {
            assert!(infrastructure(p, &words(a), &[]).is_none(), "{p} {a:?}");
        }
    }
}
