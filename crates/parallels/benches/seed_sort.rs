//! The external sorter on `scan`'s seed records: push a million seeds in
//! random hash order and read them back sorted, all in memory and spilling
//! to disk in eight runs.
//!
//! ```text
//! cargo bench -p parallels --bench seed_sort
//! ```
//!
//! The record is a copy of `scan::seeds::Seed` (private to `scan`): a
//! 64-bit hash, then document and position, 16 bytes little-endian. Hashes
//! come from a fixed-seed generator, documents and positions cycle, so runs
//! compare. Throughput is in records; spilling writes to the system's
//! temporary folder, so its figure depends on that disk.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use parallels::plumbing::sort::{Record, Sorter};
use std::hint::black_box;

const SEEDS: usize = 1 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Seed {
    hash: u64,
    doc: u32,
    pos: u32,
}

impl Record for Seed {
    const SIZE: usize = 16;
    fn write(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.hash.to_le_bytes());
        out[8..12].copy_from_slice(&self.doc.to_le_bytes());
        out[12..16].copy_from_slice(&self.pos.to_le_bytes());
    }
    fn read(b: &[u8]) -> Self {
        Seed {
            hash: u64::from_le_bytes(b[..8].try_into().unwrap()),
            doc: u32::from_le_bytes(b[8..12].try_into().unwrap()),
            pos: u32::from_le_bytes(b[12..16].try_into().unwrap()),
        }
    }
}

/// `SEEDS` seeds: splitmix64 hashes, 1,000 documents of up to 4,096
/// positions.
fn seeds() -> Vec<Seed> {
    let mut state = 0x5eed_u64;
    (0..SEEDS as u32)
        .map(|k| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            Seed { hash: z ^ (z >> 31), doc: k % 1000, pos: k / 1000 % 4096 }
        })
        .collect()
}

/// Push every seed into a sorter holding `chunk` records, read them back
/// sorted; the number read.
fn sort(seeds: &[Seed], chunk: usize, dir: &std::path::Path) -> usize {
    let mut sorter: Sorter<Seed> = Sorter::in_temp_dir(dir, "bench-seeds", chunk);
    for &s in seeds {
        sorter.push(s).unwrap();
    }
    let mut n = 0;
    for s in sorter.finish().unwrap() {
        black_box(s.unwrap());
        n += 1;
    }
    n
}

fn seed_sort(c: &mut Criterion) {
    let seeds = seeds();
    let dir = std::env::temp_dir();
    let mut g = c.benchmark_group("seed_sort");
    g.throughput(Throughput::Elements(SEEDS as u64));
    g.sample_size(10);
    g.bench_function("in_memory", |b| {
        b.iter_batched(|| seeds.clone(), |s| assert_eq!(sort(&s, SEEDS, &dir), SEEDS), BatchSize::LargeInput)
    });
    g.bench_function("spilled_8_runs", |b| {
        b.iter_batched(|| seeds.clone(), |s| assert_eq!(sort(&s, SEEDS / 8, &dir), SEEDS), BatchSize::LargeInput)
    });
    g.finish();
}

criterion_group!(benches, seed_sort);
criterion_main!(benches);
