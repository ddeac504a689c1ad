//! The pool of component instances, and the table of engine configurations
//! every instance re-creates its engines from.
//!
//! Every call checks an instance out of the pool (instantiating one when none is
//! idle, which takes microseconds), runs, and checks it back in, so threads call
//! in parallel without sharing a store. A call that traps, or that runs out of
//! its work budget, discards its instance: a half-run instance's state cannot be
//! trusted, and the next call gets a fresh one.
//!
//! An [`crate::Engine`] handle is only an id: its configuration lives in the
//! [`EngineTable`], and the component's `engine` resource for it lives in every
//! instance that served it. An instance that has not seen an engine yet
//! creates the resource from the table's configuration on first use; an
//! instance that has seen engines since dropped frees their resources when it
//! is next checked out, which the table's generation tells it.

use super::clock;
use super::error::Failure;
use super::limits::{MemoryLimiter, WorkLimit};
use crate::bindings::{Toolgate, ToolgatePre};
use crate::cache::LoadSource;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use wasmtime::component::ResourceAny;
use wasmtime::{Store, StoreLimitsBuilder};

/// A live instance of the component.
pub(super) struct Instance {
    pub(super) store: Store<MemoryLimiter>,
    pub(super) bindings: Toolgate,
    /// The component's `engine` resources made in this instance, by engine id.
    resources: HashMap<u64, ResourceAny>,
    /// The table generation this instance last swept its resources against.
    generation: u64,
}

/// The configuration of every live [`crate::Engine`] handle, so any instance
/// can create the `engine` resources it has not seen yet. (Not to be confused
/// with the API-tool registry of the configuration: this is the host's own
/// bookkeeping.)
#[derive(Default)]
struct EngineTable {
    configs: HashMap<u64, Arc<str>>,
    next_id: u64,
    /// Bumped whenever an engine is dropped, so instances know to sweep.
    generation: u64,
}

/// What one loaded policy shares across its clones and engines: the compiled
/// component, the limits of each call, the idle instances and the engine table.
pub(super) struct Pool {
    pre: ToolgatePre<MemoryLimiter>,
    wasm: wasmtime::Engine,
    max_memory: usize,
    work_limit: WorkLimit,
    max_idle: usize,
    pub(super) source: LoadSource,
    table: Mutex<EngineTable>,
    idle: Mutex<Vec<Instance>>,
    /// Fuel burnt by every call so far, under [`WorkLimit::Fuel`].
    fuel_consumed: AtomicU64,
    /// Calls into the component so far.
    crossings: AtomicU64,
}

/// Locks a mutex, recovering from poisoning: the data guarded here (the pool
/// and the engine table) stays consistent whatever a panicking holder was
/// doing, because instances are only ever in the pool while no call runs on
/// them.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| {
        mutex.clear_poison();
        poisoned.into_inner()
    })
}

/// Makes the component's `engine` resource for engine `id` in `instance`.
/// The outer error is a trap; the inner one the policy's refusal of `config`.
fn create_resource(
    instance: &mut Instance,
    id: u64,
    config: &str,
) -> wasmtime::Result<Result<(), String>> {
    let store = &mut instance.store;
    let created = instance
        .bindings
        .toolgate_policy_policy()
        .engine()
        .call_create(store, config)?;
    Ok(created.map(|resource| {
        instance.resources.insert(id, resource);
    }))
}

/// Usage figures of the pool: idle instances, their memory, live engines.
pub(super) struct Usage {
    pub(super) idle_instances: usize,
    pub(super) idle_memory: usize,
    pub(super) engines: usize,
    pub(super) fuel_consumed: u64,
    pub(super) crossings: u64,
}

impl Pool {
    /// An empty pool over a compiled component.
    pub(super) fn new(
        wasm: wasmtime::Engine,
        pre: ToolgatePre<MemoryLimiter>,
        source: LoadSource,
        max_memory: usize,
        work_limit: WorkLimit,
        max_idle: usize,
    ) -> Pool {
        Pool {
            wasm,
            pre,
            max_memory,
            work_limit,
            max_idle,
            source,
            table: Mutex::new(EngineTable::default()),
            idle: Mutex::new(Vec::new()),
            fuel_consumed: AtomicU64::new(0),
            crossings: AtomicU64::new(0),
        }
    }

