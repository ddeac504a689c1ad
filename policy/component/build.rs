//! Builds toolgate-policy for `wasm32-unknown-unknown` with a nested cargo
//! invocation and wraps the module into a component. The component is never
//! checked in: every build makes it from source, so every host embeds exactly
//! the policy in this tree.

use sha2::Digest;
use std::env;
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-unknown-unknown";
const PROFILE: &str = "wasm";
/// The component's linear memory limit in bytes (a multiple of the 64 KiB page).
const MAX_MEMORY: u32 = 256 * 1024 * 1024;

fn main() -> Result<(), Box<dyn Error>> {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    let root = manifest_dir
        .parent()
        .and_then(Path::parent)
        .ok_or("toolgate-component must live at policy/component in the workspace")?
        .to_path_buf();
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    // A target directory of its own, shared by every profile of the outer build:
    // the wasm build is the same whether the host is built for debug or release,
    // and a separate directory cannot contend for the outer build's lock.
    let target_dir = env::var_os("TOOLGATE_WASM_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target").join("wasm"));
    let cargo = env::var("CARGO").unwrap_or_else(|_| String::from("cargo"));
    ensure_target()?;

    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args(["build", "--package", "toolgate-policy", "--lib"])
        .args(["--features", "component"])
        .args(["--target", TARGET, "--profile", PROFILE])
        .arg("--target-dir")
        .arg(&target_dir);
    // Bound the component's memory in every runtime (wasmtime, Node, browsers):
    // growing past it traps, which hosts answer `confirm`. The policy refuses
    // arguments over 1 MiB before parsing them, so 256 MiB is ample.
    cmd.env(
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
        format!("-Clink-arg=--max-memory={MAX_MEMORY}"),
    );
    // Flags meant for the host must not leak into the wasm build.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET_DIR",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd.status()?;
    if !status.success() {
        return Err(format!("building toolgate-policy for {TARGET} failed: {status}").into());
    }

    let artifacts = target_dir.join(TARGET).join(PROFILE);
    let module = fs::read(artifacts.join("toolgate_policy.wasm"))?;
    let component = wit_component::ComponentEncoder::default()
        .module(&module)?
        .validate(true)
        .encode()?;
    // The component's SHA-256, computed once here so hosts can key their
    // compiled-artifact caches without hashing 2.5 MB on every start.
    let digest = sha2::Sha256::digest(&component);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    fs::write(out_dir.join("toolgate.wasm"), component)?;
    fs::write(out_dir.join("toolgate.wasm.sha256"), hex)?;

    // Rebuild when any source of the wasm build changes: the dep-info file lists
    // them all, the workspace manifests and lock file decide how they build.
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.toml").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.lock").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        root.join("policy").join("Cargo.toml").display()
    );
    println!("cargo:rerun-if-changed={}", root.join("wit").display());
    println!("cargo:rerun-if-env-changed=TOOLGATE_WASM_TARGET_DIR");
    let dep_info = fs::read_to_string(artifacts.join("toolgate_policy.d"))?;
    for line in dep_info.lines() {
        if let Some((_, deps)) = line.split_once(": ") {
            for dep in deps.split_whitespace() {
                if !dep.contains("/.cargo/registry/") {
                    println!("cargo:rerun-if-changed={dep}");
                }
            }
        }
    }
    Ok(())
}

/// Makes sure the toolchain has the wasm target's standard library.
/// `rust-toolchain.toml` lists the target, but rustup adds a toolchain file's
/// targets only when it installs the toolchain itself; on a machine that already
/// had this toolchain, the first build adds the target here instead of failing
/// with "can't find crate for `core`".
fn ensure_target() -> Result<(), Box<dyn Error>> {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| String::from("rustc"));
    let sysroot = Command::new(&rustc).args(["--print", "sysroot"]).output()?;
    let sysroot = PathBuf::from(String::from_utf8(sysroot.stdout)?.trim());
    if sysroot
        .join("lib")
        .join("rustlib")
        .join(TARGET)
        .join("lib")
        .is_dir()
    {
        return Ok(());
    }
    let mut rustup = Command::new("rustup");
    rustup.args(["target", "add", TARGET]);
    if let Ok(toolchain) = env::var("RUSTUP_TOOLCHAIN") {
        rustup.args(["--toolchain", &toolchain]);
    }
    match rustup.status() {
        Ok(status) if status.success() => Ok(()),
        _ => Err(format!(
            "the Rust toolchain lacks the {TARGET} target and rustup could not add it; \
             run `rustup target add {TARGET}`"
        )
        .into()),
    }
}
