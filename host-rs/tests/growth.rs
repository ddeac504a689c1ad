#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]
//! Work that grows linearly with the input, proven with wasmtime fuel.
//!
//! Fuel counts WebAssembly instructions, so the same input costs the same fuel
//! on an idle machine and a loaded one: a deterministic measure where timings
//! are not. For every syntax shape an attacker can repeat (brackets, quotes,
//! words, operators, heredocs, comments, nesting), the policy decides an input
//! of `n` repetitions and one of `2n`; the second may cost at most
//! [`MAX_RATIO`] times the first. Quadratic work shows as a ratio near 4, so a
//! quadratic path in any assessor fails this test the day it is written, long
//! before the input is large enough to time out in production.

use serde_json::json;
use toolgate::{Policy, WorkLimit, POLICY_LIMIT};

/// What doubling the input may multiply the work by. Linear work gives 2 (plus
/// noise from the fixed cost, which the sizes below make small); n·log n a
/// little more; quadratic 4.
const MAX_RATIO: f64 = 2.6;

/// The most fuel a shape may burn per byte of input. Ordinary shapes cost
/// 10²–10⁴; work that is quadratic up to a depth limit and then stops shows a
/// fine ratio but a cost per byte far above this.
const MAX_FUEL_PER_BYTE: u64 = 25_000;

/// Repetitions of the unit in the smaller input. Large enough that fixed costs
/// (argument parsing, configuration) vanish; small enough that `2n` of the
/// longest unit stays under the 1 MiB argument limit.
const N: usize = 12_000;

/// One shape: a tool, an optional configuration, and how to build the tool's
/// arguments from `n` repetitions.
struct Shape {
    name: &'static str,
    tool: &'static str,
    config: Option<serde_json::Value>,
    args: fn(usize) -> String,
}

fn command(text: String) -> String {
    json!({ "command": text }).to_string()
}

fn sql(text: String) -> String {
    json!({ "sql": text }).to_string()
}

macro_rules! shape {
    ($name:expr, $tool:expr, $config:expr, |$n:ident| $body:expr) => {
        Shape {
            name: $name,
            tool: $tool,
            config: $config,
            args: |$n: usize| $body,
        }
    };
}

fn dialect(name: &str) -> Option<serde_json::Value> {
    Some(json!({ "tools": { "execute_sql": { "dialect": name } } }))
}

