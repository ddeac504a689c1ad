//! Loading the component and calling it, with fault recovery.

use crate::bindings::{Toolgate, ToolgatePre};
use crate::cache::{self, LoadSource};
use crate::decision::{Augmented, Decision, ToolCall};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use wasmtime::component::{Linker, ResourceAny};
use wasmtime::{Store, StoreLimits, StoreLimitsBuilder};

/// How much linear memory one policy instance may use by default. The policy
/// refuses arguments over 1 MiB before parsing them, so this leaves ample room
/// while bounding what a pathological input could take.
pub const DEFAULT_MAX_MEMORY: usize = 128 * 1024 * 1024;

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
}

/// Settings for loading a policy; see [`Policy::builder`].
#[derive(Debug, Clone)]
pub struct PolicyBuilder {
    component: Option<Vec<u8>>,
    component_path: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
    use_cache: bool,
    max_memory: usize,
}

impl Default for PolicyBuilder {
    fn default() -> Self {
        PolicyBuilder {
            component: None,
            component_path: None,
            cache_dir: None,
            use_cache: true,
            max_memory: DEFAULT_MAX_MEMORY,
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
        let mut config = wasmtime::Config::new();
        config.wasm_component_model(true);
        let engine =
            wasmtime::Engine::new(&config).map_err(|e| LoadError::Invalid(e.to_string()))?;
        let dir = if self.use_cache {
            self.cache_dir.clone().or_else(cache::default_dir)
        } else {
            None
        };
        let (component, source) = cache::load(&engine, &bytes, dir.as_deref())
            .map_err(|e| LoadError::Invalid(format!("{e:#}")))?;
        let linker: Linker<StoreState> = Linker::new(&engine);
        let pre = linker
            .instantiate_pre(&component)
            .and_then(ToolgatePre::new)
            .map_err(|e| LoadError::Invalid(format!("{e:#}")))?;
        Ok(Policy {
            shared: Arc::new(Shared {
                engine,
                pre,
                max_memory: self.max_memory,
                source,
                state: Mutex::new(State::default()),
            }),
        })
    }
}

/// Per-store data: the memory limiter.
struct StoreState {
    limits: StoreLimits,
}

/// A live instance of the component.
struct Live {
    store: Store<StoreState>,
    bindings: Toolgate,
    /// The engine resources created in this instance, by handle id.
    engines: HashMap<u64, ResourceAny>,
}

#[derive(Default)]
struct State {
    live: Option<Live>,
    /// The configuration of every live [`Engine`] handle, so the engines can be
    /// re-created in a fresh instance after a fault.
    configs: HashMap<u64, String>,
    next_id: u64,
}

struct Shared {
    engine: wasmtime::Engine,
    pre: ToolgatePre<StoreState>,
    max_memory: usize,
    source: LoadSource,
    state: Mutex<State>,
}

/// The toolgate policy component, loaded and ready. Cloning is cheap and clones
/// share one instance; calls are serialised.
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
/// resource). Dropping it frees the resource.
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

    /// Decides one call under the default configuration. Never fails: a fault in
    /// the component is answered `confirm` with a `policy.fault` finding.
    pub fn assess(&self, tool: &str, args: &str) -> Decision {
        self.shared
            .call(|live| {
                let store = &mut live.store;
                live.bindings
                    .toolgate_policy_policy()
                    .call_assess(store, tool, args)
            })
            .map(Decision::from)
            .unwrap_or_else(|e| Decision::fault(tool, &e))
    }

    /// A policy with this JSON configuration. [`Error::Rejected`] names the
    /// offending field.
    pub fn engine(&self, config: &str) -> Result<Engine, Error> {
        let id = {
            let mut state = self.shared.lock();
            state.next_id += 1;
            state.next_id
        };
        let created = self.shared.call(|live| create_engine(live, id, config));
        match created {
            Ok(Ok(())) => {
                self.shared.lock().configs.insert(id, config.to_owned());
                Ok(Engine {
                    shared: Arc::clone(&self.shared),
                    id,
                })
            }
            Ok(Err(message)) => Err(Error::Rejected(message)),
            Err(fault) => Err(Error::Fault(fault)),
        }
    }

    /// Reads a tool call in any supported wire format (OpenAI Chat Completions
    /// and Responses, Anthropic, MCP, Gemini, or `{"tool", "args"}`).
    /// [`Error::Rejected`] only when no tool name can be found.
    pub fn parse_call(&self, call: &str) -> Result<ToolCall, Error> {
        self.shared
            .call(|live| {
                let store = &mut live.store;
                live.bindings
                    .toolgate_policy_policy()
                    .call_parse_call(store, call)
            })
            .map_err(Error::Fault)?
            .map(ToolCall::from)
            .map_err(Error::Rejected)
    }

    /// The arguments a tool really receives: `risk_level` removed, nothing else
    /// changed. [`Error::Rejected`] when `args` is not a JSON object.
    pub fn strip_risk_level(&self, args: &str) -> Result<String, Error> {
        self.shared
            .call(|live| {
                let store = &mut live.store;
                live.bindings
                    .toolgate_policy_policy()
                    .call_strip_risk_level(store, args)
            })
            .map_err(Error::Fault)?
            .map_err(Error::Rejected)
    }

