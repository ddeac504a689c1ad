//! Loading the component and calling it: a pool of instances, bounded memory
//! and work per call, and recovery from faults.
//!
//! Every call checks an instance out of the pool (instantiating one when none is
//! idle, which takes microseconds), runs, and checks it back in, so threads call
//! in parallel without sharing a store. A call that traps, or that runs out of
//! its work budget, discards its instance: a half-run instance's state cannot be
//! trusted, and the next call gets a fresh one. Engines (configured policies)
//! live in every instance that served them; an instance that has not seen an
//! engine yet creates it from the engine's configuration on first use.

use crate::bindings::{Toolgate, ToolgatePre};
use crate::cache::{self, LoadSource};
use crate::decision::{Augmented, Decision, HostDecision, ToolCall};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use wasmtime::component::{Linker, ResourceAny};
use wasmtime::{ResourceLimiter, Store, StoreLimits, StoreLimitsBuilder, Trap};

/// How much linear memory one policy instance may use by default. The policy
/// refuses arguments over 1 MiB before parsing them, so this leaves ample room
/// while bounding what a pathological input could take.
pub const DEFAULT_MAX_MEMORY: usize = 128 * 1024 * 1024;

/// A fuel budget that fits every input the policy accepts with room to spare:
/// the most expensive — a path of nearly 1 MiB read every way a client could,
/// 256 KiB of SQL under every dialect's reading — take under 3.2 × 10⁹ units
/// (about one per WebAssembly instruction; measured by
/// `host-rs/tests/limits.rs`, which keeps this at least twice the maximum), a
/// typical call 10⁴–10⁵.
pub const DEFAULT_FUEL: u64 = 8_000_000_000;

/// How often the clock of a [`WorkLimit::Time`] advances.
const TICK: Duration = Duration::from_millis(10);

/// How much work one call may do before it is stopped and answered `confirm`
/// with a [`POLICY_LIMIT`] finding, so that no input can keep a thread busy
/// indefinitely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkLimit {
    /// No bound.
    None,
    /// A deterministic budget in wasmtime fuel units: the same call gets the same
    /// answer on a loaded machine and an idle one, at a cost of about half
    /// again the time of every call (BENCHMARKS.md).
    Fuel(u64),
    /// Wall-clock time, checked at loop heads and calls by epoch interruption
    /// (a background thread advances the epoch every 10 ms): almost free, but
    /// a call near the limit may finish on an idle machine and be stopped on a
    /// busy one.
    Time(Duration),
}

/// The default work limit: [`WorkLimit::Time`] of 2 s, about nine times what
/// the most expensive accepted input (1 MiB of SQL) took on the 2-core
/// reference machine (220 ms; `host-rs/tests/limits.rs` prints the figures). A
/// typical call takes 2–200 µs.
pub const DEFAULT_WORK_LIMIT: WorkLimit = WorkLimit::Time(Duration::from_secs(2));

/// The finding code of a call that used up its work budget.
pub const POLICY_LIMIT: &str = "policy.limit";

/// Why a policy could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The component file could not be read.
    #[error("cannot read component `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The bytes are not a valid component, or not one that implements the
    /// toolgate world.
    #[error("invalid toolgate component: {0}")]
    Invalid(String),
}

/// Why a call other than `assess` failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The policy refused the input (a configuration, arguments, tool definitions);
    /// the message says why and names the field.
    #[error("{0}")]
    Rejected(String),
    /// The component trapped or failed. The host has already discarded the
    /// instance; the next call gets a fresh one.
    #[error("the policy faulted: {0}")]
    Fault(String),
    /// The call used up its work budget (see [`PolicyBuilder::work_limit`]). The
    /// instance was discarded; the next call gets a fresh one.
    #[error("the policy stopped at its work limit")]
    WorkLimit,
}

/// How a call into the component failed.
#[derive(Debug)]
enum Failure {
    /// A trap or another runtime error.
    Fault(String),
    /// The fuel or the time ran out.
    WorkLimit,
}

impl Failure {
    fn from_wasmtime(error: &wasmtime::Error) -> Failure {
        match error.downcast_ref::<Trap>() {
            Some(Trap::OutOfFuel | Trap::Interrupt) => Failure::WorkLimit,
            _ => Failure::Fault(format!("{error:#}")),
        }
    }

