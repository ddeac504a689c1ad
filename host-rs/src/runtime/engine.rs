//! [`Engine`]: a policy under one deployment's configuration, as a handle.
//!
//! The handle holds only an id. Its configuration is in the pool's engine
//! table, and the component's `engine` resource made from it lives in each
//! instance that has served it (see [`super::pool`]), so a handle works from
//! any thread with any instance and survives the instances that fault.

use super::error::{Error, Failure};
use super::limits::MemoryLimiter;
use super::pool::Pool;
use crate::bindings::exports::toolgate::policy::policy::Guest;
use crate::bindings::exports::toolgate::policy::types as wit;
use crate::decision::{Augmented, Decision, HostDecision};
use std::sync::Arc;
use wasmtime::component::ResourceAny;
use wasmtime::Store;

/// A policy with one deployment's configuration (the component's `engine`
/// resource). `Send + Sync`; dropping it frees the resource in every instance.
pub struct Engine {
    pool: Arc<Pool>,
    id: u64,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("id", &self.id).finish()
    }
}

impl Engine {
    /// The handle of engine `id` in `pool`.
    pub(super) fn new(pool: Arc<Pool>, id: u64) -> Engine {
        Engine { pool, id }
    }

    /// Runs a method of this engine's resource.
    pub(crate) fn call_engine_fn<T>(
        &self,
        f: impl FnOnce(&Guest, &mut Store<MemoryLimiter>, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T, Error> {
        Ok(self.resource_call(1, f)?)
    }

    /// Runs a method of this engine's resource with `weight` times the work
    /// budget.
    fn resource_call<T>(
        &self,
        weight: u64,
        f: impl FnOnce(&Guest, &mut Store<MemoryLimiter>, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T, Failure> {
        self.pool
            .call_engine(self.id, weight, |instance, resource| {
                f(
                    instance.bindings.toolgate_policy_policy(),
                    &mut instance.store,
                    resource,
                )
            })
    }

    /// Runs one of the resource's `assess` methods; a failure is answered as
    /// a decision about `tool`.
    fn decide(
        &self,
        tool: &str,
        f: impl FnOnce(
            &Guest,
            &mut Store<MemoryLimiter>,
            ResourceAny,
        ) -> wasmtime::Result<wit::Decision>,
    ) -> Decision {
        self.resource_call(1, f)
            .map(Decision::from)
            .unwrap_or_else(|failure| failure.decision(tool))
    }

    /// Decides one call under this configuration. Never fails: a fault in the
    /// component is answered `confirm` with a `policy.fault` finding, a call over
    /// its work budget `confirm` with `policy.limit`.
    pub fn assess(&self, tool: &str, args: &str) -> Decision {
        self.decide(tool, |policy, store, resource| {
            policy.engine().call_assess(store, resource, tool, args)
        })
    }

    /// Decides one call in the caller's context, JSON such as
    /// `{"permissions": ["alert.mute"]}` (the permissions the user holds). Never
    /// fails: an unreadable context is answered `confirm` with `context.invalid`.
    pub fn assess_in(&self, tool: &str, args: &str, context: &str) -> Decision {
        self.decide(tool, |policy, store, resource| {
            policy
                .engine()
                .call_assess_in(store, resource, tool, args, context)
        })
    }

    /// Decides a tool call given in any supported wire format. Never fails: a
    /// call without a tool name is answered `confirm` with `call.invalid`, a
    /// fault with `policy.fault`.
    pub fn assess_call(&self, call: &str) -> Decision {
        self.decide("(tool call)", |policy, store, resource| {
            policy.engine().call_assess_call(store, resource, call)
        })
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
        match self.resource_call(weight, |policy, store, resource| {
            policy.engine().call_assess_many(store, resource, &owned)
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
                .map(|(tool, _)| failure.decision(tool))
                .collect(),
        }
    }

    /// Adds the optional `risk_level` parameter to tool definitions (a JSON array,
    /// or a request body with a `tools` array). `format` forces one of
    /// `openai-chat`, `openai-responses`, `anthropic`, `mcp`, `gemini`; `None`
    /// recognises each tool's format.
    pub fn augment_tools(&self, tools: &str, format: Option<&str>) -> Result<Augmented, Error> {
        self.call_engine_fn(|policy, store, resource| {
            policy
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
        self.pool.drop_engine(self.id);
    }
}
