//! The command oracle over every declared form: the lines
//! `toolgate_oracles::forms` generates from the policy's own grammars (each
//! option once, option pairs by a covering design, each operand kind, a
//! seeded sample of the spellings real parsers accept), those the policy
//! proves read-only, run in the hostile sandbox and judged like every other
//! line (`toolgate_oracles::judge`).
//!
//! To stay within the test command's time cap, a program's lines run
//! together in one sandbox (each in its own subshell, its exit code and end
//! time marked on standard error): a batch's trace, output, time and peak
//! memory bound each of its lines from above, and a batch with any
//! violation is run again line by line, so every violation is one line's.
//! `TOOLGATE_ORACLE_FULL=1` runs every line alone (exact figures per line)
//! with a larger spelling sample.
//!
//! It fails on any violation, and on any declared form that never ran (a
//! reasoned exemption aside). The per-program report goes to
//! `target/oracle-forms-report.txt`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use toolgate_oracles::forms::{plans, Line, Plan, Purpose, SPELLINGS, SPELLINGS_FULL};
use toolgate_oracles::judge::{judge, Judgement, MEMORY_BOUND_KIB, OUTPUT_BOUND};
use toolgate_oracles::sandbox::{Program, Sandbox};
use toolgate_oracles::{allowed, root};
use toolgate_policy::{Action, Engine, Source};

/// The time bound of one run (a batch of a program's lines, or one line).
const LIMIT: Duration = Duration::from_secs(90);
/// Runs at once.
const WORKERS: usize = 3;
/// Lines of one program per sandbox run in the test command.
const BATCH: usize = 40;
/// The generator's seed: the sample is the same on every run.
const SEED: u64 = 0x7001_6a7e_f0a5_0001;

/// Programs the table proves some form of that cannot run here, each with
/// the reason; every other declared form must run.
const EXEMPT: &[(&str, &str)] = &[
    (
        "ruby",
        "not installed here (Debian 12 image without Ruby); its rule proves no form",
    ),
    (
        "php",
        "not installed here; its rule proves no form",
    ),
    (
        "clang",
        "not installed here; its rule proves no form",
    ),
    (
        "go",
        "not installed here; its rule refuses every line (a go.mod may name a toolchain to download)",
    ),
];

/// Programs whose rule is a refusal of every line (the table keeps them to
/// say why): nothing is proven, so nothing runs.
/// (`read` is refused as `command.shell-state` in every line: it sets
/// variables the rest of the line acts on.)
const REFUSED: &[&str] = &["npm", "java", "cargo", "rustc", "terraform", "read"];

/// Declared forms the policy proves in no line the generator makes, in no
/// spelling (programs and forms each a space-separated list, or one
/// subcommand, `git config`; `*`: every form of the program), each with the refusal that
/// holds them: nothing of theirs can run because nothing of theirs is
/// allowed. A form that is refused and not listed here fails the test, so
/// a grammar that declares what the rest of the policy always refuses is
/// seen.
const NEVER_PROVEN: &[(&str, &str, &str)] = &[
    (
        "top",
        "*",
        "every line: top runs the program a toprc pipe names (GTFOBins) and creates its settings directory",
    ),
    (
        "printenv",
        "-0",
        "command.environment: with -0 the names it prints are not proven free of secrets",
    ),
    ("printenv", "--null", "command.environment: as -0"),
    (
        "gzip",
        "-r",
        "reads a directory tree recursively, secret files included",
    ),
    ("gzip", "--recursive", "as -r"),
    (
        "zgrep zegrep zfgrep",
        "-r -R -d --recursive --dereference-recursive --directories --include --exclude \
         --exclude-dir --exclude-from",
        "grep, handed the text on its standard input, would search the working directory",
    ),
    (
        "git config",
        "-l --list --get-regexp --get-urlmatch",
        "command.credentials: every setting, or those a pattern or URL selects, may be a remote URL carrying credentials",
    ),
    (
        "git config",
        "--all --regexp --value",
        "options of `git config get` only (git 2.46 and later), which the generator's `git config NAME` lines do not use",
    ),
    (
        "git cat-file",
        "--batch",
        "command.sensitive-path: prints the objects named on its input, which may be committed secret files",
    ),
    (
        "docker stats",
        "(operands)",
        "its grammar's check: without --no-stream docker stats streams forever",
    ),
    (
        "docker container stats",
        "(operands)",
        "command.unbounded: as docker stats",
    ),
    (
        "pip list",
        "-o -u --outdated --uptodate",
        "asks the package index about every installed package, retrying each request (past the 90 s bound without an index)",
    ),
    ("pip3 list", "-o -u --outdated --uptodate", "as pip list"),
    (
        "gcc make node perl python python3",
        "(operands)",
        "alone it runs code (a build, an interpreter reading its input): only the exact version query is proven",
    ),
    (
        "journalctl",
        "-NUM",
        "proven only as the boot offset right after -b (`journalctl -b -1`, which the vectors run)",
    ),
    (
        "unzip",
        "(operands)",
        "without a listing or testing mode unzip extracts",
    ),
    (
        "netstat",
        "(operands)",
        "with no option netstat lists connections and looks up their addresses' names",
    ),
];

