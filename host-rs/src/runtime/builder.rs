//! Loading a policy: which component, which cache, which limits. The builder
//! turns these settings into a wasmtime engine configured for them (fuel or
//! epochs), the compiled component (from the cache when it can) and an empty
//! instance pool.

use super::error::LoadError;
use super::limits::{MemoryLimiter, WorkLimit, DEFAULT_MAX_MEMORY, DEFAULT_WORK_LIMIT};
use super::pool::Pool;
use super::{clock, Policy};
use crate::bindings::ToolgatePre;
use crate::cache;
use std::path::PathBuf;
use std::sync::Arc;
use wasmtime::component::Linker;

/// Settings for loading a policy; see [`Policy::builder`].
#[derive(Debug, Clone)]
pub struct PolicyBuilder {
    component: Option<Vec<u8>>,
    component_path: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
    use_cache: bool,
    max_memory: usize,
    work_limit: WorkLimit,
    max_idle: Option<usize>,
}

impl Default for PolicyBuilder {
    fn default() -> Self {
        PolicyBuilder {
            component: None,
            component_path: None,
            cache_dir: None,
            use_cache: true,
            max_memory: DEFAULT_MAX_MEMORY,
            work_limit: DEFAULT_WORK_LIMIT,
            max_idle: None,
        }
    }
}

impl PolicyBuilder {
    /// Loads a custom component from a file instead of the embedded one.
    pub fn component_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.component_path = Some(path.into());
        self.component = None;
        self
    }

    /// Uses these component bytes instead of the embedded component.
    pub fn component_bytes(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.component = Some(bytes.into());
        self.component_path = None;
        self
    }

    /// Keeps compiled artifacts in this directory instead of the default
    /// (see [`cache::default_dir`]).
    pub fn cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cache_dir = Some(dir.into());
        self.use_cache = true;
        self
    }

    /// Never reads or writes compiled artifacts: compile on every load.
    pub fn no_cache(mut self) -> Self {
        self.use_cache = false;
        self
    }

    /// The most linear memory one instance may grow to. Growing past it traps,
    /// which the host answers `confirm` with a `policy.fault` finding.
    pub fn max_memory(mut self, bytes: usize) -> Self {
        self.max_memory = bytes;
        self
    }

    /// The work limit of one call ([`DEFAULT_WORK_LIMIT`] unless set). A call
    /// that reaches it is answered `confirm` with a [`crate::POLICY_LIMIT`]
    /// finding. `assess_many` gets the limit once per call in the batch.
    pub fn work_limit(mut self, limit: WorkLimit) -> Self {
        self.work_limit = limit;
        self
    }

    /// How many idle instances the pool keeps for reuse (default: the number of
    /// CPUs). More concurrent callers than this still each get an instance; the
    /// surplus is dropped when they finish.
    pub fn max_idle_instances(mut self, count: usize) -> Self {
        self.max_idle = Some(count);
        self
    }

    /// Loads the policy.
    pub fn build(self) -> Result<Policy, LoadError> {
        let bytes: std::borrow::Cow<'_, [u8]> = match (&self.component, &self.component_path) {
            (Some(bytes), _) => bytes.as_slice().into(),
            (None, Some(path)) => std::fs::read(path)
                .map_err(|source| LoadError::Read {
                    path: path.clone(),
                    source,
                })?
                .into(),
            (None, None) => toolgate_component::COMPONENT.into(),
        };
        // The embedded component's hash is computed at build time: hashing
        // 2.5 MB on every start would cost more than loading the artifact.
        let sha256: std::borrow::Cow<'_, str> = match (&self.component, &self.component_path) {
            (None, None) => toolgate_component::COMPONENT_SHA256.into(),
            _ => cache::sha256_hex(&bytes).into(),
        };
        let mut config = wasmtime::Config::new();
        config.wasm_component_model(true);
        config.consume_fuel(matches!(self.work_limit, WorkLimit::Fuel(_)));
        config.epoch_interruption(matches!(self.work_limit, WorkLimit::Time(_)));
        let wasm = wasmtime::Engine::new(&config).map_err(|e| LoadError::Invalid(e.to_string()))?;
        if let WorkLimit::Time(_) = self.work_limit {
            clock::start(&wasm)
                .map_err(|e| LoadError::Invalid(format!("starting the work clock: {e}")))?;
        }
        let dir = if self.use_cache {
            self.cache_dir.clone().or_else(cache::default_dir)
        } else {
            None
        };
        let (component, source) = cache::load(&wasm, &bytes, &sha256, dir.as_deref())
            .map_err(|e| LoadError::Invalid(format!("{e:#}")))?;
        let linker: Linker<MemoryLimiter> = Linker::new(&wasm);
        let pre = linker
            .instantiate_pre(&component)
            .and_then(ToolgatePre::new)
            .map_err(|e| LoadError::Invalid(format!("{e:#}")))?;
        let max_idle = self.max_idle.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(usize::from)
                .unwrap_or(1)
        });
        Ok(Policy {
            pool: Arc::new(Pool::new(
                wasm,
                pre,
                source,
                self.max_memory,
                self.work_limit,
                max_idle,
            )),
        })
    }
}
