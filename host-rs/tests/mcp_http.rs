//! `toolgate mcp-proxy` over MCP's Streamable HTTP transport, both sides:
//! the MCP TypeScript SDK's client (its StreamableHTTPClientTransport, from
//! host-js/node_modules) against the gateway listening on loopback, in front
//! of the reference filesystem server and of a remote server over HTTP that
//! wants a bearer token (`tests/mcp/http-e2e.mjs` drives the sessions and
//! asserts on each answer). This test then checks what the script cannot
//! fake: the audit log's chain, and that it holds results by hash and size.
//!
//! It is skipped, saying so, only when Node or the npm packages are absent
//! (they are installed from the lockfile in CI).

#![allow(clippy::expect_used, clippy::panic, reason = "a test fails loudly")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn prerequisites() -> Result<(), String> {
    let node = Command::new("node")
        .arg("--version")
        .output()
        .map_err(|e| format!("node is not runnable: {e}"))?;
    if !node.status.success() {
        return Err(String::from("node --version failed"));
    }
    let modules = root().join("host-js/node_modules/@modelcontextprotocol");
    for package in ["sdk", "server-filesystem"] {
        if !modules.join(package).join("package.json").exists() {
            return Err(format!(
                "@modelcontextprotocol/{package} is not installed in host-js/node_modules (npm install in host-js)"
            ));
        }
    }
    Ok(())
}

#[test]
fn the_gateway_gates_streamable_http_on_both_sides() {
    if let Err(why) = prerequisites() {
        eprintln!("SKIPPED mcp_http: {why}");
        return;
    }
    let work = std::env::temp_dir().join(format!("toolgate-mcp-http-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("work dir");
    let mut child = Command::new("node")
        .arg(root().join("tests/mcp/http-e2e.mjs"))
        .arg(env!("CARGO_BIN_EXE_toolgate"))
        .arg(&work)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the Streamable HTTP end-to-end script did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("output");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{said}");
    assert_eq!(
        said.matches("\nok - ").count() + usize::from(said.starts_with("ok - ")),
        10,
        "{said}"
    );

    let audit = work.join("audit.jsonl");
    let verify = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["audit", "verify"])
        .arg(&audit)
        .output()
        .expect("audit verify");
    let report = String::from_utf8_lossy(&verify.stdout);
    assert!(verify.status.success(), "{report}");
    let log = std::fs::read_to_string(&audit).expect("audit");
    let executed: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .filter(|r: &serde_json::Value| r["status"] == "executed")
        .collect();
    assert!(executed.len() >= 5, "{log}");
    for record in &executed {
        let result = record["result"].as_str().unwrap_or_default();
        assert!(
            result.starts_with("sha256:") && result.ends_with(" bytes)"),
            "a result is recorded by hash and size: {record}"
        );
    }
    assert!(
        !log.contains("hello over HTTP"),
        "no result's text is in the log"
    );
    // The approval settled through `toolgate approvals` is recorded with who
    // answered and how.
    assert!(log.contains("(toolgate approvals)"), "{log}");
    let _ = std::fs::remove_dir_all(&work);
}