    fn into_decision(self, tool: &str) -> Decision {
        match self {
            Failure::Fault(cause) => Decision::fault(tool, &cause),
            Failure::WorkLimit => Decision::over_limit(tool),
        }
    }
}

impl From<Failure> for Error {
    fn from(failure: Failure) -> Error {
        match failure {
            Failure::Fault(cause) => Error::Fault(cause),
            Failure::WorkLimit => Error::WorkLimit,
        }
    }
}

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
    /// that reaches it is answered `confirm` with a [`POLICY_LIMIT`] finding.
    /// `assess_many` gets the limit once per call in the batch.
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
        let engine =
            wasmtime::Engine::new(&config).map_err(|e| LoadError::Invalid(e.to_string()))?;
        if let WorkLimit::Time(_) = self.work_limit {
            start_clock(&engine)
                .map_err(|e| LoadError::Invalid(format!("starting the work clock: {e}")))?;
        }
        let dir = if self.use_cache {
            self.cache_dir.clone().or_else(cache::default_dir)
        } else {
            None
        };
        let (component, source) = cache::load(&engine, &bytes, &sha256, dir.as_deref())
            .map_err(|e| LoadError::Invalid(format!("{e:#}")))?;
        let linker: Linker<StoreState> = Linker::new(&engine);
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
            shared: Arc::new(Shared {
                engine,
                pre,
                max_memory: self.max_memory,
                work_limit: self.work_limit,
                max_idle,
                source,
                registry: Mutex::new(Registry::default()),
                idle: Mutex::new(Vec::new()),
                fuel_consumed: AtomicU64::new(0),
                crossings: AtomicU64::new(0),
            }),
        })
    }
}

/// Per-store data: the memory limiter, which also records how large the
/// instance's linear memory has grown.
pub(crate) struct StoreState {
    limits: StoreLimits,
    memory: usize,
}

impl ResourceLimiter for StoreState {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let grow = self.limits.memory_growing(current, desired, maximum)?;
        if grow {
            self.memory = self.memory.saturating_add(desired.saturating_sub(current));
        }
        Ok(grow)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }

    fn tables(&self) -> usize {
        self.limits.tables()
    }

    fn memories(&self) -> usize {
        self.limits.memories()
    }
}

/// A live instance of the component.
struct Live {
    store: Store<StoreState>,
    bindings: Toolgate,
    /// The engine resources created in this instance, by handle id.
    engines: HashMap<u64, ResourceAny>,
    /// The registry generation this instance last swept its engines against.
    generation: u64,
}

/// The configuration of every live [`Engine`] handle, so any instance can
/// create the engines it has not seen yet.
#[derive(Default)]
struct Registry {
    configs: HashMap<u64, Arc<str>>,
    next_id: u64,
    /// Bumped whenever an engine is dropped, so instances know to sweep.
    generation: u64,
}

struct Shared {
    engine: wasmtime::Engine,
    pre: ToolgatePre<StoreState>,
    max_memory: usize,
    work_limit: WorkLimit,
    max_idle: usize,
    source: LoadSource,
    registry: Mutex<Registry>,
    idle: Mutex<Vec<Live>>,
    /// Fuel burnt by every call so far, under [`WorkLimit::Fuel`].
    fuel_consumed: AtomicU64,
    /// Calls into the component so far.
    crossings: AtomicU64,
}

/// Usage figures of a [`Policy`], for monitoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Instances waiting in the pool.
    pub idle_instances: usize,
    /// The linear memory those instances hold, in bytes.
    pub idle_memory: usize,
    /// Live [`Engine`] handles.
    pub engines: usize,
    /// The wasmtime fuel all calls so far have burnt, under
    /// [`WorkLimit::Fuel`] (0 under the other limits, which do not count it).
    /// Fuel counts WebAssembly work deterministically, so the difference
    /// across one call is that call's cost on any machine: the tests use it to
    /// prove the policy's work grows linearly with its input.
    pub fuel_consumed: u64,
    /// Calls into the component so far (each export called once is one), for
    /// counting what one operation costs.
    pub crossings: u64,
}

/// The toolgate policy component, loaded and ready. `Send + Sync`; cloning is
/// cheap and clones share one pool of instances, so threads decide in parallel.
#[derive(Clone)]
pub struct Policy {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("source", &self.shared.source)
            .finish()
    }
}

/// A policy with one deployment's configuration (the component's `engine`
/// resource). `Send + Sync`; dropping it frees the resource in every instance.
pub struct Engine {
    shared: Arc<Shared>,
    id: u64,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("id", &self.id).finish()
    }
}

