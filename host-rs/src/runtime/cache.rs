//! The compiled-component cache.
//!
//! Compiling the component with cranelift takes seconds; loading a precompiled
//! artifact takes about a millisecond. Precompiling at build time would need a
//! second wasmtime (with its compiler) as a build dependency, doubling the
//! slowest part of the build, and would still break whenever the wasmtime
//! engine's settings differ from the build's. So the host compiles on first use
//! and keeps the artifact in a cache directory, keyed by the component's SHA-256
//! and the wasmtime engine's compatibility hash (wasmtime version, target and
//! settings): a stale or foreign artifact can never be picked up, it simply
//! misses.
//!
//! Files are written to a temporary name, synced and renamed into place, so
//! concurrent processes never see half a file. Artifacts are memory-mapped, not
//! read: a whole `toolgate assess` then takes about 3 ms instead of 12 (reading,
//! checksumming and copying 7 MB dominated). wasmtime checks each artifact's
//! structure, version and settings, so a truncated or foreign file is refused
//! and recompiled; what it cannot see is a byte changed inside the machine code.
//! The artifact is native code, so the cache directory must be writable only by
//! the user who runs the host (the default, under the user's own cache
//! directory, is), just like the directory that holds the host's own binary.
//! At most [`MAX_ARTIFACTS`] files are kept.

use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use wasmtime::component::Component;

/// Where the component came from this time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadSource {
    /// Deserialized from a cached artifact.
    Cache(PathBuf),
    /// Compiled now, and stored for next time at this path.
    CompiledAndCached(PathBuf),
    /// Compiled now; not stored (no cache directory, or it was not writable).
    Compiled,
}

/// The default cache directory: `$TOOLGATE_CACHE_DIR`, else the platform's user
/// cache directory (`$XDG_CACHE_HOME`, `~/.cache`, `%LOCALAPPDATA%`) + `toolgate`.
pub fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("TOOLGATE_CACHE_DIR") {
        return Some(dir);
    }
    var("XDG_CACHE_HOME")
        .or_else(|| var("HOME").map(|home| home.join(".cache")))
        .or_else(|| var("LOCALAPPDATA"))
        .map(|dir| dir.join("toolgate"))
}

/// Feeds `Hash` output into SHA-256, so the wasmtime engine's compatibility hash becomes
/// part of a stable file name.
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
    fn finish(&self) -> u64 {
        0
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The cache file name for a component with this SHA-256 (lower-case hex)
/// under this wasmtime engine.
pub fn file_name(wasm: &wasmtime::Engine, component_sha256: &str) -> String {
    let mut hasher = ShaHasher(Sha256::new());
    wasm.precompile_compatibility_hash().hash(&mut hasher);
    let wasm_hash = hasher.0.finalize();
    format!(
        "toolgate-{}-{}.cwasm",
        component_sha256.get(..24).unwrap_or(component_sha256),
        hex(wasm_hash.get(..8).unwrap_or_default())
    )
}

/// The SHA-256 of component bytes, in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Loads the component, from the cache when a valid artifact is there.
/// `component_sha256` is the SHA-256 of `bytes` (hex), known at build time for
/// the embedded component.
pub fn load(
    wasm: &wasmtime::Engine,
    bytes: &[u8],
    component_sha256: &str,
    dir: Option<&Path>,
) -> wasmtime::Result<(Component, LoadSource)> {
    let Some(dir) = dir else {
        return Ok((Component::new(wasm, bytes)?, LoadSource::Compiled));
    };
    let path = dir.join(file_name(wasm, component_sha256));
    if let Some(component) = read(wasm, &path) {
        return Ok((component, LoadSource::Cache(path)));
    }
    let component = Component::new(wasm, bytes)?;
    let source = match component.serialize() {
        Ok(artifact) if write(dir, &path, &artifact).is_ok() => {
            prune(dir, &path);
            LoadSource::CompiledAndCached(path)
        }
        _ => LoadSource::Compiled,
    };
    Ok((component, source))
}

fn read(wasm: &wasmtime::Engine, path: &Path) -> Option<Component> {
    #[expect(
        unsafe_code,
        reason = "deserializing loads native code; the artifact was written by this host for \
                  this wasmtime engine (the file name carries both hashes)"
    )]
    // SAFETY: the file is an artifact this module wrote with `Component::serialize`
    // for a wasmtime engine with the same compatibility hash (both are in its name), and
    // renamed into place only after it was completely written and synced, so it
    // is never seen half-written; wasmtime re-checks the artifact's structure,
    // version and wasmtime settings and refuses a truncated or foreign file. The
    // file is memory-mapped, which is what makes a start take milliseconds: the
    // cache directory must be writable only by this user (see the module docs).
    let component = unsafe { Component::deserialize_file(wasm, path) };
    component.ok()
}

fn write(dir: &Path, path: &Path, artifact: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("component"),
        std::process::id()
    ));
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(artifact)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// How many compiled artifacts a cache directory keeps. Each host version and
/// each custom component adds one (about 7 MB); the oldest are removed.
pub const MAX_ARTIFACTS: usize = 8;

/// Removes the oldest artifacts beyond [`MAX_ARTIFACTS`], never `keep`, and
/// artifacts of the earlier file format. Best effort: a file another process
/// still maps stays valid for it (removing a name does not unmap the file).
fn prune(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut artifacts = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !name.ends_with(".cwasm") || path == keep {
            continue;
        }
        if name.starts_with("component-") {
            // The earlier format (a checksum trailer); never read any more.
            let _ = std::fs::remove_file(&path);
        } else if name.starts_with("toolgate-") {
            let modified = entry
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(std::time::SystemTime::UNIX_EPOCH);
            artifacts.push((modified, path));
        }
    }
    // Newest first; `keep` counts as one of the kept.
    artifacts.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    for (_, path) in artifacts.iter().skip(MAX_ARTIFACTS.saturating_sub(1)) {
        let _ = std::fs::remove_file(path);
    }
}
