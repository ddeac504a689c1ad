//! The clock behind [`crate::WorkLimit::Time`]: wasmtime's epoch interruption
//! checks a counter at loop heads and calls, and one background thread per
//! loaded policy advances that counter every [`TICK`]. A call's deadline is a
//! number of ticks from its start, which costs almost nothing per call, unlike
//! fuel.

use std::time::Duration;

/// How often the clock of a [`crate::WorkLimit::Time`] advances.
const TICK: Duration = Duration::from_millis(10);

/// The epoch ticks that make up `weight` times `limit` (at least one more than
/// needed, so a call never loses time to a tick that was about to happen).
pub(super) fn ticks(limit: Duration, weight: u64) -> u64 {
    let per_call = limit.as_nanos() / TICK.as_nanos();
    u64::try_from(per_call)
        .unwrap_or(u64::MAX)
        .saturating_mul(weight)
        .saturating_add(1)
}

/// Starts the thread that advances `wasm`'s epoch every [`TICK`]. It holds
/// the wasmtime engine weakly and ends once the policy is gone.
pub(super) fn start(wasm: &wasmtime::Engine) -> std::io::Result<()> {
    let weak = wasm.weak();
    std::thread::Builder::new()
        .name(String::from("toolgate-clock"))
        .spawn(move || loop {
            std::thread::sleep(TICK);
            match weak.upgrade() {
                Some(wasm) => wasm.increment_epoch(),
                None => break,
            }
        })
        .map(drop)
}
