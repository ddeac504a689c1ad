//! The component's approval flow (the `gate` interface's `flow` resource) in
//! wasmtime: every step of a gated call (`begin`, `open`, `settle`, `finish`,
//! `gap`) is decided and formatted by the component; this module only carries
//! the texts across.
//!
//! Each [`Flow`] keeps an instance of the component of its own, outside the
//! pool, with the flow resource created once in it. Engines live in every
//! pooled instance (re-created from their configuration where missing), which
//! suits decisions that run in parallel; a flow's steps are serialised anyway
//! (a gate takes them under its audit chain's lock, one writer per chain), so
//! pooling would buy no parallelism while a flow re-created in each instance
//! would cost a policy parse per instance and a registry of flow recipes in
//! the pool. An instance that faults is dropped and the flow re-created in a
//! fresh one on the next step, as the pool does for engines.

use crate::bindings::exports::toolgate::policy::gate as wit;
use crate::records::CheckpointError;
use crate::runtime::{Error, Own, Policy};
use std::sync::{Mutex, MutexGuard};
use toolgate_shapes::gate::Step;
use wasmtime::component::ResourceAny;

/// Why a step could not be taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    /// The checkpoint was refused: forged, changed, unsigned or not one.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The call, answer, outcome or ticket is not of the expected shape (a
    /// host's mistake, or an edit that is not one clean JSON object).
    #[error("{0}")]
    Invalid(String),
    /// The component faulted or ran out of its work budget; nothing was
    /// decided.
    #[error(transparent)]
    Policy(#[from] Error),
}

impl From<wit::StepError> for StepError {
    fn from(e: wit::StepError) -> StepError {
        match e {
            wit::StepError::Checkpoint(c) => StepError::Checkpoint(c.into()),
            wit::StepError::Invalid(m) => StepError::Invalid(m),
        }
    }
}

/// What a flow is made of, to make it again in a fresh instance.
struct Recipe {
    config: String,
    settings: String,
    checkpoint_key: Option<Vec<u8>>,
    audit_key: Option<Vec<u8>>,
}

/// One gate's approval flow: a policy configuration, the gate's settings and
/// keys, in the component. Every step returns the component's JSON text (see
/// `toolgate-shapes`' `gate` module for its shape; [`Flow::step`] reads it).
pub struct Flow {
    policy: Policy,
    recipe: Recipe,
    live: Mutex<Option<(Own, ResourceAny)>>,
    /// How many instances the flow has been made in: a driver lives in one.
    made: std::sync::atomic::AtomicU64,
}

/// One operation of a gate, driven by effects (see docs/gate-steps.md): the
/// component's `driver` resource, in the flow's instance.
pub struct Driving<'f> {
    flow: &'f Flow,
    driver: ResourceAny,
    made: u64,
}

impl std::fmt::Debug for Driving<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driving").finish_non_exhaustive()
    }
}

impl Driving<'_> {
    /// The next batch of effects (JSON, in order), given the outcomes of the
    /// effects of the last batch the host carried out. An instance that
    /// faulted since the operation began ends it.
    pub fn step(&self, outcomes: &[String]) -> Result<Vec<String>, StepError> {
        let made = self.made;
        let driver = self.driver;
        self.flow.call_in(made, |policy, own| {
            policy.call_own(own, |bindings, store| {
                bindings
                    .toolgate_policy_gate()
                    .driver()
                    .call_step(store, driver, outcomes)
            })
        })
    }
}

impl Drop for Driving<'_> {
    fn drop(&mut self) {
        let mut live = lock(&self.flow.live);
        if self.flow.made.load(std::sync::atomic::Ordering::SeqCst) != self.made {
            return;
        }
        if let Some((own, _)) = live.as_mut() {
            let driver = self.driver;
            let _ = self
                .flow
                .policy
                .call_own(own, |_, store| driver.resource_drop(store));
        }
    }
}

impl std::fmt::Debug for Flow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Flow").finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Policy {
    /// A gate's flow over `config` (the policy configuration, JSON) with
    /// `settings` (JSON: `identity`, and optionally `timeout_ms`,
    /// `tool_timeouts`, `shadow`, `audit`, `audit_required`); checkpoints
    /// signed with `checkpoint_key`, the audit chain keyed with `audit_key`
    /// (each at least 16 bytes). [`Error::Rejected`] says what is wrong.
    pub fn flow(
        &self,
        config: &str,
        settings: &str,
        checkpoint_key: Option<&[u8]>,
        audit_key: Option<&[u8]>,
    ) -> Result<Flow, Error> {
        let flow = Flow {
            policy: self.clone(),
            recipe: Recipe {
                config: config.to_owned(),
                settings: settings.to_owned(),
                checkpoint_key: checkpoint_key.map(<[u8]>::to_vec),
                audit_key: audit_key.map(<[u8]>::to_vec),
            },
            live: Mutex::new(None),
            made: std::sync::atomic::AtomicU64::new(0),
        };
        let made = flow.make()?;
        *lock(&flow.live) = Some(made);
        Ok(flow)
    }
}

