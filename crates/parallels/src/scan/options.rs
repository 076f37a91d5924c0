//! What decides a scan: [`ScanOptions`], its defaults (stricter than
//! `align`'s: [`MIN_CHAIN`], [`MIN_VERBATIM_TOKENS`]) and its one check
//! ([`ScanOptions::check`]), which the command line, Python and Spark call
//! instead of stating the bounds again.

use super::error::ScanError;
use super::seeds::SeedParams;
use super::significance::Reporting;
use crate::align::Options;
use crate::mine::MineParams;

/// Lowest chain score of a parallel passage in a scan (`align` keeps
/// 0.08): about two good links, or one near copy. Measured on the
/// `gen_scan.py` corpus at 10 MB: 0.08 → 0.5 removes two thirds of the
/// passages between unrelated news items and keeps all planted copies.
pub const MIN_CHAIN: f32 = 0.5;
/// Shortest verbatim passage in a scan, in tokens (`align` keeps 12).
pub const MIN_VERBATIM_TOKENS: u32 = 20;

/// Everything that decides a scan.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    /// How each candidate pair is aligned (stricter than `align`'s defaults: [`MIN_CHAIN`], [`MIN_VERBATIM_TOKENS`]).
    pub align: Options,
    /// How seeds are taken and which pairs they make candidates.
    pub seeds: SeedParams,
    /// Memory for sorting, in bytes (spilled to disk beyond it).
    pub memory: u64,
    /// Documents prepared per batch while reading.
    pub batch: usize,
    /// Candidate pairs aligned per chunk.
    pub chunk: usize,
    /// Feature frequencies are counted in `2^df_bits` buckets (4 bytes each).
    pub df_bits: u32,
    /// When a passage is reported: the bars and the rule (see
    /// [`significance`](mod@super::significance); a `min_significance` of
    /// 0 reports every passage).
    pub report: Reporting,
    /// Look for translations between documents of different languages
    /// (candidates by meaning, [`crate::mine`]) when the corpus holds two
    /// or more languages the encoder knows; a corpus in one language is
    /// never encoded.
    pub across: bool,
    /// Which sentence pairs are mined across languages, and which pairs of
    /// documents they make candidates.
    pub mine: MineParams,
}

impl Default for ScanOptions {
    fn default() -> Self {
        let mut align = Options::default();
        // Across a corpus, stock phrases and formulaic sentences abound: a
        // passage must be worth more than a chance match of one sentence.
        align.parallel.min_chain = MIN_CHAIN;
        // Once a pair holds one such passage, it is related: further
        // passages need only what `align` asks.
        align.parallel.min_chain_related = Options::default().parallel.min_chain;
        align.verbatim.min_tokens = MIN_VERBATIM_TOKENS;
        // Meaning is for a few pairs aligned closely, not for a corpus.
        align.meaning = false;
        ScanOptions {
            align,
            seeds: SeedParams::default(),
            memory: 512 << 20,
            batch: 512,
            chunk: 4096,
            df_bits: 24,
            report: Reporting::default(),
            across: true,
            mine: MineParams::default(),
        }
    }
}

impl ScanOptions {
    /// Options that cannot work, named as the fields are named here (the
    /// bounds every front end asks: the command line, Python and Spark
    /// call this instead of stating them again).
    pub fn check(&self) -> Result<(), ScanError> {
        let bad = |what: String| Err(ScanError::Options(what));
        let p = &self.seeds;
        if p.max_df < 2 {
            return bad(format!(
                "max_df = {}: must be at least 2 (a seed in one document is shared by none)",
                p.max_df
            ));
        }
        if p.min_seeds < 1 {
            return bad("min_seeds = 0: must be at least 1".into());
        }
        if p.n < 1 || p.window < 1 {
            return bad(format!("seeds of {} tokens, window {}: both must be at least 1", p.n, p.window));
        }
        self.report.check().map_err(ScanError::Options)?;
        if self.memory < MIN_MEMORY {
            return bad(format!("memory = {} MiB: must be at least {} MiB", self.memory >> 20, MIN_MEMORY >> 20));
        }
        if !(MIN_DF_BITS..=MAX_DF_BITS).contains(&self.df_bits) {
            return bad(format!("df_bits = {}: must be from {MIN_DF_BITS} to {MAX_DF_BITS}", self.df_bits));
        }
        let m = &self.mine;
        if m.k < 1 || m.min_pairs < 1 || m.min_tokens < 1 {
            return bad(format!(
                "mining k = {}, min_pairs = {}, min_tokens = {}: each must be at least 1",
                m.k, m.min_pairs, m.min_tokens
            ));
        }
        if !m.margin.is_finite() || m.margin <= 0.0 {
            return bad(format!("mining margin = {}: must be a finite number above 0", m.margin));
        }
        if self.batch < 1 || self.chunk < 1 {
            return bad(format!("batch = {}, chunk = {}: both must be at least 1", self.batch, self.chunk));
        }
        Ok(())
    }
}

/// The least sorting memory a scan takes ([`ScanOptions::memory`]).
pub const MIN_MEMORY: u64 = 16 << 20;
/// The smallest and largest feature tables ([`ScanOptions::df_bits`]).
pub const MIN_DF_BITS: u32 = 8;
/// See [`MIN_DF_BITS`].
pub const MAX_DF_BITS: u32 = 30;

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounds every front end asks are the library's: a bad option is
    /// named, the defaults pass.
    #[test]
    fn options_that_cannot_work_are_named() {
        assert!(ScanOptions::default().check().is_ok());
        let named = |opts: ScanOptions| opts.check().unwrap_err().to_string();
        let d = ScanOptions::default;
        assert!(named(ScanOptions { seeds: SeedParams { max_df: 1, ..SeedParams::default() }, ..d() })
            .starts_with("max_df = 1"));
        assert!(named(ScanOptions { seeds: SeedParams { min_seeds: 0, ..SeedParams::default() }, ..d() })
            .starts_with("min_seeds = 0"));
        let report = |r: Reporting| ScanOptions { report: r, ..d() };
        assert!(
            named(report(Reporting::default().with_min_significance(f64::NAN))).starts_with("min_significance = NaN")
        );
        assert!(named(report(Reporting { min_specificity: 1.5, ..Reporting::default() }))
            .starts_with("min_specificity = 1.5"));
        assert!(named(ScanOptions { memory: 1 << 20, ..d() }).starts_with("memory = 1 MiB"));
        assert!(named(ScanOptions { df_bits: 40, ..d() }).starts_with("df_bits = 40"));
    }
}