impl Policy {
    /// The embedded component, with the default cache.
    pub fn embedded() -> Result<Policy, LoadError> {
        PolicyBuilder::default().build()
    }

    /// A component from a file, with the default cache.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Policy, LoadError> {
        PolicyBuilder::default()
            .component_file(path.as_ref())
            .build()
    }

    /// Settings for loading a policy.
    pub fn builder() -> PolicyBuilder {
        PolicyBuilder::default()
    }

    /// Where the compiled component came from (cache or compiled now).
    pub fn load_source(&self) -> &LoadSource {
        &self.shared.source
    }

    /// Usage figures: idle instances, their memory, live engines.
    pub fn stats(&self) -> Stats {
        let idle = lock(&self.shared.idle);
        Stats {
            idle_instances: idle.len(),
            idle_memory: idle.iter().map(|live| live.store.data().memory).sum(),
            engines: lock(&self.shared.registry).configs.len(),
            fuel_consumed: self.shared.fuel_consumed.load(Ordering::Relaxed),
            crossings: self.shared.crossings.load(Ordering::Relaxed),
        }
    }

    /// Decides one call under the default configuration. Never fails: a fault in
    /// the component is answered `confirm` with a `policy.fault` finding, a call
    /// over its work budget `confirm` with `policy.limit`.
    pub fn assess(&self, tool: &str, args: &str) -> Decision {
        self.shared
            .call(1, |live| {
                let store = &mut live.store;
                live.bindings
                    .toolgate_policy_policy()
                    .call_assess(store, tool, args)
            })
            .map(Decision::from)
            .unwrap_or_else(|e| e.into_decision(tool))
    }

    /// A policy with this JSON configuration. [`Error::Rejected`] names the
    /// offending field.
    pub fn engine(&self, config: &str) -> Result<Engine, Error> {
        let id = {
            let mut registry = lock(&self.shared.registry);
            registry.next_id += 1;
            registry.next_id
        };
        let created = self
            .shared
            .call(1, |live| create_engine(live, id, config))?;
        match created {
            Ok(()) => {
                lock(&self.shared.registry)
                    .configs
                    .insert(id, Arc::from(config));
                Ok(Engine {
                    shared: Arc::clone(&self.shared),
                    id,
                })
            }
            Err(message) => Err(Error::Rejected(message)),
        }
    }

    /// Reads a tool call in any supported wire format (OpenAI Chat Completions
    /// and Responses, Anthropic, MCP, Gemini, or `{"tool", "args"}`).
    /// [`Error::Rejected`] only when no tool name can be found.
    pub fn parse_call(&self, call: &str) -> Result<ToolCall, Error> {
        self.call_policy_fn(|policy, store| policy.call_parse_call(store, call))?
            .map(ToolCall::from)
            .map_err(Error::Rejected)
    }

    /// The arguments a tool really receives: `risk_level` removed, nothing else
    /// changed. [`Error::Rejected`] when `args` is not a JSON object.
    pub fn strip_risk_level(&self, args: &str) -> Result<String, Error> {
        self.call_policy_fn(|policy, store| policy.call_strip_risk_level(store, args))?
            .map_err(Error::Rejected)
    }

    /// The prompt guidance for the model, in `language` (`en` or `zh`).
    pub fn guidance(&self, language: &str) -> Result<String, Error> {
        self.call_policy_fn(|policy, store| policy.call_guidance(store, language))
    }

    /// The policy's version.
    pub fn version(&self) -> Result<String, Error> {
        self.call_policy_fn(|policy, store| policy.call_version(store))
    }
}

impl Engine {
    /// Runs a method of this engine's resource.
    pub(crate) fn call_engine_fn<T>(
        &self,
        f: impl FnOnce(
            &crate::bindings::exports::toolgate::policy::policy::Guest,
            &mut Store<StoreState>,
            ResourceAny,
        ) -> wasmtime::Result<T>,
    ) -> Result<T, Error> {
        Ok(self.shared.call_engine(self.id, 1, |live, resource| {
            f(
                live.bindings.toolgate_policy_policy(),
                &mut live.store,
                resource,
            )
        })?)
    }
}