/// One line to run, with where it came from.
struct Job {
    lines: Vec<usize>,
}

/// What one line gave.
#[derive(Clone, Debug, Default)]
struct Outcome {
    ran: bool,
    status: Option<i32>,
    elapsed: Option<Duration>,
    /// Bounds from above (the batch's) or exact (alone).
    output_bytes: u64,
    peak_kib: Option<u64>,
    violations: Vec<(String, String)>,
    notes: Vec<String>,
    /// The first line the line printed (standard output and error), for
    /// the triage of a non-zero exit.
    said: String,
}

#[test]
fn every_declared_form_runs_without_effects() {
    let started = Instant::now();
    let full = std::env::var_os("TOOLGATE_ORACLE_FULL").is_some();
    let plans = plans(SEED, if full { SPELLINGS_FULL } else { SPELLINGS });
    let engine = Engine::default();
    let mut lines: Vec<&Line> = Vec::new();
    let mut refused: Vec<(&Line, String)> = Vec::new();
    let mut respelled: Vec<Line> = Vec::new();
    let mut chosen: Vec<(usize, usize)> = Vec::new();
    for (p, plan) in plans.iter().enumerate() {
        for (l, line) in plan.lines.iter().enumerate() {
            let args = json!({ "command": line.text });
            let d = engine.assess("execute_command", &args.to_string());
            let proven = |text: &str| {
                let d = engine.assess("execute_command", &json!({ "command": text }).to_string());
                d.action == Action::Allow && d.source == Source::Whitelist
            };
            if d.action == Action::Allow && d.source == Source::Whitelist {
                chosen.push((p, l));
            } else if let Some(alt) = line.alternates.iter().find(|a| proven(a)) {
                // The same forms in another spelling the policy proves.
                respelled.push(Line {
                    text: alt.clone(),
                    ..line.clone()
                });
            } else {
                let why = d
                    .findings
                    .first()
                    .map(|f| format!("{}: {}", f.code, f.message))
                    .unwrap_or_default();
                refused.push((line, why));
            }
        }
    }
    // In program order: a program's lines run together.
    let mut respelled_at: BTreeMap<&str, Vec<&Line>> = BTreeMap::new();
    for l in &respelled {
        respelled_at.entry(l.program).or_default().push(l);
    }
    for (p, plan) in plans.iter().enumerate() {
        lines.extend(
            chosen
                .iter()
                .filter(|(q, _)| *q == p)
                .map(|(_, l)| &plan.lines[*l]),
        );
        lines.extend(respelled_at.get(plan.program).into_iter().flatten());
    }
    let dir = root().join("target").join("oracle-forms-sandbox");
    let sandbox = match Sandbox::new(&dir, LIMIT) {
        Ok(s) => s,
        Err(e) => panic!("command oracle cannot run: {e}"),
    };
    plant_compressed(&sandbox);

    // Batches: a program's allowed lines together (one line each in the
    // full run).
    let per = if full { 1 } else { BATCH };
    let mut jobs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let program = lines[i].program;
        let mut j = i;
        while j < lines.len() && lines[j].program == program && j - i < per {
            j += 1;
        }
        jobs.push(Job {
            lines: (i..j).collect(),
        });
        i = j;
    }
    let outcomes: Mutex<Vec<Outcome>> = Mutex::new(vec![Outcome::default(); lines.len()]);
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let reruns = AtomicUsize::new(0);
    let runs = AtomicUsize::new(0);
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(n) else { break };
                let texts: Vec<&str> = job.lines.iter().map(|i| lines[*i].text.as_str()).collect();
                runs.fetch_add(1, Ordering::Relaxed);
                match run_batch(&sandbox, &texts) {
                    Ok((judgement, each, output_bytes, peak_kib)) => {
                        let clean = judgement.violations.is_empty();
                        let mut o = outcomes.lock().unwrap();
                        for (k, i) in job.lines.iter().enumerate() {
                            let (status, elapsed, said) =
                                each.get(k).cloned().unwrap_or((None, None, String::new()));
                            o[*i] = Outcome {
                                ran: status.is_some() || texts.len() == 1,
                                status,
                                elapsed,
                                output_bytes,
                                peak_kib,
                                violations: Vec::new(),
                                notes: notes(&judgement),
                                said,
                            };
                        }
                        if clean || texts.len() == 1 {
                            if texts.len() == 1 {
                                o[job.lines[0]].violations = first_per_class(&judgement);
                            }
                            continue;
                        }
                        drop(o);
                        // A batch with a violation: every line again alone,
                        // so each violation is one line's.
                        for i in &job.lines {
                            reruns.fetch_add(1, Ordering::Relaxed);
                            match run_batch(&sandbox, &[lines[*i].text.as_str()]) {
                                Ok((j, each, bytes, peak)) => {
                                    let (status, elapsed, said) = each
                                        .first()
                                        .cloned()
                                        .unwrap_or((None, None, String::new()));
                                    let mut o = outcomes.lock().unwrap();
                                    o[*i] = Outcome {
                                        ran: true,
                                        status,
                                        elapsed,
                                        output_bytes: bytes,
                                        peak_kib: peak,
                                        violations: first_per_class(&j),
                                        notes: notes(&j),
                                        said,
                                    };
                                }
                                Err(e) => errors
                                    .lock()
                                    .unwrap()
                                    .push(format!("{}: {e}", lines[*i].text)),
                            }
                        }
                        // What showed only in the batch (time summed over its
                        // lines, say) is no line's violation: noted.
                        let o = outcomes.lock().unwrap();
                        if job.lines.iter().all(|i| o[*i].violations.is_empty()) {
                            errors.lock().unwrap().push(format!(
                                "note: a batch of {} showed {:?} that no line alone shows",
                                lines[job.lines[0]].program,
                                judgement
                                    .violations
                                    .iter()
                                    .map(|v| v.class.clone())
                                    .collect::<BTreeSet<_>>()
                            ));
                        }
                    }
                    Err(e) => errors
                        .lock()
                        .unwrap()
                        .push(format!("{} batch: {e}", lines[job.lines[0]].program)),
                }
            });
        }
    });
    sandbox.cleanup();
    let outcomes = outcomes.into_inner().unwrap();
    let errors = errors.into_inner().unwrap();
    let sandbox_errors: Vec<&String> = errors.iter().filter(|e| !e.starts_with("note:")).collect();
    assert!(
        sandbox_errors.is_empty(),
        "the sandbox failed:\n{sandbox_errors:#?}"
    );

    let vector_programs = vector_programs();
    // The lists are claims too: a program exempt as not installed is not on
    // PATH, and one whose rule refuses every line has no proven vector line.
    for (program, why) in EXEMPT {
        assert!(
            !on_path(program),
            "{program} is installed now; its exemption ({why}) no longer holds"
        );
    }
    for program in REFUSED {
        assert!(
            !vector_programs.contains(&format!("head:{program}")),
            "{program} is on the refused list, but a proven vector line names it"
        );
    }
    let (report, summary, unran, violations, rejected) = render(
        &plans,
        &lines,
        &refused,
        &outcomes,
        &vector_programs,
        &errors,
        RunFigures {
            runs: runs.into_inner(),
            reruns: reruns.into_inner(),
            elapsed: started.elapsed(),
            full,
        },
    );
    let path = root().join("target").join("oracle-forms-report.txt");
    std::fs::write(&path, format!("{summary}\n{report}")).unwrap();
    eprintln!("{summary}full report: {}", path.display());
    assert!(
        violations == 0 && unran.is_empty(),
        "{summary}\ndeclared forms that never ran: {unran:#?}\n(full report: {})",
        path.display()
    );
    // A declared option the program installed here refuses as unknown is a
    // reading of another platform or version, never checked by running.
    assert!(
        rejected.is_empty(),
        "declared forms the program here refuses as unknown: {rejected:#?}"
    );
}

