//! Argument groups shared by several commands, flattened into each: the
//! corpus a command reads (`scan`, `dedup`) and the normalization switches
//! (`scan`, `dedup`). Defaults are read from the library's `Default`s, so
//! each is stated once.

use clap::Args;
use parallels::corpus::CorpusOptions;
use parallels::normalize::NormalizeOptions;

/// The corpus to read, and how (`scan`, `dedup`).
#[derive(Args, Debug)]
pub struct CorpusArgs {
    /// Inputs: folders of text files (read recursively), JSON Lines files,
    /// Parquet files, or quoted glob patterns such as 'data/*.parquet'.
    #[arg(required = true, value_name = "INPUT")]
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
    /// The library's default normalization without the rules switched off.
    pub fn options(&self) -> NormalizeOptions {
        NormalizeOptions {
            script: !self.no_script,
            variants: !self.no_script,
            numbers: !self.no_numbers,
            footnotes: !self.no_footnotes,
            boilerplate: !self.no_boilerplate,
            ..NormalizeOptions::default()
        }
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
