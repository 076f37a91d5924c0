//! `parallels eval`: an alignment scored against gold links, or a ladder
//! of beads against a gold ladder.

use anyhow::{bail, Context, Result};
use clap::Args;
use parallels::output::AlignOutput;
use parallels::read::shown;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::common::write_output;
use crate::stdin;

/// Most bytes of a gold or predicted file (or of standard input, cut
/// while it is read): the limit of a document elsewhere.
const MAX_BYTES: u64 = parallels::corpus::DEFAULT_MAX_DOCUMENT_BYTES;

/// A gold or predicted file as messages name it (`<stdin>` for `-`).
fn shown_as(path: &Path) -> String {
    if stdin::is_stdin(path) {
        stdin::PATH.to_string()
    } else {
        shown(path).to_string()
    }
}

/// The text of a gold or predicted file, or of standard input for `-`,
/// decoded as any text file is (a byte-order mark dropped, UTF-16 read),
/// at most [`MAX_BYTES`].
fn read(path: &Path) -> Result<String> {
    Ok(stdin::read_text(path, MAX_BYTES)?.text)
}

#[derive(Args, Debug)]
pub(crate) struct EvalArgs {
    /// Gold links (`{"documents": …, "pairs": {"a-b": [{"a": [s, e], "b": [s, e]}]}}`).
    #[arg(long, value_name = "FILE")]
    gold: PathBuf,
    /// The alignment to score, as written by `parallels align --format json`
    /// (or `--format collation-json`: the links its rows imply, every pair
    /// of texts sharing a row or a transposition); `-`: standard input.
    #[arg(value_name = "ALIGNMENT")]
    predicted: PathBuf,
    /// Score each gold link as a unit (a verse, say): precision with a
    /// ±1-unit tolerance, recall as the share of characters aligned to their
    /// own unit, coverage against the gold's `unmatched` spans. Links finer
    /// than a unit are not punished.
    #[arg(long)]
    units: bool,
    /// Score beads: both files are ladders (`--format ladder`, or the
    /// `[0, 1]:[0]` files of other sentence aligners and of gold sets),
    /// scored as the field scores them: strict and lax bead precision,
    /// recall and F1, precision counting the null beads (and over linked
    /// beads only). Several documents: give --gold and the prediction as
    /// folders of files with the same names.
    #[arg(long, conflicts_with = "units")]
    beads: bool,
}

pub(crate) fn run(args: EvalArgs) -> Result<ExitCode> {
    stdin::at_most_once(&[args.gold.clone(), args.predicted.clone()])?;
    if args.beads {
        return run_eval_beads(&args);
    }
    let gold_text = read(&args.gold)?;
    let gold: parallels::eval::Gold =
        serde_json::from_str(&gold_text).with_context(|| format!("{}: not a gold file", shown(&args.gold)))?;
    let pred_text = read(&args.predicted)?;
    // A collation (`--format collation-json`) is scored by the pairwise
    // links its rows imply.
    #[derive(serde::Deserialize)]
    struct Tagged {
        #[serde(default)]
        schema: String,
    }
    let not_output = || format!("{}: not a `parallels align --format json` output", shown(&args.predicted));
    let not_collation =
        || format!("{}: not a `parallels align --format collation-json` output", shown(&args.predicted));
    let tag: Tagged = serde_json::from_str(&pred_text).with_context(not_output)?;
    let pred: AlignOutput = if tag.schema == parallels::collate::COLLATION_SCHEMA {
        serde_json::from_str::<parallels::collate::CollationOutput>(&pred_text)
            .with_context(not_collation)?
            .implied_links()
    } else {
        serde_json::from_str(&pred_text).with_context(not_output)?
    };
    let bad_gold = |e: parallels::eval::EvalError| {
        let file = if e.in_prediction() { shown_as(&args.predicted) } else { shown_as(&args.gold) };
        anyhow::anyhow!("{file}: {e}")
    };
    let table = if args.units {
        parallels::eval::evaluate_units(&gold, &pred).map_err(bad_gold)?.table()
    } else {
        parallels::eval::evaluate(&gold, &pred).map_err(bad_gold)?.table()
    };
    let unknown: Vec<&str> = pred
        .documents
        .iter()
        .map(|d| d.id.as_str())
        .filter(|id| !gold.documents.is_empty() && !gold.documents.contains_key(*id))
        .collect();
    if !unknown.is_empty() {
        eprintln!("parallels: warning: documents not in the gold are not scored: {}", unknown.join(", "));
    }
    write_output(None, table.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// `eval --beads`: ladder files, or folders of them with the same names.
fn run_eval_beads(args: &EvalArgs) -> Result<ExitCode> {
    use parallels::ladder::{check_within_gold, parse_numbered, score, Counts};
    let ladder = |p: &Path| -> Result<Vec<(usize, parallels::ladder::Bead)>> {
        let beads = parse_numbered(&read(p)?).map_err(|e| anyhow::anyhow!("{}: {e}", shown_as(p)))?;
        if beads.is_empty() {
            bail!(
                "{}: holds no bead (it is empty); an empty ladder scores nothing. Give the ladder \
                 (`parallels align A B --format ladder -o FILE`)",
                shown_as(p)
            );
        }
        Ok(beads)
    };
    let mut docs: Vec<(String, PathBuf, PathBuf)> = Vec::new();
    if args.gold.is_dir() {
        let mut names: Vec<_> = std::fs::read_dir(&args.gold)
            .with_context(|| format!("{}: cannot list", shown(&args.gold)))?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name())
            .collect();
        names.sort();
        if names.is_empty() {
            bail!("{}: holds no gold file; give the folder of gold ladders", shown(&args.gold));
        }
        for name in names {
            let pred = args.predicted.join(&name);
            if !pred.is_file() {
                bail!("{}: no prediction for the gold file {}", shown(&pred), shown(&args.gold.join(&name)));
            }
            docs.push((name.to_string_lossy().into_owned(), args.gold.join(&name), pred));
        }
    } else {
        docs.push((shown(&args.predicted).to_string(), args.gold.clone(), args.predicted.clone()));
    }
    let mut table = String::from(
        "document                     gold  pred  null  strict P  strict R  strict F1  lax P  lax R  lax F1  linked-only strict F1\n",
    );
    let mut total = Counts::default();
    let mut row = |name: &str, c: &Counts| {
        let (s, l, k) = (c.strict(), c.lax(), c.strict_linked());
        table.push_str(&format!(
            "{name:<26} {:>6} {:>5} {:>5}  {:>8.4}  {:>8.4}  {:>9.4}  {:>5.3}  {:>5.3}  {:>6.4}  {:>22.4}\n",
            c.gold, c.pred, c.pred_null, s.p, s.r, s.f1, l.p, l.r, l.f1, k.f1
        ));
    };
    for (name, gold, pred) in &docs {
        let gold: Vec<_> = ladder(gold)?.into_iter().map(|(_, b)| b).collect();
        let numbered = ladder(pred)?;
        check_within_gold(&gold, &numbered).map_err(|e| anyhow::anyhow!("{}: {e}", shown_as(pred)))?;
        let pred: Vec<_> = numbered.into_iter().map(|(_, b)| b).collect();
        let c = score(&gold, &pred);
        row(name, &c);
        total += c;
    }
    row("ALL (micro)", &total);
    write_output(None, table.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