/// Whether what a single-option line printed says the program refused that
/// option as unknown (getopt's `invalid option -- 'x'` and `unrecognized
/// option '--x'`, git's ``unknown option `x'`` and `unrecognized argument:
/// --x`, dig's `Invalid option: +x`, jq's `Unknown option --x`).
fn rejects_option(form: &str, said: &str) -> bool {
    let s = said.to_ascii_lowercase();
    let unknown = [
        "unknown option",
        "unrecognized option",
        "invalid option",
        "unrecognized argument",
        "illegal option",
    ]
    .iter()
    .any(|p| s.contains(p));
    let bare = form.trim_start_matches(['-', '+']).to_ascii_lowercase();
    let named = if form.starts_with("--") || form.starts_with('+') || bare.len() > 1 {
        s.contains(&bare)
    } else {
        s.contains(&format!("'{bare}'")) || s.contains(&format!("-{bare}"))
    };
    unknown && !bare.is_empty() && named
}

/// Counts of the run, for the summary.
struct RunFigures {
    runs: usize,
    reruns: usize,
    elapsed: Duration,
    full: bool,
}

/// Runs `texts` (one program's lines) in one sandbox: each in a subshell,
/// its standard error into its output, and after it a mark on standard
/// error with its index, exit code and end time (bash's builtin `echo` and
/// `$EPOCHREALTIME`: no program runs for it). Answers the judgement of the
/// whole, each line's exit code and elapsed time, and the run's output
/// bytes and peak memory.
#[allow(clippy::type_complexity, reason = "a local tuple, named in the doc")]
fn run_batch(
    sandbox: &Sandbox,
    texts: &[&str],
) -> Result<
    (
        Judgement,
        Vec<(Option<i32>, Option<Duration>, String)>,
        u64,
        Option<u64>,
    ),
    String,
