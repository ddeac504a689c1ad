//! How much one call may take: memory per instance and work per call.
//!
//! A policy decides inputs an attacker may shape, so no input may exhaust the
//! host. Memory is bounded per instance by a [`ResourceLimiter`]; work is
//! bounded per call by fuel (deterministic) or by wall-clock time (almost
//! free; see [`super::clock`]). A call that reaches either bound is stopped,
//! its instance discarded, and the call answered `confirm`.

use std::time::Duration;
use wasmtime::{ResourceLimiter, StoreLimits};

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

/// The data of every store: the memory limiter, which also records how large
/// the instance's linear memory has grown (for [`crate::Stats`]).
pub(crate) struct MemoryLimiter {
    limits: StoreLimits,
    grown: usize,
}

impl MemoryLimiter {
    /// A limiter over `limits`, with nothing grown yet.
    pub(super) fn new(limits: StoreLimits) -> Self {
        MemoryLimiter { limits, grown: 0 }
    }

    /// The linear memory the instance has grown to, in bytes.
    pub(super) fn grown(&self) -> usize {
        self.grown
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let grow = self.limits.memory_growing(current, desired, maximum)?;
        if grow {
            self.grown = self.grown.saturating_add(desired.saturating_sub(current));
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