fn shapes() -> Vec<Shape> {
    let cmd = "execute_command";
    let q = "execute_sql";
    vec![
        // Commands: every bracket, quote, operator and nesting form.
        shape!("cmd [", cmd, None, |n| command("[".repeat(n))),
        shape!("cmd ls [", cmd, None, |n| command(format!(
            "ls {}",
            "[".repeat(n)
        ))),
        shape!("cmd (", cmd, None, |n| command("(".repeat(n))),
        shape!("cmd ( ls )", cmd, None, |n| command(format!(
            "{}ls{}",
            "( ".repeat(n),
            " )".repeat(n)
        ))),
        shape!("cmd )", cmd, None, |n| command(")".repeat(n))),
        shape!("cmd {", cmd, None, |n| command("{ ".repeat(n))),
        shape!("cmd $(", cmd, None, |n| command("$(".repeat(n))),
        shape!("cmd echo $(echo", cmd, None, |n| command(format!(
            "{}x{}",
            "echo $(".repeat(n),
            ")".repeat(n)
        ))),
        shape!("cmd backquote", cmd, None, |n| command("`".repeat(n))),
        shape!("cmd $((", cmd, None, |n| command(format!(
            "echo {}",
            "$((1+".repeat(n)
        ))),
        shape!("cmd single quotes", cmd, None, |n| command(format!(
            "echo {}",
            "'a' ".repeat(n)
        ))),
        shape!("cmd double quotes", cmd, None, |n| command(format!(
            "echo {}",
            "\"a $HOME\" ".repeat(n)
        ))),
        shape!("cmd open quote", cmd, None, |n| command(format!(
            "echo \"{}",
            "a'".repeat(n)
        ))),
        shape!("cmd backslashes", cmd, None, |n| command(format!(
            "echo {}",
            "\\".repeat(n)
        ))),
        shape!("cmd words", cmd, None, |n| command(format!(
            "ls {}",
            "a ".repeat(n)
        ))),
        shape!("cmd one long word", cmd, None, |n| command(format!(
            "ls {}",
            "ab".repeat(n)
        ))),
        shape!("cmd ;", cmd, None, |n| command("ls; ".repeat(n))),
        shape!("cmd &&", cmd, None, |n| command(format!(
            "ls{}",
            " && ls".repeat(n)
        ))),
        shape!("cmd pipes", cmd, None, |n| command(format!(
            "ls{}",
            " | wc".repeat(n)
        ))),
        shape!("cmd &", cmd, None, |n| command("ls & ".repeat(n))),
        shape!("cmd newlines", cmd, None, |n| command("ls\n".repeat(n))),
        shape!("cmd heredoc body", cmd, None, |n| command(format!(
            "cat <<'EOF'\n{}EOF\n",
            "line\n".repeat(n)
        ))),
        shape!("cmd many heredocs", cmd, None, |n| command(format!(
            "cat {}\n{}",
            "<<E ".repeat(n),
            "E\n".repeat(n)
        ))),
        shape!("cmd unclosed heredocs", cmd, None, |n| command(
            "cat <<E\n".repeat(n)
        )),
        shape!("cmd redirections", cmd, None, |n| command(format!(
            "ls {}",
            "2>/dev/null ".repeat(n)
        ))),
        shape!("cmd assignments", cmd, None, |n| command(format!(
            "{}ls",
            "A=b ".repeat(n)
        ))),
        shape!("cmd comment", cmd, None, |n| command(format!(
            "ls # {}",
            "x".repeat(n)
        ))),
        shape!("cmd globs", cmd, None, |n| command(format!(
            "ls {}",
            "*?[a]".repeat(n)
        ))),
        shape!("cmd for loops", cmd, None, |n| command(format!(
            "{}ls{}",
            "for i in a; do ".repeat(n),
            "; done".repeat(n)
        ))),
        shape!("cmd if", cmd, None, |n| command(format!(
            "{}ls{}",
            "if true; then ".repeat(n),
            "; fi".repeat(n)
        ))),
        shape!("cmd process substitution", cmd, None, |n| command(format!(
            "diff {}",
            "<(ls) ".repeat(n)
        ))),
        shape!("cmd bash -c nesting", cmd, None, |n| command(format!(
            "{}ls",
            "bash -c ".repeat(n)
        ))),
        shape!("cmd variables", cmd, None, |n| command(format!(
            "echo {}",
            "${HOME}$1".repeat(n)
        ))),
        shape!("cmd argv array", cmd, None, |n| json!({
            "command": vec!["ls"; n]
        })
        .to_string()),
        // SQL, under the default reading and each dialect family.
        shape!("sql (", q, None, |n| sql(format!(
            "SELECT {}",
            "(".repeat(n)
        ))),
        shape!("sql ( 1 )", q, None, |n| sql(format!(
            "SELECT {}1{}",
            "(".repeat(n / 8),
            ")".repeat(n / 8)
        ))),
        shape!("sql nested select", q, None, |n| sql(format!(
            "{}1{}",
            "SELECT (".repeat(n / 16),
            ")".repeat(n / 16)
        ))),
        shape!("sql union", q, None, |n| sql(format!(
            "SELECT 1{}",
            " UNION ALL SELECT a FROM t".repeat(n)
        ))),
        shape!("sql in list", q, None, |n| sql(format!(
            "SELECT 1 WHERE 1 IN (1{})",
            ", 1".repeat(n)
        ))),
        shape!("sql strings", q, None, |n| sql(format!(
            "SELECT {}",
            "'a''b' || ".repeat(n) + "1"
        ))),
        shape!("sql open string", q, None, |n| sql(format!(
            "SELECT '{}",
            "a\\'".repeat(n)
        ))),
        shape!("sql dollar quotes", q, None, |n| sql(format!(
            "SELECT {}",
            "$$a$$ || ".repeat(n) + "1"
        ))),
        shape!("sql open dollar quote", q, None, |n| sql(
            "SELECT $a$".repeat(n)
        )),
        shape!("sql block comments", q, None, |n| sql(format!(
            "SELECT 1 {}",
            "/* x */".repeat(n)
        ))),
        shape!("sql nested comments", q, None, |n| sql(format!(
            "SELECT 1 {}",
            "/*".repeat(n)
        ))),
        shape!("sql line comments", q, None, |n| sql(format!(
            "SELECT 1 {}",
            "-- x\n".repeat(n)
        ))),
        shape!("sql dashes", q, None, |n| sql(format!(
            "SELECT 1 {}",
            "-".repeat(n)
        ))),
        shape!("sql statements", q, None, |n| sql("SELECT 1; ".repeat(n))),
        shape!("sql semicolons", q, None, |n| sql(format!(
            "SELECT 1{}",
            ";".repeat(n)
        ))),
        shape!("sql qualified names", q, None, |n| sql(format!(
            "SELECT {}x FROM t",
            "a.".repeat(n)
        ))),
        shape!("sql quoted identifiers", q, None, |n| sql(format!(
            "SELECT {} FROM t",
            "\"x\" || ".repeat(n) + "1"
        ))),
        shape!("sql brackets", q, None, |n| sql(format!(
            "SELECT {}",
            "[".repeat(n)
        ))),
        shape!("sql case", q, None, |n| sql(format!(
            "SELECT {}1{} FROM t",
            "CASE WHEN a THEN ".repeat(n / 8),
            " END".repeat(n / 8)
        ))),
        shape!("sql arithmetic", q, None, |n| sql(format!(
            "SELECT {}1",
            "1+".repeat(n)
        ))),
        shape!("sql functions", q, None, |n| sql(format!(
            "SELECT {}",
            "lower(a) || ".repeat(n) + "1"
        ))),
        shape!("sql joins", q, None, |n| sql(format!(
            "SELECT 1 FROM a{}",
            " JOIN b ON a.x = b.x".repeat(n / 4)
        ))),
        shape!("sql ctes", q, None, |n| sql(format!(
            "WITH {} z AS (SELECT 1) SELECT 1",
            "a AS (SELECT 1),".repeat(n / 4)
        ))),
        shape!("sql postgres strings", q, dialect("postgres"), |n| sql(
            format!("SELECT {}", "E'a\\'' || ".repeat(n) + "1")
        )),
        shape!("sql postgres dollar", q, dialect("postgres"), |n| sql(
            format!("SELECT {}", "$t$a$t$ || ".repeat(n) + "1")
        )),
        shape!("sql mysql comments", q, dialect("mysql"), |n| sql(format!(
            "SELECT 1 {}",
            "# x\n/*! 1 */ --1\n".repeat(n)
        ))),
        shape!("sql mysql backticks", q, dialect("mysql"), |n| sql(
            format!("SELECT {} FROM t", "`a` + ".repeat(n) + "1")
        )),
        shape!("sql mssql brackets", q, dialect("mssql"), |n| sql(format!(
            "SELECT {} FROM t",
            "[a] + ".repeat(n) + "1"
        ))),
        shape!("sql sqlite", q, dialect("sqlite"), |n| sql(format!(
            "SELECT {} FROM t",
            "a || ".repeat(n) + "1"
        ))),
        // The other assessors and the argument reader.
        shape!("file path", "file_operations", None, |n| json!({
            "operation": "read",
            "path": format!("/srv/{}f", "a/../".repeat(n))
        })
        .to_string()),
        shape!("http url", "http_request", None, |n| json!({
            "method": "GET",
            "url": format!("https://example.com/{}", "a/%2e%2e/".repeat(n))
        })
        .to_string()),
        // Word starts inside one long URL-safe run, each a token's prefix:
        // every one must not read the run afresh.
        shape!("http url token prefixes", "http_request", None, |n| json!({
            "method": "GET",
            "url": format!("https://example.com/?q={}", "xoxb-eyJ-".repeat(n))
        })
        .to_string()),
        shape!("http userinfo", "http_request", None, |n| json!({
            "method": "GET",
            "url": format!("http://{}example.com/", "a\\@".repeat(n))
        })
        .to_string()),
        shape!("json nesting", "some_tool", None, |n| format!(
            "{{\"a\":{}1{}}}",
            "[".repeat(n),
            "]".repeat(n)
        )),
        shape!("json keys", "some_tool", None, |n| {
            let body: Vec<String> = (0..n).map(|i| format!("\"k{i}\":1")).collect();
            format!("{{{}}}", body.join(","))
        }),
        shape!("json duplicate keys", "execute_sql", None, |n| format!(
            "{{{}\"sql\":\"SELECT 1\"}}",
            "\"sql\":\"SELECT 1\",".repeat(n)
        )),
    ]
}

