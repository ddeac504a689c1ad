//! The compiled-component cache.
//!
//! Compiling the component with cranelift takes seconds; loading a precompiled
//! artifact takes about a millisecond. Precompiling at build time would need a
//! second wasmtime (with its compiler) as a build dependency, doubling the
//! slowest part of the build, and would still break whenever the engine's
//! settings differ from the build's. So the host compiles on first use and keeps
//! the artifact in a cache directory, keyed by the component's SHA-256 and the
//! engine's compatibility hash (wasmtime version, target and settings): a stale
//! or foreign artifact can never be picked up, it simply misses.
//!
//! Files are written to a temporary name and renamed into place, so concurrent
//! processes never see half a file. Each file ends with a CRC-32 and a magic
//! trailer; a file that fails the check (truncated, corrupted) is recompiled.
//! The artifact is native code that is loaded without re-validation, so the cache
//! directory must be writable only by the user who runs the host (the default,
//! under the user's own cache directory, is).

use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use wasmtime::component::Component;

const MAGIC: &[u8; 8] = b"TGCWASM1";
const TRAILER: usize = 4 + MAGIC.len();

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

/// Feeds `Hash` output into SHA-256, so the engine's compatibility hash becomes
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

/// The cache file name for this component under this engine.
pub fn file_name(engine: &wasmtime::Engine, component: &[u8]) -> String {
    let component_hash = Sha256::digest(component);
    let mut hasher = ShaHasher(Sha256::new());
    engine.precompile_compatibility_hash().hash(&mut hasher);
    let engine_hash = hasher.0.finalize();
    format!(
        "component-{}-{}.cwasm",
        hex(component_hash.get(..12).unwrap_or_default()),
        hex(engine_hash.get(..8).unwrap_or_default())
    )
}

/// Loads the component, from the cache when a valid artifact is there.
pub fn load(
    engine: &wasmtime::Engine,
    bytes: &[u8],
    dir: Option<&Path>,
) -> wasmtime::Result<(Component, LoadSource)> {
    let Some(dir) = dir else {
        return Ok((Component::new(engine, bytes)?, LoadSource::Compiled));
    };
    let path = dir.join(file_name(engine, bytes));
    if let Some(component) = read(engine, &path) {
        return Ok((component, LoadSource::Cache(path)));
    }
    let component = Component::new(engine, bytes)?;
    let source = match component.serialize() {
        Ok(artifact) if write(dir, &path, &artifact).is_ok() => LoadSource::CompiledAndCached(path),
        _ => LoadSource::Compiled,
    };
    Ok((component, source))
}

fn read(engine: &wasmtime::Engine, path: &Path) -> Option<Component> {
    let data = std::fs::read(path).ok()?;
    let split = data.len().checked_sub(TRAILER)?;
    let (artifact, trailer) = data.split_at(split);
    let (crc, magic) = trailer.split_at(4);
    if magic != MAGIC || crc != crc32fast::hash(artifact).to_le_bytes() {
        return None;
    }
    #[expect(
        unsafe_code,
        reason = "deserializing loads native code; the artifact was written by this host for \
                  this engine (the file name carries both hashes) and passed its checksum"
    )]
    // SAFETY: the bytes are an artifact this module wrote with `Component::serialize`
    // for an engine with the same compatibility hash, verified by CRC-32 against
    // truncation and corruption; wasmtime itself re-checks version and settings.
    let component = unsafe { Component::deserialize(engine, artifact) };
    component.ok()
}

fn write(dir: &Path, path: &Path, artifact: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut data = Vec::with_capacity(artifact.len() + TRAILER);
    data.extend_from_slice(artifact);
    data.extend_from_slice(&crc32fast::hash(artifact).to_le_bytes());
    data.extend_from_slice(MAGIC);
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("component"),
        std::process::id()
    ));
    std::fs::write(&tmp, &data)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
