//! Argument groups shared by several commands, flattened into each: the
//! corpus a command reads (`scan`, `dedup`) and the normalization switches
//! (`scan`, `dedup`). Defaults are read from the library's `Default`s, so
//! each is stated once.

use clap::builder::TypedValueParser;
use clap::Args;
use parallels::corpus::CorpusOptions;
use parallels::normalize::{NormalizeOptions, Switches};
use parallels::scan::{Reporting, ScanOptions};

/// The corpus to read, and how (`scan`, `dedup`).
#[derive(Args, Debug)]
pub struct CorpusArgs {
    /// Inputs: folders of text files (read recursively), JSON Lines files,
    /// Parquet files, or quoted glob patterns such as 'data/*.parquet'.
    #[arg(required = true, value_name = "INPUT", value_parser = corpus_input())]
    pub inputs: Vec<std::path::PathBuf>,
    /// JSON Lines / Parquet field holding the document id.
    #[arg(long, default_value_t = CorpusOptions::default().id_field, value_name = "FIELD")]
    pub id: String,
    /// JSON Lines / Parquet field holding the text.
    #[arg(long, default_value_t = CorpusOptions::default().text_field, value_name = "FIELD")]
    pub text: String,
    /// Stop at the first malformed record instead of skipping and counting.
    #[arg(long)]
    pub strict: bool,
}

/// A corpus input: any path but `-`, refused with what to do. `scan`
/// reads its inputs again (to record what `report` may read back and what
/// `--resume` checks) and `dedup` copies its kept records out of them in a
/// second pass, so neither can take a stream; `index` reads once, but the
/// corpus reader reads files by path, and that stays one rule for all
/// three.
fn corpus_input() -> impl TypedValueParser<Value = std::path::PathBuf> {
    clap::builder::PathBufValueParser::new().try_map(|path: std::path::PathBuf| {
        if path.as_os_str() == crate::stdin::DASH {
            return Err("standard input (`-`) is not read as a corpus: scan and dedup read their inputs more than \
                        once; save it to a file first (e.g. `cat > docs.jsonl`) and give that file");
        }
        Ok(path)
    })
}

impl CorpusArgs {
    /// The reader's options (no grouping: `scan` adds its own).
    pub fn options(&self) -> CorpusOptions {
        CorpusOptions {
            id_field: self.id.clone(),
            text_field: self.text.clone(),
            strict: self.strict,
            ..CorpusOptions::default()
        }
    }
}

/// Normalization rules that can be switched off (all on by default).
#[derive(Args, Debug)]
pub struct NormalizeArgs {
    /// Do not fold traditional characters to simplified (nor variant
    /// characters to one form).
    #[arg(long)]
    pub no_script: bool,
    /// Do not read Chinese numerals, 万-notation and thousands separators
    /// as numbers.
    #[arg(long)]
    pub no_numbers: bool,
    /// Do not drop footnote markers such as `[12]` or `①`.
    #[arg(long)]
    pub no_footnotes: bool,
    /// Match serialization headers and update-time lines like any text.
    #[arg(long)]
    pub no_boilerplate: bool,
}

impl NormalizeArgs {
    /// The rules switched on.
    pub fn switches(&self) -> Switches {
        Switches {
            script: !self.no_script,
            numbers: !self.no_numbers,
            footnotes: !self.no_footnotes,
            boilerplate: !self.no_boilerplate,
        }
    }

    /// The library's default normalization without the rules switched off.
    pub fn options(&self) -> NormalizeOptions {
        self.switches().options()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Both {
        #[command(flatten)]
        corpus: CorpusArgs,
        #[command(flatten)]
        normalize: NormalizeArgs,
    }

    #[test]
    fn no_flags_give_the_library_defaults() {
        let both = Both::parse_from(["x", "a.jsonl"]);
        assert_eq!(both.corpus.options(), CorpusOptions::default());
        assert_eq!(both.normalize.options(), NormalizeOptions::default());
    }

    #[test]
    fn each_switch_turns_its_rules_off() {
        let both = Both::parse_from(["x", "a.jsonl", "--no-script", "--no-boilerplate", "--id", "url", "--strict"]);
        let n = both.normalize.options();
        assert!(!n.script && !n.variants && !n.boilerplate && n.numbers && n.footnotes && n.width);
        let c = both.corpus.options();
        assert_eq!((c.id_field.as_str(), c.text_field.as_str(), c.strict), ("url", "text", true));
    }
}

/// What `scan` and `index build` ask of a pair before they report it: the
/// seeds that make it a candidate and the significance bars.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Token n-grams in more documents than this are boilerplate, not
    /// evidence (at least 2).
    #[arg(long, default_value_t = ScanOptions::default().seeds.max_df, value_name = "N",
          value_parser = clap::value_parser!(u32).range(2..))]
    pub max_df: u32,
    /// Shared n-gram seeds two documents need before they are aligned (at
    /// least 1).
    #[arg(long, default_value_t = ScanOptions::default().seeds.min_seeds, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub min_seeds: u32,
    /// Report only passages at least this significant: their length in
    /// tokens that few other documents of the corpus share (formula,
    /// templates and numbers count little or nothing), times their score,
    /// less for a list (names, titles and places, with fewer of the
    /// corpus's common words than the text around it). 0 reports every
    /// passage found.
    #[arg(long, default_value_t = ScanOptions::default().report.min_significance, value_name = "X")]
    pub min_significance: f64,
    /// Report a pair's `parallel` passages only when the wording their
    /// linked sentences share is this specific, from 0 to 1: the mean
    /// weight of the token pairs found on both sides, a pair in over 1 % of
    /// the corpus's sentences weighing 0. Paraphrased house rhetoric scores
    /// about 0.3, versions of one work 0.55 and more in a newspaper corpus;
    /// in a corpus made mostly of versions of one work their own words are
    /// its common vocabulary: lower it there (0 asks nothing).
    #[arg(long, default_value_t = ScanOptions::default().report.min_specificity, value_name = "X",
          value_parser = parse_share)]
    pub min_specificity: f64,
}

impl ReportArgs {
    /// Set these in `opts`.
    pub fn apply(&self, opts: &mut ScanOptions) {
        opts.seeds.max_df = self.max_df;
        opts.seeds.min_seeds = self.min_seeds;
        opts.report = self.reporting(opts.report.clone());
    }

    /// `report` with the bars these flags set.
    pub fn reporting(&self, report: Reporting) -> Reporting {
        Reporting { min_specificity: self.min_specificity, ..report }.with_min_significance(self.min_significance)
    }
}

fn parse_share(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("{s:?} is not a number from 0 to 1, such as 0.4")),
    }
}
