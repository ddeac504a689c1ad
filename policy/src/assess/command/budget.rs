//! A work budget for the floor's look-through (wrappers, remote shells,
//! `eval`, `sh -c`): it tries several readings of the same words, and a budget
//! proportional to the input keeps the whole assessment linear. When it runs
//! out, the floor over-matches (calls the command destructive), never allows.
//!
//! The counter also serves the linearity tests, which read how much work an
//! input cost.

use std::cell::Cell;

/// Units of work allowed per byte of input, and a floor for short inputs.
const PER_BYTE: usize = 32;
const MINIMUM: usize = 100_000;

thread_local! {
    static LEFT: Cell<usize> = const { Cell::new(MINIMUM) };
    static SPENT: Cell<usize> = const { Cell::new(0) };
}

/// Starts the budget for one assessment of an input of `len` bytes, and the
/// line's time tally (`unbounded`: the line is bounded as a whole).
pub fn reset(len: usize) {
    LEFT.with(|left| left.set(len.saturating_mul(PER_BYTE).saturating_add(MINIMUM)));
    super::unbounded::start_line();
}

/// Spends `units`; false when the budget is exhausted.
pub fn spend(units: usize) -> bool {
    count(units);
    LEFT.with(|left| left.get() > 0)
}

/// Counts work done anyway (parsing, walking): it uses up the budget too, so
/// the floor's look-through stops before the total grows beyond linear.
pub fn count(units: usize) {
    SPENT.with(|spent| spent.set(spent.get().saturating_add(units)));
    LEFT.with(|left| left.set(left.get().saturating_sub(units)));
}

/// The work counted since the last call, for the linearity tests.
#[cfg(test)]
pub fn take_spent() -> usize {
    SPENT.with(|spent| spent.replace(0))
}
