//! Plumbing: the ground floor that several stages stand on and none owns.
//!
//! * [`sort`]: an external sorter of fixed-size records that spills to disk
//!   beyond a memory budget (scan's seeds, dedup's band records).
//! * [`union_find`]: disjoint sets whose roots are the smallest members, so
//!   clusters do not depend on the order of unions (scan's passage
//!   clusters, dedup's duplicate clusters).
//! * [`progress`]: the [`Progress`] trait a long stage reports to.
//! * [`problem`]: what a reader reports of an input that gives no
//!   document ([`problem::Problem`]).
//! * [`atomic`]: files written whole or not at all (every result and
//!   checkpoint).
//! * [`parquet`]: the Parquet writer settings.
//! * [`read_at`]: a file read at an offset from several threads at once.
//! * [`same_file`]: which paths name one file; outputs that are an input or
//!   another output are refused before anything is written.
//! * [`shown`]: a path as messages show it (control characters and bytes
//!   that are not UTF-8 escaped), re-exported by [`crate::read`].
//!
//! Together with [`crate::chars`] (character classes) this is what stages
//! share; a stage never imports another stage's internals. Nothing here
//! depends on a stage: the [`problem::Problem`]s a reader reports (and
//! [`Progress`] hands on) are kept here, and `corpus` re-exports them.

pub mod atomic;
pub mod parquet;
pub mod problem;
pub mod progress;
pub mod read_at;
pub mod same_file;
pub mod shown;
pub mod sort;
pub mod union_find;

pub use atomic::{commit_all, write_atomic, AtomicFile, CreatedDir};
pub use progress::{Progress, Quiet};
pub use read_at::read_exact_at;
pub use same_file::{check_outputs, Clash, OutputFile};
pub use union_find::UnionFind;