    /// The prompt guidance for the model, in `language` (`en` or `zh`).
    pub fn guidance(&self, language: &str) -> Result<String, Error> {
        self.shared
            .call(|live| {
                let store = &mut live.store;
                live.bindings
                    .toolgate_policy_policy()
                    .call_guidance(store, language)
            })
            .map_err(Error::Fault)
    }

    /// The policy's version.
    pub fn version(&self) -> Result<String, Error> {
        self.shared
            .call(|live| {
                let store = &mut live.store;
                live.bindings.toolgate_policy_policy().call_version(store)
            })
            .map_err(Error::Fault)
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
    /// component is answered `confirm` with a `policy.fault` finding.
    pub fn assess(&self, tool: &str, args: &str) -> Decision {
        self.with_resource(|live, resource| {
            let store = &mut live.store;
            live.bindings
                .toolgate_policy_policy()
                .engine()
                .call_assess(store, resource, tool, args)
        })
        .map(Decision::from)
        .unwrap_or_else(|e| Decision::fault(tool, &e))
    }

    /// Decides one call in the caller's context, JSON such as
    /// `{"permissions": ["alert.mute"]}` (the permissions the user holds). Never
    /// fails: an unreadable context is answered `confirm` with `context.invalid`.
    pub fn assess_in(&self, tool: &str, args: &str, context: &str) -> Decision {
        self.with_resource(|live, resource| {
            let store = &mut live.store;
            live.bindings
                .toolgate_policy_policy()
                .engine()
                .call_assess_in(store, resource, tool, args, context)
        })
        .map(Decision::from)
        .unwrap_or_else(|e| Decision::fault(tool, &e))
    }

    /// Decides a tool call given in any supported wire format. Never fails: a
    /// call without a tool name is answered `confirm` with `call.invalid`, a
    /// fault with `policy.fault`.
    pub fn assess_call(&self, call: &str) -> Decision {
        self.with_resource(|live, resource| {
            let store = &mut live.store;
            live.bindings
                .toolgate_policy_policy()
                .engine()
                .call_assess_call(store, resource, call)
        })
        .map(Decision::from)
        .unwrap_or_else(|e| Decision::fault("(tool call)", &e))
    }

    /// Adds the optional `risk_level` parameter to tool definitions (a JSON array,
    /// or a request body with a `tools` array). `format` forces one of
    /// `openai-chat`, `openai-responses`, `anthropic`, `mcp`, `gemini`; `None`
    /// recognises each tool's format.
    pub fn augment_tools(&self, tools: &str, format: Option<&str>) -> Result<Augmented, Error> {
        self.with_resource(|live, resource| {
            let store = &mut live.store;
            live.bindings
                .toolgate_policy_policy()
                .engine()
                .call_augment_tools(store, resource, tools, format)
        })
        .map_err(Error::Fault)?
        .map(|a| Augmented {
            tools: a.tools,
            notes: a.notes,
        })
        .map_err(Error::Rejected)
    }

    fn with_resource<T>(
        &self,
        f: impl FnOnce(&mut Live, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T, String> {
        self.shared.call(|live| {
            let resource = live
                .engines
                .get(&self.id)
                .copied()
                .ok_or_else(|| wasmtime::format_err!("engine {} is not live", self.id))?;
            f(live, resource)
        })
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.configs.remove(&self.id);
        if let Some(live) = state.live.as_mut() {
            if let Some(resource) = live.engines.remove(&self.id) {
                // A failure here leaves at worst an unreachable resource in an
                // instance that is discarded on its next fault.
                let _ = resource.resource_drop(&mut live.store);
            }
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held (in host code, never in the guest)
        // cannot leave the instance half-called: discard it to be sure.
        self.state.lock().unwrap_or_else(|poisoned| {
            let mut state = poisoned.into_inner();
            state.live = None;
            self.state.clear_poison();
            state
        })
    }

    fn instantiate(&self, configs: &HashMap<u64, String>) -> wasmtime::Result<Live> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.max_memory)
            .trap_on_grow_failure(true)
            .build();
        let mut store = Store::new(&self.engine, StoreState { limits });
        store.limiter(|state| &mut state.limits);
        let bindings = self.pre.instantiate(&mut store)?;
        let mut live = Live {
            store,
            bindings,
            engines: HashMap::new(),
        };
        // Re-create every engine that callers still hold. Each was accepted
        // before, so a refusal now means the instance is broken.
        for (&id, config) in configs {
            create_engine(&mut live, id, config)?
                .map_err(|e| wasmtime::format_err!("re-creating engine {id}: {e}"))?;
        }
        Ok(live)
    }

    /// Runs `f` on the live instance (instantiating one if needed). Any error,
    /// a trap included, discards the instance: a trapped instance's state cannot
    /// be trusted, and the next call starts fresh.
    fn call<T>(&self, f: impl FnOnce(&mut Live) -> wasmtime::Result<T>) -> Result<T, String> {
        let mut state = self.lock();
        if state.live.is_none() {
            let live = self
                .instantiate(&state.configs)
                .map_err(|e| format!("{e:#}"))?;
            state.live = Some(live);
        }
        let Some(live) = state.live.as_mut() else {
            return Err(String::from("no live instance"));
        };
        match f(live) {
            Ok(value) => Ok(value),
            Err(e) => {
                state.live = None;
                Err(format!("{e:#}"))
            }
        }
    }
}