> {
    let (program, text) = if let [only] = texts {
        ((*only).to_owned(), (*only).to_owned())
    } else {
        let mut script = String::from("echo \"TGFORM start $EPOCHREALTIME\" >&2\n");
        for (i, t) in texts.iter().enumerate() {
            let _ = writeln!(
                script,
                "( {t}\n) 2>&1; echo \"TGFORM {i} $? $EPOCHREALTIME\" >&2; echo TGSAID {i}"
            );
        }
        (script.clone(), script)
    };
    let run = sandbox.run(&Program::Shell(program))?;
    let judgement = judge(&text, &run, sandbox);
    let out = String::from_utf8_lossy(&run.output);
    let each = if texts.len() == 1 {
        vec![(run.status, Some(run.elapsed), first_said(out.lines()))]
    } else {
        // A line's output (its standard error joined to its standard
        // output in the subshell) ends at its `TGSAID` mark on standard
        // output; its exit code and time are on standard error, which no
        // line's output fills up to the capture's cap.
        let mut said: BTreeMap<usize, String> = BTreeMap::new();
        let mut since: Vec<&str> = Vec::new();
        for l in out.lines() {
            match l.strip_prefix("TGSAID ").map(str::parse::<usize>) {
                Some(Ok(i)) => {
                    said.insert(i, first_said(since.drain(..)));
                }
                _ => since.push(l),
            }
        }
        let mut marks: BTreeMap<usize, (i32, f64, String)> = BTreeMap::new();
        let mut start = None;
        for l in out.lines() {
            let mut w = l.split_whitespace();
            if w.next() != Some("TGFORM") {
                continue;
            }
            match (w.next(), w.next(), w.next()) {
                (Some("start"), Some(t), None) => start = t.parse::<f64>().ok(),
                (Some(i), Some(code), Some(t)) => {
                    if let (Ok(i), Ok(code), Ok(t)) = (i.parse(), code.parse(), t.parse()) {
                        let text = said.get(&i).cloned().unwrap_or_default();
                        marks.insert(i, (code, t, text));
                    }
                }
                _ => {}
            }
        }
        let mut prev = start;
        (0..texts.len())
            .map(|i| match marks.get(&i) {
                Some((code, t, said)) => {
                    let elapsed = prev.map(|p| Duration::from_secs_f64((t - p).max(0.0)));
                    prev = Some(*t);
                    (Some(*code), elapsed, said.clone())
                }
                None => (None, None, String::new()),
            })
            .collect()
    };
    Ok((judgement, each, run.output_bytes, run.peak_kib))
}

