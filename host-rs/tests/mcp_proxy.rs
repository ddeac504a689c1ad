//! `toolgate mcp-proxy` end to end: the MCP TypeScript SDK's client (from
//! host-js/node_modules) against the reference filesystem and "everything"
//! servers and a stand-in server whose tools change, all through this
//! crate's binary (`tests/mcp/e2e.mjs` drives the sessions and asserts on
//! each answer). This test then checks what the script cannot fake: the file
//! system the servers wrote to and the audit log's chain.
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

/// Node, and the packages the script loads, or why the test cannot run.
fn prerequisites() -> Result<(), String> {
    let node = Command::new("node")
        .arg("--version")
        .output()
        .map_err(|e| format!("node is not runnable: {e}"))?;
    if !node.status.success() {
        return Err(String::from("node --version failed"));
    }
    let modules = root().join("host-js/node_modules/@modelcontextprotocol");
    for package in ["sdk", "server-filesystem", "server-everything"] {
        if !modules.join(package).join("package.json").exists() {
            return Err(format!(
                "@modelcontextprotocol/{package} is not installed in host-js/node_modules (npm install in host-js)"
            ));
        }
    }
    Ok(())
}

/// Runs the script with a bound; its output, and whether it succeeded.
fn script(work: &Path, extra: &[&str]) -> (bool, String) {
    let mut child = Command::new("node")
        .arg(root().join("tests/mcp/e2e.mjs"))
        .arg(env!("CARGO_BIN_EXE_toolgate"))
        .arg(work)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let started = Instant::now();
    loop {
        if let Some(_status) = child.try_wait().expect("wait") {
            break;
        }
        if started.elapsed() > Duration::from_secs(240) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the MCP end-to-end script did not finish in 240 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("output");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[test]
fn the_gateway_gates_real_mcp_servers_for_the_sdk_client() {
    if let Err(why) = prerequisites() {
        eprintln!("SKIPPED mcp_proxy: {why}");
        return;
    }
    let work = std::env::temp_dir().join(format!("toolgate-mcp-proxy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("work dir");
    let (ok, output) = script(&work, &[]);
    assert!(ok, "the end-to-end script failed:\n{output}");
    assert!(
        output.contains("{\"steps\":13}"),
        "not every step ran:\n{output}"
    );

    // What reached the servers, seen from the file system.
    let files = work.join("files");
    assert_eq!(
        std::fs::read_to_string(files.join("accepted.txt")).expect("approved write"),
        "approved"
    );
    assert!(!files.join("declined.txt").exists(), "a declined write ran");
    assert!(
        !files.join("unasked.txt").exists(),
        "an unapproved write ran"
    );
    assert!(!files.join("denied-dir").exists(), "a denied call ran");
    let calls = std::fs::read_to_string(work.join("changing/calls")).expect("calls");
    assert!(calls.contains("\"one\"") && calls.contains("\"three\""));
    assert!(
        !calls.contains("\"two\""),
        "the changed tool ran unapproved"
    );

    // The audit log verifies, and holds every decision.
    let audit = work.join("audit.jsonl");
    let verify = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["audit", "verify"])
        .arg(&audit)
        .output()
        .expect("audit verify");
    let said = String::from_utf8_lossy(&verify.stdout);
    assert!(verify.status.success(), "{said}");
    // (The three calls confirmed for clients without elicitation are left
    // pending for `toolgate approvals`: their requests are recorded, and no
    // rejection, since nobody answered.)
    assert!(said.starts_with("ok: 21 records"), "{said}");
    let log = std::fs::read_to_string(&audit).expect("audit");
    for (tool, status) in [
        ("mcp:fs/read_text_file", "executed"),
        ("mcp:fs/write_file", "executed"),
        ("mcp:fs/write_file", "rejected"),
        ("mcp:fs/write_file", "expired"),
        ("mcp:fs/create_directory", "denied"),
        ("mcp:changing/slow", "failed"),
    ] {
        assert!(
            log.lines()
                .any(|line| line.contains(&format!("\"tool\":\"{tool}\""))
                    && line.contains(&format!("\"status\":\"{status}\""))),
            "no {status} record of {tool}"
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}