impl Flow {
    /// Starts one operation of the gate (JSON, see docs/gate-steps.md),
    /// driven by effects in batches: the driver and its first batch, in one
    /// crossing.
    pub fn start(&self, op: &str) -> Result<(Driving<'_>, Vec<String>), StepError> {
        let (driver, first) = self.call(|f, store, flow| f.call_start(store, flow, op))?;
        let driving = Driving {
            flow: self,
            driver,
            made: self.made.load(std::sync::atomic::Ordering::SeqCst),
        };
        Ok((driving, first))
    }

    /// Runs `f` in the instance a driver was made in (the `made`th).
    fn call_in<T>(
        &self,
        made: u64,
        f: impl FnOnce(&Policy, &mut Own) -> Result<Result<T, wit::StepError>, Error>,
    ) -> Result<T, StepError> {
        let mut live = lock(&self.live);
        let current = self.made.load(std::sync::atomic::Ordering::SeqCst);
        let taken = if current == made { live.take() } else { None };
        let Some((mut own, flow)) = taken else {
            return Err(StepError::Policy(Error::Fault(String::from(
                "the policy's instance was replaced during the operation",
            ))));
        };
        match f(&self.policy, &mut own) {
            Ok(step) => {
                *live = Some((own, flow));
                step.map_err(StepError::from)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A fresh instance with the flow created in it.
    fn make(&self) -> Result<(Own, ResourceAny), Error> {
        self.made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let mut own = self.policy.own_instance()?;
        let r = &self.recipe;
        let created = self.policy.call_own(&mut own, |bindings, store| {
            bindings.toolgate_policy_gate().flow().call_create(
                store,
                &r.config,
                &r.settings,
                r.checkpoint_key.as_deref(),
                r.audit_key.as_deref(),
            )
        })?;
        created.map(|flow| (own, flow)).map_err(Error::Rejected)
    }

    /// Runs one method of the flow resource; a fault discards the instance.
    fn call<T>(
        &self,
        f: impl FnOnce(
            &wit::GuestFlow<'_>,
            &mut wasmtime::Store<crate::runtime::MemoryLimiter>,
            ResourceAny,
        ) -> wasmtime::Result<Result<T, wit::StepError>>,
    ) -> Result<T, StepError> {
        let mut live = lock(&self.live);
        let (mut own, flow) = match live.take() {
            Some(made) => made,
            None => self.make()?,
        };
        let result = self.policy.call_own(&mut own, |bindings, store| {
            f(&bindings.toolgate_policy_gate().flow(), store, flow)
        });
        match result {
            Ok(step) => {
                *live = Some((own, flow));
                step.map_err(StepError::from)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Step 1: decides `call` (JSON: `tool`, `args`, and optionally `call_id`,
    /// `description`, `session_id`, `user_id`, `context`) at `now` (ms since
    /// the Unix epoch); `id` names the approval if a person must answer;
    /// `previous` is the audit log's last line.
    pub fn begin(
        &self,
        call: &str,
        id: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Result<String, StepError> {
        self.call(|f, store, flow| f.call_begin(store, flow, call, id, now, previous))
    }

    /// The pending approval (JSON) a checkpoint carries, if this flow's key
    /// signed it.
    pub fn open(&self, checkpoint: &str) -> Result<String, StepError> {
        self.call(|f, store, flow| f.call_open(store, flow, checkpoint))
    }

    /// Step 2: an answer (JSON: `answer`, and optionally `args`, `message`,
    /// `instruction`, `by`) to the approval in `checkpoint`, taken at `now`.
    pub fn settle(
        &self,
        checkpoint: &str,
        answer: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Result<String, StepError> {
        self.call(|f, store, flow| f.call_settle(store, flow, checkpoint, answer, now, previous))
    }

    /// Step 3: how a run step's tool ran (JSON: one of `output`, `error`,
    /// `unrecorded`, and `elapsed_ms`), for its `ticket`.
    pub fn finish(
        &self,
        ticket: &str,
        ran: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Result<String, StepError> {
        self.call(|f, store, flow| f.call_finish(store, flow, ticket, ran, now, previous))
    }

    /// The audit line recording that the log was found torn and repaired
    /// (`what` says what was set aside).
    pub fn gap(&self, what: &str, now: u64, previous: Option<&str>) -> Result<String, StepError> {
        self.call(|f, store, flow| f.call_gap(store, flow, what, now, previous))
    }

    /// A sealed grant's JSON, if this flow's key signed it and it has not
    /// expired at `now`.
    pub fn open_grant(&self, grant: &str, now: u64) -> Result<String, StepError> {
        self.call(|f, store, flow| f.call_open_grant(store, flow, grant, now))
    }

    /// The audit line recording that a sealed grant was revoked at `now`.
    pub fn revoke(
        &self,
        grant: &str,
        now: u64,
        previous: Option<&str>,
    ) -> Result<String, StepError> {
        self.call(|f, store, flow| f.call_revoke(store, flow, grant, now, previous))
    }

    /// Reads a step's text; text the component wrote always reads.
    pub fn step(text: &str) -> Result<Step, StepError> {
        serde_json::from_str(text)
            .map_err(|e| StepError::Invalid(format!("the component's step does not read: {e}")))
    }
}