impl Policy {
    /// Runs a free function of the `policy` interface.
    pub(crate) fn call_policy_fn<T>(
        &self,
        f: impl FnOnce(
            &crate::bindings::exports::toolgate::policy::policy::Guest,
            &mut Store<StoreState>,
        ) -> wasmtime::Result<T>,
    ) -> Result<T, Error> {
        Ok(self.shared.call(1, |live| {
            f(live.bindings.toolgate_policy_policy(), &mut live.store)
        })?)
    }

    /// Runs a function of the `records` interface.
    pub(crate) fn call_records<T>(
        &self,
        f: impl FnOnce(
            &crate::bindings::exports::toolgate::policy::records::Guest,
            &mut Store<StoreState>,
        ) -> wasmtime::Result<T>,
    ) -> Result<T, Error> {
        Ok(self.shared.call(1, |live| {
            f(live.bindings.toolgate_policy_records(), &mut live.store)
        })?)
    }
}

/// An instance of the component outside the pool, with the pool's limits, for
/// a caller that keeps resources of its own in it (a gate's flow, see
/// `flow.rs`). A call that fails leaves it untrustworthy: drop it and make
/// another.
pub(crate) struct Own(Live);

impl Policy {
    /// A fresh instance outside the pool.
    pub(crate) fn own_instance(&self) -> Result<Own, Error> {
        self.shared
            .instantiate()
            .map(Own)
            .map_err(|e| Error::Fault(format!("{e:#}")))
    }

    /// Runs `f` on `own` under the work limit, metered and counted like a
    /// pooled call.
    pub(crate) fn call_own<T>(
        &self,
        own: &mut Own,
        f: impl FnOnce(&Toolgate, &mut Store<StoreState>) -> wasmtime::Result<T>,
    ) -> Result<T, Error> {
        Ok(self
            .shared
            .metered(&mut own.0, 1, |live| f(&live.bindings, &mut live.store))?)
    }
}

fn create_engine(live: &mut Live, id: u64, config: &str) -> wasmtime::Result<Result<(), String>> {
    let store = &mut live.store;
    let created = live
        .bindings
        .toolgate_policy_policy()
        .engine()
        .call_create(store, config)?;
    Ok(created.map(|resource| {
        live.engines.insert(id, resource);
    }))
}

impl Engine {
    /// Decides one call under this configuration. Never fails: a fault in the
    /// component is answered `confirm` with a `policy.fault` finding, a call over
    /// its work budget `confirm` with `policy.limit`.
    pub fn assess(&self, tool: &str, args: &str) -> Decision {
        self.shared
            .call_engine(self.id, 1, |live, resource| {
                let store = &mut live.store;
                live.bindings
                    .toolgate_policy_policy()
                    .engine()
                    .call_assess(store, resource, tool, args)
            })
            .map(Decision::from)
            .unwrap_or_else(|e| e.into_decision(tool))
    }

    /// Decides one call in the caller's context, JSON such as
    /// `{"permissions": ["alert.mute"]}` (the permissions the user holds). Never
    /// fails: an unreadable context is answered `confirm` with `context.invalid`.
    pub fn assess_in(&self, tool: &str, args: &str, context: &str) -> Decision {
        self.shared
            .call_engine(self.id, 1, |live, resource| {
                let store = &mut live.store;
                live.bindings
                    .toolgate_policy_policy()
                    .engine()
                    .call_assess_in(store, resource, tool, args, context)
            })
            .map(Decision::from)
            .unwrap_or_else(|e| e.into_decision(tool))
    }

    /// Decides a tool call given in any supported wire format. Never fails: a
    /// call without a tool name is answered `confirm` with `call.invalid`, a
    /// fault with `policy.fault`.
    pub fn assess_call(&self, call: &str) -> Decision {
        self.shared
            .call_engine(self.id, 1, |live, resource| {
                let store = &mut live.store;
                live.bindings
                    .toolgate_policy_policy()
                    .engine()
                    .call_assess_call(store, resource, call)
            })
            .map(Decision::from)
            .unwrap_or_else(|e| e.into_decision("(tool call)"))
    }

