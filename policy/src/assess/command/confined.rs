//! Whether the call runs under a confinement that masks the working tree's
//! secrets (the caller's context says so: `confined: true`, set by the
//! executor, see [`crate::context::Context::confined`]).
//!
//! Held for the duration of one assessment, like the egress rule
//! (`super::net`): the program checks are plain functions of their
//! arguments, and only one of them (a recursive search of the working
//! directory) reads differently when the secrets it would print are masked.

use std::cell::Cell;

thread_local! {
    static CONFINED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `judge` with `confined` in force, then restores the setting before.
pub fn within<T>(confined: bool, judge: impl FnOnce() -> T) -> T {
    let before = CONFINED.with(|c| c.replace(confined));
    let out = judge();
    CONFINED.with(|c| c.set(before));
    out
}

/// Whether the assessment under way is for a confined executor.
pub fn confined() -> bool {
    CONFINED.with(Cell::get)
}
