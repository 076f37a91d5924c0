//! The exact shingle sets of the exact check: the [`ShingleCache`] the
//! first pass fills (up to [`CACHE_BYTES`]) and the [`ExactSets`] the
//! check compares, kept as sorted 32-bit values (see
//! [`verify`](super::verify)). A leaf, so that the table of the run holds
//! the cache without importing the verification that reads it.

use super::minhash;

/// Bytes of shingles the first pass keeps for the exact check (see
/// `ShingleCache`): 32 MiB, the shingles of about 8 million tokens — the
/// whole of a corpus of some 25 MB of Chinese text, the beginning of a
/// larger one; a fixed amount, small next to what a large corpus takes
/// anyway (about 220 MB for 330 MB of JSON Lines, BENCHMARKS.md).
pub const CACHE_BYTES: usize = 32 << 20;

/// Shingles the first pass kept, so that the exact check need not read,
/// normalize and shingle those documents again.
///
/// The first pass has every document's shingles in hand but does not yet
/// know which documents the exact check will need; keeping all of them
/// would cost about as much memory as the text. The cache keeps them, as
/// the 32-bit values the check compares (unsorted, repeats kept: sorting
/// is left to the few documents that are needed), for documents in input
/// order until [`CACHE_BYTES`] are taken; a needed document beyond that is
/// read again. Which documents it holds depends on the input alone, not
/// on the threads.
///
/// Each document's values stay in the vector the sketching thread made
/// ([`cached_form`]): recording a document moves it, where copying it into
/// one buffer was the largest part of the batches' recording, which runs
/// on one thread while the other waits (3 % of `dedup`'s CPU time on the
/// 30M corpus, BENCHMARKS.md).
#[derive(Debug, Default)]
pub(crate) struct ShingleCache {
    /// Each document's values, for the documents held (`None` for the
    /// others).
    sets: Vec<Option<Box<[u32]>>>,
    /// Values held, in all.
    held: usize,
    budget: usize,
}

impl ShingleCache {
    /// A cache that holds at most `budget` bytes (none: keeps nothing).
    pub fn new(budget: usize) -> ShingleCache {
        ShingleCache { sets: Vec::new(), held: 0, budget }
    }

    /// Whether the next document may still be kept.
    pub fn has_room(&self) -> bool {
        self.held * 4 < self.budget
    }

    /// Record document `doc` (the next one) with the values of its
    /// shingles ([`cached_form`]), kept if they fit.
    pub fn push(&mut self, doc: u32, shingles: Vec<u32>) {
        debug_assert_eq!(doc as usize, self.sets.len());
        let fits = !shingles.is_empty() && (self.held + shingles.len()) * 4 <= self.budget;
        if fits {
            self.held += shingles.len();
            self.sets.push(Some(shingles.into_boxed_slice()));
        } else {
            self.sets.push(None);
        }
    }

    /// The exact set of document `doc`, if the cache holds its shingles.
    pub(super) fn set(&self, doc: u32) -> Option<Box<[u32]>> {
        let values = self.sets.get(doc as usize)?.as_deref()?;
        Some(sorted_set(values.to_vec()))
    }
}

/// Values of a document's shingles (repeats kept, any order) as its exact
/// set: sorted, without repeats.
///
/// Sorted by radix (four passes of a byte) when there are many: the
/// comparison sort of every set the exact check needs was 2.5 % of
/// `dedup`'s CPU time (`perf`, 30M corpus); the set is the same. (Three
/// passes of 11 bits were slower on sets of a few hundred values: the
/// prefix sums over 3 × 2,048 counts cost as much as the passes.)
pub(super) fn sorted_set(mut values: Vec<u32>) -> Box<[u32]> {
    /// Below this many values the comparison sort is as fast.
    const RADIX_FROM: usize = 256;
    const BITS: u32 = 8;
    const PASSES: usize = 4;
    const DIGITS: usize = 1 << BITS;
    if values.len() < RADIX_FROM {
        values.sort_unstable();
    } else {
        let mut counts = [[0u32; DIGITS]; PASSES];
        for &v in &values {
            for (pass, count) in counts.iter_mut().enumerate() {
                count[(v >> (BITS * pass as u32)) as usize & (DIGITS - 1)] += 1;
            }
        }
        let mut other = vec![0u32; values.len()];
        for (pass, count) in counts.iter_mut().enumerate() {
            let shift = BITS * pass as u32;
            let mut at = 0;
            for c in count.iter_mut() {
                (*c, at) = (at, at + *c);
            }
            for &v in &values {
                let slot = &mut count[(v >> shift) as usize & (DIGITS - 1)];
                other[*slot as usize] = v;
                *slot += 1;
            }
            std::mem::swap(&mut values, &mut other);
        }
    }
    values.dedup();
    values.into_boxed_slice()
}

/// Shingle hashes as the cache and the exact sets keep them: the high 32
/// bits of each.
pub(crate) fn cached_form(shingles: &[u64]) -> Vec<u32> {
    shingles.iter().map(|&h| (h >> 32) as u32).collect()
}

/// Exact shingle sets of some documents, by document index.
pub(crate) struct ExactSets {
    pub(super) sets: Vec<Option<Box<[u32]>>>,
    /// Documents whose sets were made by reading them again.
    pub(super) reread: usize,
}

impl ExactSets {
    /// No sets (the signature-only mode).
    pub fn none() -> ExactSets {
        ExactSets { sets: Vec::new(), reread: 0 }
    }

    /// Documents with a set.
    pub fn documents(&self) -> usize {
        self.sets.iter().filter(|s| s.is_some()).count()
    }

    /// Documents whose sets were made by reading them again.
    pub fn reread(&self) -> usize {
        self.reread
    }

    /// The Jaccard similarity of two documents' sets, if both have one.
    pub fn jaccard(&self, a: u32, b: u32) -> Option<f64> {
        match (self.sets.get(a as usize)?, self.sets.get(b as usize)?) {
            (Some(x), Some(y)) => Some(minhash::jaccard(x, y)),
            _ => None,
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// The radix sort and the comparison sort give one set, at every size
    /// around the switch, with repeats and values that differ only in one
    /// digit of the radix.
    #[test]
    fn sorted_sets_are_the_sorted_values_without_repeats() {
        let mut state = 11u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 32) as u32
        };
        for len in [0, 1, 2, 255, 256, 257, 1000, 5000] {
            let mut values: Vec<u32> = (0..len).map(|_| next()).collect();
            // Repeats, and neighbours in the low and high digits.
            for k in 0..len / 4 {
                let v = values[k];
                values.push(v);
                values.push(v ^ 1);
                values.push(v ^ (1 << 31));
            }
            values.extend([0, u32::MAX, 0, u32::MAX].iter().take(len.min(4)));
            let mut expected = values.clone();
            expected.sort_unstable();
            expected.dedup();
            assert_eq!(&*sorted_set(values), &expected[..], "{len} values");
        }
    }
}