/// The fuel one decision of `args` burns, and whether it finished.
fn fuel(policy: &Policy, shape: &Shape, n: usize) -> (u64, bool, usize) {
    let args = (shape.args)(n);
    let before = policy.stats().fuel_consumed;
    let decision = match &shape.config {
        Some(config) => policy
            .engine(&config.to_string())
            .unwrap()
            .assess(shape.tool, &args),
        None => policy.assess(shape.tool, &args),
    };
    let used = policy.stats().fuel_consumed - before;
    (used, !decision.has_finding(POLICY_LIMIT), args.len())
}

#[test]
fn work_grows_linearly_with_the_input_in_every_shape() {
    // One budget for every call, far above what any shape needs, so that a
    // stop at the limit is itself a failure rather than a flattened ratio.
    let policy = Policy::builder()
        .work_limit(WorkLimit::Fuel(20_000_000_000))
        .build()
        .unwrap();
    let mut failures = Vec::new();
    for shape in shapes() {
        // Warm the instance so the first call's start-up is not counted.
        let _ = fuel(&policy, &shape, 1);
        let (small, small_done, small_len) = fuel(&policy, &shape, N);
        let (large, large_done, large_len) = fuel(&policy, &shape, 2 * N);
        assert!(large_len < 1024 * 1024, "{}: {large_len} bytes", shape.name);
        let ratio = large as f64 / small.max(1) as f64;
        println!(
            "{:28} {:>8} B {:>13} fuel  {:>8} B {:>13} fuel  ×{ratio:.2}",
            shape.name, small_len, small, large_len, large
        );
        if !small_done || !large_done {
            failures.push(format!("{}: stopped at the work limit", shape.name));
        } else if large / large_len as u64 > MAX_FUEL_PER_BYTE {
            failures.push(format!(
                "{}: {} fuel per byte of input ({large} fuel for {large_len} bytes)",
                shape.name,
                large / large_len as u64
            ));
        } else if ratio > MAX_RATIO {
            failures.push(format!(
                "{}: doubling the input multiplied the work by {ratio:.2} ({small} → {large} fuel)",
                shape.name
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "super-linear work:\n{}",
        failures.join("\n")
    );
}

#[test]
fn fuel_is_counted_only_under_a_fuel_limit() {
    let timed = Policy::builder()
        .work_limit(WorkLimit::None)
        .build()
        .unwrap();
    let _ = timed.assess("execute_command", r#"{"command":"ls"}"#);
    assert_eq!(timed.stats().fuel_consumed, 0);

    let fuelled = Policy::builder()
        .work_limit(WorkLimit::Fuel(1_000_000_000))
        .build()
        .unwrap();
    let cost = || {
        let before = fuelled.stats().fuel_consumed;
        let _ = fuelled.assess("execute_command", r#"{"command":"ls"}"#);
        fuelled.stats().fuel_consumed - before
    };
    // The first call of an instance also initialises its tables.
    assert!(cost() > 0);
    // After that, the same call costs the same fuel: fuel is deterministic.
    let one = cost();
    assert!(one > 0);
    assert_eq!(cost(), one);
}
