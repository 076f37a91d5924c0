//! How a long stage reports progress to whoever runs it.
//!
//! `scan` and `dedup` call a [`Progress`] as they go: a stage starts, units
//! of it are done, an input record is skipped. The CLI draws progress bars
//! from it; a library caller can ignore it ([`Quiet`]) or count. Every
//! method has an empty default, so an implementation picks what it needs.
//! Calls come from any thread, hence `Sync`.

use super::problem::Problem;

/// Where a long stage reports progress (a terminal progress bar, or nothing).
pub trait Progress: Sync {
    /// A stage starts; `total` units if known.
    fn stage(&self, _name: &str, _total: Option<u64>) {}
    /// `n` more units are done.
    fn advance(&self, _n: u64) {}
    /// A non-fatal problem with the input.
    fn problem(&self, _p: &Problem) {}
}

/// Reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;
impl Progress for Quiet {}