    /// Usage figures, for [`crate::Stats`].
    pub(super) fn usage(&self) -> Usage {
        let idle = lock(&self.idle);
        Usage {
            idle_instances: idle.len(),
            idle_memory: idle.iter().map(|i| i.store.data().grown()).sum(),
            engines: lock(&self.table).configs.len(),
            fuel_consumed: self.fuel_consumed.load(Ordering::Relaxed),
            crossings: self.crossings.load(Ordering::Relaxed),
        }
    }

    /// Creates an engine from `config`: the id of the new engine, or the
    /// policy's refusal of the configuration.
    pub(super) fn add_engine(&self, config: &str) -> Result<Result<u64, String>, Failure> {
        let id = {
            let mut table = lock(&self.table);
            table.next_id += 1;
            table.next_id
        };
        let created = self.call(1, |instance| create_resource(instance, id, config))?;
        Ok(created.map(|()| {
            lock(&self.table).configs.insert(id, Arc::from(config));
            id
        }))
    }

    /// Forgets engine `id`: its configuration now, its resources in idle
    /// instances now, and in the instances in use when they are next checked
    /// out (they see the new generation).
    pub(super) fn drop_engine(&self, id: u64) {
        {
            let mut table = lock(&self.table);
            table.configs.remove(&id);
            table.generation += 1;
        }
        // An idle instance whose resource cannot be dropped is discarded: a
        // trap inside the destructor poisons the instance, and every later
        // call into it would trap too.
        lock(&self.idle).retain_mut(|instance| match instance.resources.remove(&id) {
            Some(resource) => self.drop_resource(instance, resource).is_ok(),
            None => true,
        });
    }

    /// Drops one `engine` resource in `instance`, under a fresh work budget.
    /// The destructor runs WebAssembly code like any call, so it needs one:
    /// the budget the instance's last call left behind is spent or, under
    /// [`WorkLimit::Time`], a deadline that passed as soon as the instance
    /// sat idle longer than the limit, and a destructor run against it traps
    /// (`Trap::Interrupt`) and leaves the instance unusable. An error means
    /// the instance must be discarded.
    fn drop_resource(&self, instance: &mut Instance, resource: ResourceAny) -> Result<(), Failure> {
        self.refuel(instance, 1)?;
        resource
            .resource_drop(&mut instance.store)
            .map_err(|e| Failure::from_wasmtime(&e))
    }