/// The first line with text among `lines`, shortened for the report.
fn first_said<'a>(mut lines: impl Iterator<Item = &'a str>) -> String {
    lines
        .find(|l| !l.trim().is_empty())
        .map(|l| l.chars().take(160).collect())
        .unwrap_or_default()
}

/// Why a single-option line exited non-zero, from its exit code and the
/// first line it printed: the triage the report counts.
/// - `usage`: the program refused our generated spelling (a value it does
///   not take, options it does not combine): the generator's to fix.
/// - `fixture`: a file, user, process or name the sandbox does not hold.
/// - `refusal`: the sandbox refused it (no capability, no kernel log, no
///   network, no terminal): the hostile world working as meant.
/// - `answer`: the exit code is the program's answer (differences found, no
///   match, a false test) and nothing went wrong.
/// - `unclassified`: none of these.
fn triage(program: &str, status: Option<i32>, said: &str) -> &'static str {
    let s = said.to_ascii_lowercase();
    let any = |needles: &[&str]| needles.iter().any(|n| s.contains(n));
    if any(&[
        "invalid option",
        "unrecognized option",
        "unknown option",
        "illegal option",
        "invalid argument",
        "invalid number",
        "invalid field",
        "invalid suffix",
        "extra operand",
        "missing operand",
        "requires an argument",
        "is ambiguous",
        "ambiguous argument",
        "may not be specified",
        "cannot be combined",
        "mutually exclusive",
        "only one",
        "usage:",
        "--help' for more",
        "--help\" for more",
        "option requires",
        "unknown column",
        "invalid value",
        "bad ",
        "meaningful only",
        "cannot be used",
        "conflicting matchers",
        "invalid context length",
        "you must specify",
        "may only be used",
        "in default format",
        "cannot print only",
        "unrecognized variable",
        "illegal option",
        "wasn't expected",
        "invalid color spec",
        "at least two fields",
        "invalid time value",
        "already has .bz2 suffix",
        "option not supported",
        "invalid --",
        "unknown devices method",
    ]) {
        return "usage";
    }
    if any(&[
        "no such file",
        "cannot access",
        "cannot open",
        "cannot stat",
        "not found",
        "does not exist",
        "no such process",
        "no such user",
        "no such device",
        "unknown user",
        "no matching",
        "name or service not known",
        "temporary failure in name resolution",
        "unknown host",
        "invalid input",
        "no properly formatted checksum",
        "no login name",
    ]) {
        return "fixture";
    }
    if any(&[
        "permission denied",
        "operation not permitted",
        "not permitted",
        "read kernel buffer failed",
        "not a tty",
        "network is unreachable",
        "read-only file system",
        "inappropriate ioctl",
        "failed to",
        "unable to",
        "sock_raw",
        "selinux is not enabled",
    ]) {
        return "refusal";
    }
    // No USB bus in the sandbox: lsusb lists nothing and exits 1.
    if program == "lsusb" && said.is_empty() {
        return "fixture";
    }
    // The line under `timeout 5` (a follow) ends by its timeout, as meant.
    if status == Some(124) {
        return "answer";
    }
    // GNU's checksum programs print the sum, then refuse `--quiet` outside
    // `--check` (coreutils 9.1).
    if program.ends_with("sum") && status == Some(1) {
        return "usage";
    }
    let answers_with_one = matches!(
        program,
        "diff"
            | "cmp"
            | "grep"
            | "egrep"
            | "fgrep"
            | "zgrep"
            | "zegrep"
            | "zfgrep"
            | "rg"
            | "pgrep"
            | "false"
            | "test"
            | "["
            | "look"
            | "which"
            | "lsof"
            | "expr"
            | "getent"
            | "tty"
            | "readlink"
    );
    if status == Some(1) && answers_with_one {
        return "answer";
    }
    "unclassified"
}