    /// Decides many `(tool, args)` calls in one crossing into the component; the
    /// decisions are in the same order and equal those of [`Engine::assess`].
    /// The work budget is the per-call budget times the number of calls. If the
    /// batch faults, every call in it is answered `confirm` with the fault.
    pub fn assess_many(&self, calls: &[(&str, &str)]) -> Vec<Decision> {
        let owned: Vec<(String, String)> = calls
            .iter()
            .map(|(tool, args)| ((*tool).to_owned(), (*args).to_owned()))
            .collect();
        let weight = u64::try_from(calls.len()).unwrap_or(u64::MAX).max(1);
        match self.shared.call_engine(self.id, weight, |live, resource| {
            let store = &mut live.store;
            live.bindings
                .toolgate_policy_policy()
                .engine()
                .call_assess_many(store, resource, &owned)
        }) {
            Ok(decisions) if decisions.len() == calls.len() => {
                decisions.into_iter().map(Decision::from).collect()
            }
            Ok(decisions) => {
                let cause = format!("{} decisions for {} calls", decisions.len(), calls.len());
                calls
                    .iter()
                    .map(|(tool, _)| Decision::fault(tool, &cause))
                    .collect()
            }
            Err(failure) => calls
                .iter()
                .map(|(tool, _)| match &failure {
                    Failure::Fault(cause) => Decision::fault(tool, cause),
                    Failure::WorkLimit => Decision::over_limit(tool),
                })
                .collect(),
        }
    }

    /// Adds the optional `risk_level` parameter to tool definitions (a JSON array,
    /// or a request body with a `tools` array). `format` forces one of
    /// `openai-chat`, `openai-responses`, `anthropic`, `mcp`, `gemini`; `None`
    /// recognises each tool's format.
    pub fn augment_tools(&self, tools: &str, format: Option<&str>) -> Result<Augmented, Error> {
        self.shared
            .call_engine(self.id, 1, |live, resource| {
                let store = &mut live.store;
                live.bindings
                    .toolgate_policy_policy()
                    .engine()
                    .call_augment_tools(store, resource, tools, format)
            })?
            .map(|a| Augmented {
                tools: a.tools,
                notes: a.notes,
            })
            .map_err(Error::Rejected)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        {
            let mut registry = lock(&self.shared.registry);
            registry.configs.remove(&self.id);
            registry.generation += 1;
        }
        // Free the resource in idle instances now; instances in use sweep it
        // when they are next checked out (they see the new generation).
        for live in lock(&self.shared.idle).iter_mut() {
            if let Some(resource) = live.engines.remove(&self.id) {
                // A failure leaves at worst an unreachable resource in an
                // instance that is discarded on its next fault.
                let _ = resource.resource_drop(&mut live.store);
            }
        }
    }
}

/// Locks a mutex, recovering from poisoning: the data guarded here (the pool
/// and the registry) stays consistent whatever a panicking holder was doing,
/// because instances are only ever in the pool while no call runs on them.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| {
        mutex.clear_poison();
        poisoned.into_inner()
    })
}