    fn instantiate(&self) -> wasmtime::Result<Instance> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.max_memory)
            // A refused growth returns -1 to the component, whose allocator then
            // aborts: the same trap the JavaScript host sees at its cap, so both
            // name the fault alike.
            .trap_on_grow_failure(false)
            .build();
        let mut store = Store::new(&self.wasm, MemoryLimiter::new(limits));
        store.limiter(|limiter| limiter);
        if let WorkLimit::Fuel(fuel) = self.work_limit {
            store.set_fuel(fuel)?;
        }
        if let WorkLimit::Time(limit) = self.work_limit {
            store.set_epoch_deadline(clock::ticks(limit, 1));
            store.epoch_deadline_trap();
        }
        let bindings = self.pre.instantiate(&mut store)?;
        Ok(Instance {
            store,
            bindings,
            resources: HashMap::new(),
            generation: 0,
        })
    }

    /// An idle instance, or a new one.
    fn check_out(&self) -> wasmtime::Result<Instance> {
        let idle = lock(&self.idle).pop();
        match idle {
            Some(instance) => Ok(instance),
            None => self.instantiate(),
        }
    }

    fn check_in(&self, instance: Instance) {
        let mut idle = lock(&self.idle);
        if idle.len() < self.max_idle {
            idle.push(instance);
        }
    }

    /// Drops the resources of engines that no longer exist, and returns the
    /// configuration of engine `wanted` when this instance still has to create
    /// its resource.
    fn sync_resources(
        &self,
        instance: &mut Instance,
        wanted: Option<u64>,
    ) -> Result<Option<Arc<str>>, Failure> {
        let table = lock(&self.table);
        if instance.generation != table.generation {
            let gone: Vec<u64> = instance
                .resources
                .keys()
                .filter(|id| !table.configs.contains_key(id))
                .copied()
                .collect();
            for id in gone {
                if let Some(resource) = instance.resources.remove(&id) {
                    // A failure discards the instance (the caller's error).
                    self.drop_resource(instance, resource)?;
                }
            }
            instance.generation = table.generation;
        }
        match wanted {
            Some(id) if !instance.resources.contains_key(&id) => table
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
        f: impl FnOnce(&mut Instance) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let mut instance = self
            .check_out()
            .map_err(|e| Failure::Fault(format!("{e:#}")))?;
        let result = f(&mut instance);
        if result.is_ok() {
            self.check_in(instance);
        }
        result
    }

    /// Runs `f` with `weight` times the work budget.
    pub(super) fn call<T>(
        &self,
        weight: u64,
        f: impl FnOnce(&mut Instance) -> wasmtime::Result<T>,
    ) -> Result<T, Failure> {
        self.with_instance(|instance| {
            self.sync_resources(instance, None)?;
            self.metered(instance, weight, f)
        })
    }

    /// [`Pool::call`] with the `engine` resource of engine `id`, created in
    /// the instance first if the instance has not served that engine yet.
    pub(super) fn call_engine<T>(
        &self,
        id: u64,
        weight: u64,
        f: impl FnOnce(&mut Instance, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T, Failure> {
        self.with_instance(|instance| {
            if let Some(config) = self.sync_resources(instance, Some(id))? {
                self.refuel(instance, 1)?;
                // Each configuration was accepted when its engine was made, so a
                // refusal now means the instance is broken.
                create_resource(instance, id, &config)
                    .map_err(|e| Failure::from_wasmtime(&e))?
                    .map_err(|e| Failure::Fault(format!("re-creating engine {id}: {e}")))?;
            }
            let resource = instance
                .resources
                .get(&id)
                .copied()
                .ok_or_else(|| Failure::Fault(format!("engine {id} is not live")))?;
            self.metered(instance, weight, |instance| f(instance, resource))
        })
    }

    /// A fresh instance outside the pool, with the pool's limits, for a caller
    /// that keeps resources of its own in it (a gate's flow).
    pub(super) fn own_instance(&self) -> Result<Instance, Failure> {
        self.instantiate()
            .map_err(|e| Failure::Fault(format!("{e:#}")))
    }

    /// Runs `f` on an instance outside the pool under the work limit, metered
    /// and counted like a pooled call.
    pub(super) fn call_own<T>(
        &self,
        instance: &mut Instance,
        f: impl FnOnce(&mut Instance) -> wasmtime::Result<T>,
    ) -> Result<T, Failure> {
        self.metered(instance, 1, f)
    }

    /// Runs `f` with `weight` times the work budget, and adds the fuel it
    /// burnt (all of it, when it ran out) to the policy's count.
    fn metered<T>(
        &self,
        instance: &mut Instance,
        weight: u64,
        f: impl FnOnce(&mut Instance) -> wasmtime::Result<T>,
    ) -> Result<T, Failure> {
        let budget = self.refuel(instance, weight)?;
        self.crossings.fetch_add(1, Ordering::Relaxed);
        let result = f(instance);
        if let Some(budget) = budget {
            let left = instance.store.get_fuel().unwrap_or(0);
            self.fuel_consumed
                .fetch_add(budget.saturating_sub(left), Ordering::Relaxed);
        }
        result.map_err(|e| Failure::from_wasmtime(&e))
    }

    /// Sets the work limit of the next call: fuel, or a deadline in ticks from
    /// now. Returns the fuel set, under a fuel limit.
    fn refuel(&self, instance: &mut Instance, weight: u64) -> Result<Option<u64>, Failure> {
        match self.work_limit {
            WorkLimit::None => Ok(None),
            WorkLimit::Fuel(fuel) => {
                let budget = fuel.saturating_mul(weight);
                instance
                    .store
                    .set_fuel(budget)
                    .map_err(|e| Failure::Fault(format!("{e:#}")))?;
                Ok(Some(budget))
            }
            WorkLimit::Time(limit) => {
                instance
                    .store
                    .set_epoch_deadline(clock::ticks(limit, weight));
                Ok(None)
            }
        }
    }
}