/// A violation per class with its first evidence.
fn first_per_class(j: &Judgement) -> Vec<(String, String)> {
    let mut first: BTreeMap<String, String> = BTreeMap::new();
    for v in &j.violations {
        first
            .entry(v.class.clone())
            .or_insert_with(|| v.evidence.clone());
    }
    first.into_iter().collect()
}

/// The notes a run gave (the executor's part, lookups, history).
fn notes(j: &Judgement) -> Vec<String> {
    let mut out: Vec<String> = j
        .executor
        .iter()
        .map(|e| format!("the executor's part: {e}"))
        .collect();
    if !j.lookups.is_empty() {
        out.push(format!("looked up names it holds: {:?}", j.lookups));
    }
    out
}

/// Compressed copies of `a.txt` for the decompressors' forms and an archive
/// of it for tar's, planted in the sandbox's working tree (ordinary files,
/// like the rest of it).
fn plant_compressed(sandbox: &Sandbox) {
    let project = sandbox.project_template();
    let text = "alpha\nbeta\n";
    std::fs::write(project.join("pairs.txt"), "a b\nb c\n").unwrap();
    for (program, args, ext) in [
        ("gzip", &["-c"][..], "gz"),
        ("bzip2", &["-c"][..], "bz2"),
        ("xz", &["-c"][..], "xz"),
        ("zstd", &["-q", "-c"][..], "zst"),
    ] {
        let mut child = std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        {
            use std::io::Write as _;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{program} failed");
        std::fs::write(project.join(format!("a.txt.{ext}")), out.stdout).unwrap();
    }
    // A zip archive for unzip's listing and testing modes (Python's zipfile:
    // no zip program is needed).
    let status = std::process::Command::new("python3")
        .args([
            "-c",
            "import zipfile; zipfile.ZipFile('a.zip', 'w').write('a.txt')",
        ])
        .current_dir(&project)
        .status()
        .unwrap();
    assert!(status.success(), "python3 zipfile failed");
    // An archive for tar's listing forms.
    let status = std::process::Command::new("tar")
        .args(["-cf", "a.tar", "a.txt"])
        .current_dir(&project)
        .status()
        .unwrap();
    assert!(status.success(), "tar failed");
}

/// The programs named by an allowed (proven) vector line: the command
/// oracle runs those lines, which is where a program read by a dedicated
/// parser has its forms executed.
fn vector_programs() -> BTreeSet<String> {
    let dir = root().join("tests").join("conformance");
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !name.ends_with(".jsonl") {
            continue;
        }
        for a in allowed(&name, "execute_command").unwrap() {
            if a.source != Source::Whitelist {
                continue;
            }
            let text = match a.args.get("command") {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(serde_json::Value::Array(v)) => v
                    .iter()
                    .filter_map(|x| x.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => continue,
            };
            for word in text.split(|c: char| c.is_whitespace() || ";|&()".contains(c)) {
                out.insert(word.to_owned());
            }
            // The program each segment starts with, as `head:NAME`.
            for segment in text.split(|c: char| ";|&()\n".contains(c)) {
                if let Some(first) = segment.split_whitespace().next() {
                    out.insert(format!("head:{first}"));
                }
            }
        }
    }
    out
}

/// The report: per program, forms declared and run, lines generated,
/// allowed and run, non-zero exits, figures; then every violation and
/// note. Answers the report, the summary, the forms that never ran and the
/// violation count.
#[allow(clippy::too_many_lines, reason = "one report, read top to bottom")]
fn render(
    plans: &[Plan],
    lines: &[&Line],
    refused: &[(&Line, String)],
    outcomes: &[Outcome],
    vector_programs: &BTreeSet<String>,
    notes_all: &[String],
    figures: RunFigures,
) -> (String, String, Vec<String>, usize, Vec<String>) {
    let mut report = String::new();
    let mut never = String::new();
    let mut unran = Vec::new();
    let mut violations = 0;
    let mut forms_total = 0;
    let mut forms_ran = 0;
    let mut forms_zero = 0;
    let mut rejected = Vec::new();
    let mut programs_ran = 0;
    let mut nonzero_total = 0;
    let mut pairs_lines = 0;
    let mut by_purpose: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut triaged: BTreeMap<&str, usize> = BTreeMap::new();
    for (l, _) in refused {
        by_purpose.entry(purpose(&l.purpose)).or_default().1 += 1;
    }
    for l in lines {
        by_purpose.entry(purpose(&l.purpose)).or_default().0 += 1;
    }
    let _ = writeln!(
        report,
        "{:<12} {:>6} {:>6} {:>7} {:>7} {:>7} {:>8} {:>10} {:>10}  exempt / forms not run / non-zero exits",
        "program", "forms", "ran", "lines", "allowed", "nonzero", "max s", "peak KiB", "out bytes"
    );
    for plan in plans {
        let mine: Vec<(usize, &&Line)> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.program == plan.program)
            .collect();
        let generated = plan.lines.len();
        let exempt = EXEMPT.iter().find(|(p, _)| *p == plan.program);
        let mut ran_forms: BTreeSet<&str> = BTreeSet::new();
        // Forms in a line that exited 0: run as the program accepts them.
        let mut zero_forms: BTreeSet<&str> = BTreeSet::new();
        let mut nonzero = Vec::new();
        let mut max_elapsed = Duration::ZERO;
        let mut peak = 0;
        let mut out = 0;
        for (i, l) in &mine {
            let o = &outcomes[*i];
            if !o.ran {
                continue;
            }
            for f in &l.forms {
                ran_forms.insert(f);
                if o.status == Some(0) {
                    zero_forms.insert(f);
                }
            }
            if o.status != Some(0) && l.purpose == Purpose::Single {
                if let Some(form) = l.forms.iter().find(|f| rejects_option(f, &o.said)) {
                    rejected.push(format!("{} {form}: {}", plan.program, o.said));
                }
                let class = triage(plan.program, o.status, &o.said);
                *triaged.entry(class).or_default() += 1;
                nonzero.push(format!(
                    "[{class}] {:?} exit {:?}: {}",
                    l.text, o.status, o.said
                ));
            }
            max_elapsed = max_elapsed.max(o.elapsed.unwrap_or_default());
            peak = peak.max(o.peak_kib.unwrap_or(0));
            out = out.max(o.output_bytes);
            if l.purpose == Purpose::Pairs {
                pairs_lines += 1;
            }
        }
        let (declared, ran, missing): (usize, usize, Vec<String>) = if plan.dedicated {
            let ran = vector_programs.contains(plan.program);
            let missing = if ran || exempt.is_some() || REFUSED.contains(&plan.program) {
                Vec::new()
            } else {
                vec![String::from(
                    "(dedicated parser): no proven vector line names it",
                )]
            };
            (1, usize::from(ran), missing)
        } else {
            let mut missing = Vec::new();
            for f in plan
                .forms
                .iter()
                .filter(|f| !ran_forms.contains(f.as_str()))
            {
                match NEVER_PROVEN.iter().find(|(p, form, _)| {
                    (*p == plan.program || p.split_whitespace().any(|p| p == plan.program))
                        && (*form == "*" || form.split_whitespace().any(|g| g == f))
                }) {
                    Some((.., why)) => {
                        let _ = writeln!(never, "  {} {f}: {why}", plan.program);
                    }
                    None => missing.push(f.clone()),
                }
            }
            let ran = plan
                .forms
                .iter()
                .filter(|f| ran_forms.contains(f.as_str()))
                .count();
            (plan.forms.len(), ran, missing)
        };
        forms_total += declared;
        forms_ran += ran;
        if !plan.dedicated {
            forms_zero += plan
                .forms
                .iter()
                .filter(|f| zero_forms.contains(f.as_str()))
                .count();
        }
        if ran > 0 {
            programs_ran += 1;
        }
        nonzero_total += nonzero.len();
        let what = if plan.dedicated {
            if ran > 0 {
                String::from("dedicated parser: run by the command oracle's vector lines")
            } else if let Some((_, why)) = exempt {
                format!("EXEMPT: {why}")
            } else if REFUSED.contains(&plan.program) {
                String::from("its rule refuses every line: nothing proven, nothing to run")
            } else {
                String::new()
            }
        } else {
            String::new()
        };
        let _ = writeln!(
            report,
            "{:<12} {:>6} {:>6} {:>7} {:>7} {:>7} {:>8.1} {:>10} {:>10}  {what}",
            plan.program,
            declared,
            ran,
            generated,
            mine.len(),
            nonzero.len(),
            max_elapsed.as_secs_f64(),
            peak,
            out
        );
        for m in &missing {
            let _ = writeln!(report, "    NOT RUN: {m}");
            unran.push(format!("{} {m}", plan.program));
        }
        for n in &nonzero {
            let _ = writeln!(report, "    non-zero: {n}");
        }
    }
    let _ = writeln!(
        report,
        "\ndeclared but never proven (refused in every spelling; listed with the refusal):\n{never}"
    );
    let _ = writeln!(
        report,
        "\nlines by purpose (allowed and run / refused by the policy):"
    );
    for (p, (a, r)) in &by_purpose {
        let _ = writeln!(report, "  {p:<32} {a:>6} {r:>6}");
    }
    let _ = writeln!(report, "\nviolations:");
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    for (i, l) in lines.iter().enumerate() {
        for (class, evidence) in &outcomes[i].violations {
            violations += 1;
            *classes.entry(class.clone()).or_default() += 1;
            let _ = writeln!(report, "  {:?}\n    {class}\n    {evidence}", l.text);
        }
    }
    let _ = writeln!(report, "\nnotes:");
    for (i, l) in lines.iter().enumerate() {
        for n in &outcomes[i].notes {
            let _ = writeln!(report, "  {:?}: {n}", l.text);
        }
    }
    for n in notes_all {
        let _ = writeln!(report, "  {n}");
    }
    let _ = writeln!(report, "\nrefused by the policy (not run):");
    for (l, why) in refused {
        let _ = writeln!(
            report,
            "  [{}] {:?}\n      {why}",
            purpose(&l.purpose),
            l.text
        );
    }
    let max_peak = outcomes
        .iter()
        .filter_map(|o| o.peak_kib)
        .max()
        .unwrap_or(0);
    let max_out = outcomes.iter().map(|o| o.output_bytes).max().unwrap_or(0);
    let max_elapsed = outcomes
        .iter()
        .filter_map(|o| o.elapsed)
        .max()
        .unwrap_or_default();
    let mut summary = format!(
        "command oracle, declared forms{}: {} programs ({} with a form run), {} forms declared, \
         {} run ({} in a line that exited 0); {} lines generated, {} allowed and run in {} sandbox runs ({} lines again \
         alone), {} refused; {} pairwise-design lines; {} single-option lines exited non-zero; \
         {} violations; slowest line {:.1} s, peak memory {} KiB (bound {} KiB), most output \
         {} bytes (bound {}); {:.1} min\n",
        if figures.full { " (full run)" } else { "" },
        plans.len(),
        programs_ran,
        forms_total,
        forms_ran,
        forms_zero,
        lines.len() + refused.len(),
        lines.len(),
        figures.runs,
        figures.reruns,
        refused.len(),
        pairs_lines,
        nonzero_total,
        violations,
        max_elapsed.as_secs_f64(),
        max_peak,
        MEMORY_BOUND_KIB,
        max_out,
        OUTPUT_BOUND,
        figures.elapsed.as_secs_f64() / 60.0
    );
    for (class, n) in &classes {
        let _ = writeln!(summary, "  {n:4} × {class}");
    }
    let _ = writeln!(
        summary,
        "non-zero exits of single-option lines by cause: {}",
        triaged
            .iter()
            .map(|(class, n)| format!("{n} {class}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !rejected.is_empty() {
        let _ = writeln!(
            report,
            "\ndeclared forms the program here refuses as unknown ({}):",
            rejected.len()
        );
        for r in &rejected {
            let _ = writeln!(report, "  {r}");
        }
    }
    (report, summary, unran, violations, rejected)
}

/// Whether `program` is a file on `PATH`.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

fn purpose(p: &Purpose) -> String {
    match p {
        Purpose::Single => String::from("single option"),
        Purpose::Pairs => String::from("pairwise design"),
        Purpose::Operand(k) => format!("operand: {k}"),
        Purpose::Spelling(k) => format!("spelling: {k}"),
    }
}