impl Shared {
    fn instantiate(&self) -> wasmtime::Result<Live> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.max_memory)
            .trap_on_grow_failure(true)
            .build();
        let mut store = Store::new(&self.engine, StoreState { limits, memory: 0 });
        store.limiter(|state| state);
        if let WorkLimit::Fuel(fuel) = self.work_limit {
            store.set_fuel(fuel)?;
        }
        if let WorkLimit::Time(limit) = self.work_limit {
            store.set_epoch_deadline(ticks(limit, 1));
            store.epoch_deadline_trap();
        }
        let bindings = self.pre.instantiate(&mut store)?;
        Ok(Live {
            store,
            bindings,
            engines: HashMap::new(),
            generation: 0,
        })
    }

    /// An idle instance, or a new one.
    fn check_out(&self) -> wasmtime::Result<Live> {
        let idle = lock(&self.idle).pop();
        match idle {
            Some(live) => Ok(live),
            None => self.instantiate(),
        }
    }

    fn check_in(&self, live: Live) {
        let mut idle = lock(&self.idle);
        if idle.len() < self.max_idle {
            idle.push(live);
        }
    }

    /// Drops the resources of engines that no longer exist, and returns the
    /// configuration of `wanted` when this instance still has to create it.
    fn sync_engines(
        &self,
        live: &mut Live,
        wanted: Option<u64>,
    ) -> Result<Option<Arc<str>>, Failure> {
        let registry = lock(&self.registry);
        if live.generation != registry.generation {
            let gone: Vec<u64> = live
                .engines
                .keys()
                .filter(|id| !registry.configs.contains_key(id))
                .copied()
                .collect();
            for id in gone {
                if let Some(resource) = live.engines.remove(&id) {
                    let _ = resource.resource_drop(&mut live.store);
                }
            }
            live.generation = registry.generation;
        }
        match wanted {
            Some(id) if !live.engines.contains_key(&id) => registry
                .configs
                .get(&id)
                .cloned()
                .map(Some)
                .ok_or_else(|| Failure::Fault(format!("engine {id} is not live"))),
            _ => Ok(None),
        }
    }

    /// Runs `f` on an instance from the pool. Any error, a trap or the fuel
    /// running out included, discards the instance; success returns it to the
    /// pool.
    fn with_instance<T>(
        &self,
        f: impl FnOnce(&mut Live) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let mut live = self
            .check_out()
            .map_err(|e| Failure::Fault(format!("{e:#}")))?;
        let result = f(&mut live);
        if result.is_ok() {
            self.check_in(live);
        }
        result
    }

    /// Runs `f` with `weight` times the work budget.
    fn call<T>(
        &self,
        weight: u64,
        f: impl FnOnce(&mut Live) -> wasmtime::Result<T>,
    ) -> Result<T, Failure> {
        self.with_instance(|live| {
            self.sync_engines(live, None)?;
            self.metered(live, weight, f)
        })
    }

    /// [`Shared::call`] with the resource of engine `id`, created in the
    /// instance first if the instance has not served that engine yet.
    fn call_engine<T>(
        &self,
        id: u64,
        weight: u64,
        f: impl FnOnce(&mut Live, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T, Failure> {
        self.with_instance(|live| {
            if let Some(config) = self.sync_engines(live, Some(id))? {
                self.refuel(live, 1)?;
                // Each configuration was accepted when its engine was made, so a
                // refusal now means the instance is broken.
                create_engine(live, id, &config)
                    .map_err(|e| Failure::from_wasmtime(&e))?
                    .map_err(|e| Failure::Fault(format!("re-creating engine {id}: {e}")))?;
            }
            let resource = live
                .engines
                .get(&id)
                .copied()
                .ok_or_else(|| Failure::Fault(format!("engine {id} is not live")))?;
            self.metered(live, weight, |live| f(live, resource))
        })
    }

    /// Runs `f` with `weight` times the work budget, and adds the fuel it
    /// burnt (all of it, when it ran out) to the policy's count.
    fn metered<T>(
        &self,
        live: &mut Live,
        weight: u64,
        f: impl FnOnce(&mut Live) -> wasmtime::Result<T>,
    ) -> Result<T, Failure> {
        let budget = self.refuel(live, weight)?;
        self.crossings.fetch_add(1, Ordering::Relaxed);
        let result = f(live);
        if let Some(budget) = budget {
            let left = live.store.get_fuel().unwrap_or(0);
            self.fuel_consumed
                .fetch_add(budget.saturating_sub(left), Ordering::Relaxed);
        }
        result.map_err(|e| Failure::from_wasmtime(&e))
    }

    /// Sets the work limit of the next call: fuel, or a deadline in ticks from
    /// now. Returns the fuel set, under a fuel limit.
    fn refuel(&self, live: &mut Live, weight: u64) -> Result<Option<u64>, Failure> {
        match self.work_limit {
            WorkLimit::None => Ok(None),
            WorkLimit::Fuel(fuel) => {
                let budget = fuel.saturating_mul(weight);
                live.store
                    .set_fuel(budget)
                    .map_err(|e| Failure::Fault(format!("{e:#}")))?;
                Ok(Some(budget))
            }
            WorkLimit::Time(limit) => {
                live.store.set_epoch_deadline(ticks(limit, weight));
                Ok(None)
            }
        }
    }
}

/// The epoch ticks that make up `weight` times `limit` (at least one more than
/// needed, so a call never loses time to a tick that was about to happen).
fn ticks(limit: Duration, weight: u64) -> u64 {
    let per_call = limit.as_nanos() / TICK.as_nanos();
    u64::try_from(per_call)
        .unwrap_or(u64::MAX)
        .saturating_mul(weight)
        .saturating_add(1)
}

/// Starts the thread that advances `engine`'s epoch every [`TICK`]. It holds
/// the engine weakly and ends once the policy is gone.
fn start_clock(engine: &wasmtime::Engine) -> std::io::Result<()> {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name(String::from("toolgate-clock"))
        .spawn(move || loop {
            std::thread::sleep(TICK);
            match weak.upgrade() {
                Some(engine) => engine.increment_epoch(),
                None => break,
            }
        })
        .map(drop)
}
