//! The runtime: loading the component and calling it, with bounded memory and
//! work per call and recovery from faults. Nothing here decides anything; the
//! decisions are the component's, and this module only gets calls to it and
//! its answers back, whatever the component does.
//!
//! By concern:
//! - [`builder`]: which component, cache and limits; turns them into a
//!   loaded [`Policy`].
//! - [`cache`]: the compiled component on disk, so a start takes milliseconds.
//! - [`limits`]: the memory and work bounds of one call, and their defaults.
//! - [`clock`]: the thread behind a time limit.
//! - [`pool`]: the instances calls run on, and the table that lets every
//!   instance serve every [`Engine`].
//! - [`engine`]: the [`Engine`] handle and its calls.
//! - [`error`]: how loading and calling fail.
//!
//! This module holds [`Policy`] itself: the calls that need no configuration.
//!
//! Four things are called "engine" around here; in this crate the word alone
//! means only the first two:
//! - [`Engine`]: this crate's handle of a configured policy.
//! - the component's `engine` resource (the WIT's `resource engine`), which
//!   the handle re-creates in each instance; called a *resource* here.
//! - `toolgate_policy::Engine`, the Rust type inside the component that the
//!   resource wraps.
//! - `wasmtime::Engine`, the compiler and its settings; always written out in
//!   full, and the variables holding one are called `wasm`.

mod builder;
pub mod cache;
mod clock;
mod engine;
mod error;
mod limits;
mod pool;

pub use builder::PolicyBuilder;
pub use engine::Engine;
pub use error::{Error, LoadError};
pub use limits::{WorkLimit, DEFAULT_FUEL, DEFAULT_MAX_MEMORY, DEFAULT_WORK_LIMIT, POLICY_LIMIT};

use crate::bindings::exports::toolgate::policy::{policy, records};
use crate::decision::{Decision, ToolCall};
use cache::LoadSource;
pub(crate) use limits::MemoryLimiter;
use pool::Pool;
use std::path::Path;
use std::sync::Arc;
use wasmtime::Store;

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
    pool: Arc<Pool>,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("source", &self.pool.source)
            .finish()
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
        &self.pool.source
    }

    /// Usage figures: idle instances, their memory, live engines.
    pub fn stats(&self) -> Stats {
        let usage = self.pool.usage();
        Stats {
            idle_instances: usage.idle_instances,
            idle_memory: usage.idle_memory,
            engines: usage.engines,
            fuel_consumed: usage.fuel_consumed,
            crossings: usage.crossings,
        }
    }

    /// Decides one call under the default configuration. Never fails: a fault in
    /// the component is answered `confirm` with a `policy.fault` finding, a call
    /// over its work budget `confirm` with `policy.limit`.
    pub fn assess(&self, tool: &str, args: &str) -> Decision {
        self.pool
            .call(1, |instance| {
                let store = &mut instance.store;
                instance
                    .bindings
                    .toolgate_policy_policy()
                    .call_assess(store, tool, args)
            })
            .map(Decision::from)
            .unwrap_or_else(|failure| failure.decision(tool))
    }

    /// A policy with this JSON configuration. [`Error::Rejected`] names the
    /// offending field.
    pub fn engine(&self, config: &str) -> Result<Engine, Error> {
        match self.pool.add_engine(config)? {
            Ok(id) => Ok(Engine::new(Arc::clone(&self.pool), id)),
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

    /// The hook answer when no engine could be made for `toolgate hook
    /// FORMAT` (`error`: why the configuration is missing or refused): the
    /// agent's "ask" with the error, exit 0, made by the component so every
    /// CLI answers alike. [`Error::Rejected`] for an unknown format.
    pub fn hook_unconfigured(
        &self,
        format: &str,
        error: &str,
    ) -> Result<crate::hooks::HookAnswer, Error> {
        self.call_policy_fn(|policy, store| policy.call_hook_unconfigured(store, format, error))?
            .map(|a| crate::hooks::HookAnswer {
                output: a.output,
                error: a.error,
                exit: a.exit,
            })
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

    /// Runs a free function of the `policy` interface.
    pub(crate) fn call_policy_fn<T>(
        &self,
        f: impl FnOnce(&policy::Guest, &mut Store<MemoryLimiter>) -> wasmtime::Result<T>,
    ) -> Result<T, Error> {
        Ok(self.pool.call(1, |instance| {
            f(
                instance.bindings.toolgate_policy_policy(),
                &mut instance.store,
            )
        })?)
    }

    /// Runs a function of the `records` interface.
    pub(crate) fn call_records<T>(
        &self,
        f: impl FnOnce(&records::Guest, &mut Store<MemoryLimiter>) -> wasmtime::Result<T>,
    ) -> Result<T, Error> {
        Ok(self.pool.call(1, |instance| {
            f(
                instance.bindings.toolgate_policy_records(),
                &mut instance.store,
            )
        })?)
    }
}

/// An instance of the component outside the pool, with the pool's limits, for
/// a caller that keeps resources of its own in it (a gate's flow, see
/// `flow.rs`). A call that fails leaves it untrustworthy: drop it and make
/// another.
pub(crate) struct Own(pool::Instance);

impl Policy {
    /// A fresh instance outside the pool.
    pub(crate) fn own_instance(&self) -> Result<Own, Error> {
        Ok(self.pool.own_instance().map(Own)?)
    }

    /// Runs `f` on `own` under the work limit, metered and counted like a
    /// pooled call.
    pub(crate) fn call_own<T>(
        &self,
        own: &mut Own,
        f: impl FnOnce(
            &crate::bindings::Toolgate,
            &mut wasmtime::Store<limits::MemoryLimiter>,
        ) -> wasmtime::Result<T>,
    ) -> Result<T, Error> {
        Ok(self
            .pool
            .call_own(&mut own.0, |i| f(&i.bindings, &mut i.store))?)
    }
}
