//! The reader: inputs in order, each read by its kind, every record
//! through the empty and duplicate checks, problems counted.

use std::collections::VecDeque;
use std::path::Path;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::doc::{CorpusDoc, Format, Origin, Source};
use super::error::CorpusError;
use super::formats::parquet::{check_table_columns, ParquetSource};
use super::formats::{Record, Records};
use super::inputs::Input;
use super::options::CorpusOptions;
use super::raw::{without_prefix, RawDoc};
use super::summary::Summary;
use super::walk::{folder_group, id_from_relative, relative_to, wanted_extensions, Walk};
use crate::plumbing::problem::{Problem, ProblemKind};
use crate::plumbing::Progress;
use crate::read::{self, shown, ReadError};

/// Reads documents from inputs, in order; see the module docs.
pub struct CorpusReader {
    options: CorpusOptions,
    /// [`CorpusOptions::extensions`] in lower case, without dots.
    extensions: Vec<String>,
    inputs: std::iter::Enumerate<std::vec::IntoIter<Input>>,
    /// Every input, as given (for [`CorpusReader::inputs`]).
    given: Vec<Input>,
    /// The input being read and its index.
    current: Option<(Reading, usize)>,
    /// Problems found while listing a folder, handed on before going on.
    pending: VecDeque<Problem>,
    /// Every id handed on, with where it came from and whether it was a
    /// number.
    seen: FxHashMap<Box<str>, (Source, bool)>,
    /// The JSON lines not yet parsed (of one item, or of a batch of
    /// [`CorpusReader::next_batch`]), kept between calls so that it does not
    /// grow again each time.
    batch_bytes: Vec<u8>,
    summary: Summary,
    finished: bool,
}

impl CorpusReader {
    /// A reader over `inputs`, in order. Checks the options against the
    /// inputs, and the columns of every Parquet file (its footer only);
    /// nothing else is read until the first call to `next`.
    pub fn new(inputs: Vec<Input>, options: CorpusOptions) -> Result<Self, CorpusError> {
        check_options(&inputs, &options)?;
        for input in &inputs {
            match input {
                Input::Records { path, format } => format.reader().check(path, &options)?,
                Input::Table(table) => check_table_columns(table, &options)?,
                Input::Dir { .. } | Input::Text { .. } => {}
            }
        }
        let extensions = wanted_extensions(&options);
        Ok(CorpusReader {
            options,
            extensions,
            given: inputs.clone(),
            inputs: inputs.into_iter().enumerate(),
            current: None,
            pending: VecDeque::new(),
            seen: FxHashMap::default(),
            batch_bytes: Vec::new(),
            summary: Summary::default(),
            finished: false,
        })
    }

    /// What has been read and skipped so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The options the reader was made with.
    pub fn options(&self) -> &CorpusOptions {
        &self.options
    }

    /// The inputs the reader was made with, in order: what
    /// [`Origin::input`](super::Origin::input) indexes (a stage that reads
    /// documents again, such as `dedup`'s exact check, opens them).
    pub fn inputs(&self) -> &[Input] {
        &self.given
    }

    /// Count a problem; with `strict`, end the iteration after it.
    fn problem(&mut self, problem: Problem) -> Problem {
        *self.summary.skipped.entry(problem.kind).or_insert(0) += 1;
        if self.options.strict {
            self.finished = true;
        }
        problem
    }

    fn open(&mut self, input: Input) -> Result<Reading, Problem> {
        match input {
            Input::Dir { path, root } => Ok(Reading::Walk(Walk::dir(path, root))),
            Input::Text { path, root } => Ok(Reading::Walk(Walk::file(path, root))),
            Input::Records { path, format } => {
                format.reader().open(&path, &self.options, &mut self.summary).map(Reading::Records)
            }
            Input::Table(table) => ParquetSource::of_table(&table, &self.options, &mut self.summary)
                .map(|table| Reading::Records(Box::new(table))),
        }
    }

    /// The next item of `reading`, input `input` (a JSON line's bytes
    /// appended to `bytes`, to be parsed later), or `None` when it is
    /// exhausted.
    fn step(&mut self, reading: &mut Reading, input: usize, bytes: &mut Vec<u8>) -> Option<Record> {
        match reading {
            Reading::Walk(walk) => {
                let path = match walk.next(&self.extensions, &mut self.summary, &mut self.pending)? {
                    Ok(path) => path,
                    Err(problem) => return Some(Record::Read(Err(problem))),
                };
                Some(Record::Read(self.read_text(&path, &walk.root, input)))
            }
            Reading::Records(records) => records.next(input, &self.options, &mut self.summary, bytes),
        }
    }

    /// The next item of the corpus before JSON parsing, or `None` at the
    /// end.
    fn next_unparsed(&mut self, bytes: &mut Vec<u8>) -> Option<Record> {
        loop {
            if self.finished {
                return None;
            }
            if let Some(problem) = self.pending.pop_front() {
                return Some(Record::Read(Err(problem)));
            }
            let Some((mut reading, input)) = self.current.take() else {
                let Some((index, input)) = self.inputs.next() else {
                    self.finished = true;
                    return None;
                };
                match self.open(input) {
                    Ok(reading) => self.current = Some((reading, index)),
                    Err(problem) => return Some(Record::Read(Err(problem))),
                }
                continue;
            };
            let Some(item) = self.step(&mut reading, input, bytes) else {
                continue; // this input is exhausted
            };
            self.current = Some((reading, input));
            return Some(item);
        }
    }

    /// The empty and duplicate checks; a document that passes is counted.
    fn admit(&mut self, raw: RawDoc) -> Result<CorpusDoc, Problem> {
        if super::admit::is_blank(&raw.text) {
            let message = if raw.text.is_empty() {
                format!("document \"{}\" is empty", raw.id)
            } else {
                format!("document \"{}\" has only whitespace ({} characters)", raw.id, raw.text.chars().count())
            };
            return Err(Problem::new(raw.origin.source.to_string(), ProblemKind::Empty, message));
        }
        if let Some((first, numeric)) = self.seen.get(raw.id.as_str()) {
            // Ids are compared as text: say so when one was a number.
            let note = match (*numeric, raw.numeric_id) {
                (true, false) => {
                    format!(" (there as the number {}, here as a string: ids are compared as text)", raw.id)
                }
                (false, true) => {
                    format!(" (there as a string, here as the number {}: ids are compared as text)", raw.id)
                }
                _ => String::new(),
            };
            let message = format!("duplicate id \"{}\": first used by {first}{note}; this one is skipped", raw.id);
            return Err(Problem::new(raw.origin.source.to_string(), ProblemKind::DuplicateId, message));
        }
        self.seen.insert(raw.id.as_str().into(), (raw.origin.source.clone(), raw.numeric_id));
        self.summary.documents += 1;
        if raw.replaced > 0 && raw.origin.source.format == Some(Format::JSONL) {
            // Lone surrogates read as U+FFFD.
            self.summary.repaired += 1;
            self.summary.first_repaired.get_or_insert_with(|| raw.origin.source.to_string());
        }
        Ok(CorpusDoc {
            id: raw.id,
            origin: raw.origin,
            text: raw.text,
            encoding: raw.encoding,
            replaced: raw.replaced,
            group: raw.group,
            meta: raw.meta,
        })
    }

    fn read_text(&mut self, path: &Path, root: &Path, input: usize) -> Result<RawDoc, Problem> {
        let source = shown(path).to_string();
        let len = std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| m.len());
        let max = self.options.max_document_bytes;
        if let Some(len) = len.filter(|&len| len > max && read::Compression::of(path).is_none()) {
            let message = format!("{len} bytes, more than the limit of {max} bytes per document; it is skipped");
            return Err(Problem::new(source, ProblemKind::TooLarge, message));
        }
        let doc = read::read_document_within(path, max).map_err(|e| {
            let kind = match e {
                ReadError::TooLarge { .. } => ProblemKind::TooLarge,
                _ => ProblemKind::Unreadable,
            };
            let message = without_prefix(e.to_string(), &source);
            let message = if kind == ProblemKind::TooLarge { format!("{message}; it is skipped") } else { message };
            Problem::new(source.as_str(), kind, message)
        })?;
        self.summary.files += 1;
        self.summary.bytes += len.unwrap_or(0);
        let relative = relative_to(path, root);
        let group = self.options.group_by_dir.then(|| folder_group(&relative));
        Ok(RawDoc {
            id: id_from_relative(&relative),
            numeric_id: false,
            text: doc.text,
            encoding: doc.encoding,
            replaced: doc.replaced,
            group,
            meta: serde_json::Map::new(),
            origin: Origin { input, source: Source::whole(path), bytes: None },
        })
    }
}
impl CorpusReader {
    /// The next items, in input order, exactly as [`Iterator::next`] would
    /// give them one by one: at most `max_items`, fewer once they hold
    /// `max_bytes` of JSON Lines or the input ends (empty at the end). JSON
    /// lines are parsed in parallel on the rayon pool, so a reader thread
    /// that hands batches to workers does not have to parse them all
    /// itself.
    pub fn next_batch(&mut self, max_items: usize, max_bytes: usize) -> Vec<Result<CorpusDoc, Problem>> {
        let mut bytes = std::mem::take(&mut self.batch_bytes);
        bytes.clear();
        let mut items: Vec<Record> = Vec::new();
        while items.len() < max_items.max(1) && bytes.len() < max_bytes {
            let Some(item) = self.next_unparsed(&mut bytes) else {
                break;
            };
            // With --strict the first problem ends the reading.
            let stop = self.options.strict && matches!(item, Record::Read(Err(_)));
            items.push(item);
            if stop {
                break;
            }
        }
        let options = &self.options;
        let parsed: Vec<Result<RawDoc, Problem>> =
            items.into_par_iter().map(|item| item.parse(&bytes, options)).collect();
        self.batch_bytes = bytes;
        let mut out = Vec::with_capacity(parsed.len());
        for item in parsed {
            let item = item.and_then(|raw| self.admit(raw)).map_err(|problem| self.problem(problem));
            let stop = item.is_err() && self.options.strict;
            out.push(item);
            if stop {
                break;
            }
        }
        out
    }
}

/// Why [`CorpusReader::read_batches`] stopped before the end.
#[derive(Debug)]
pub enum BatchStop<E> {
    /// The first problem met with [`CorpusOptions::strict`] (not handed to
    /// the progress: the caller reports it).
    Strict(Problem),
    /// The consumer's error.
    Consumer(E),
}

impl CorpusReader {
    /// Batches read ahead of the consumer, at most.
    const AHEAD: usize = 2;

    /// Read the whole corpus on a thread of its own and hand the documents
    /// to `consume`, in input order, in batches of at most `max_docs`
    /// documents, fewer once they hold `max_bytes` of JSON Lines (see
    /// [`CorpusReader::next_batch`]; a batch is never empty). The reader
    /// runs at most two batches ahead; JSON lines are parsed on the rayon
    /// pool. Problems go to `progress` as they are met, from the reading
    /// thread, except the one that stops a strict reading, which is
    /// returned. A consumer's error stops the reading too.
    ///
    /// `scan` and `dedup` read their corpus through this one function.
    pub fn read_batches<E: Send>(
        &mut self,
        max_docs: usize,
        max_bytes: usize,
        progress: &dyn Progress,
        mut consume: impl FnMut(Vec<CorpusDoc>) -> Result<(), E>,
    ) -> Result<(), BatchStop<E>> {
        let strict = self.options.strict;
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<CorpusDoc>>(Self::AHEAD);
        std::thread::scope(|scope| {
            let reading = scope.spawn(move || loop {
                let items = self.next_batch(max_docs, max_bytes);
                if items.is_empty() {
                    return Ok(());
                }
                let mut batch: Vec<CorpusDoc> = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Ok(doc) => batch.push(doc),
                        Err(problem) if strict => return Err(problem),
                        Err(problem) => progress.problem(&problem),
                    }
                }
                // The consumer stopped: so does the reading.
                if !batch.is_empty() && tx.send(batch).is_err() {
                    return Ok(());
                }
            });
            let mut consumed = Ok(());
            for batch in rx.iter() {
                consumed = consume(batch);
                if consumed.is_err() {
                    break;
                }
            }
            // Dropping the receiver ends a reading still under way.
            drop(rx);
            let read = reading.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            consumed.map_err(BatchStop::Consumer)?;
            read.map_err(BatchStop::Strict)
        })
    }
}

impl Iterator for CorpusReader {
    type Item = Result<CorpusDoc, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut bytes = std::mem::take(&mut self.batch_bytes);
        bytes.clear();
        let item = self.next_unparsed(&mut bytes);
        let raw = item.map(|item| item.parse(&bytes, &self.options));
        self.batch_bytes = bytes;
        Some(raw?.and_then(|raw| self.admit(raw)).map_err(|problem| self.problem(problem)))
    }
}

fn check_options(inputs: &[Input], options: &CorpusOptions) -> Result<(), CorpusError> {
    let fail = |message: &str| Err(CorpusError::Options(message.to_owned()));
    if options.id_field.is_empty() || options.text_field.is_empty() {
        return fail("the id and text field names must not be empty");
    }
    if options.id_field == options.text_field {
        return fail("the id field and the text field must be different fields");
    }
    let has_text = inputs.iter().any(|i| matches!(i, Input::Dir { .. } | Input::Text { .. }));
    let has_records = inputs.iter().any(|i| matches!(i, Input::Records { .. } | Input::Table(_)));
    if let Some(group) = &options.group_field {
        if options.group_by_dir {
            return fail("`group` and `group_by_dir` cannot be used together");
        }
        if group.is_empty() || *group == options.id_field || *group == options.text_field {
            return fail("the group field must be named, and differ from the id and text fields");
        }
        if has_text {
            return fail("`group` groups JSON Lines and Parquet records by a field; for text files use `group_by_dir`");
        }
    }
    if options.group_by_dir && has_records {
        return fail("`group_by_dir` groups text files by folder; for JSON Lines and Parquet use `group`");
    }
    Ok(())
}

/// An input being read: a folder's (or one file's) text files, or a file
/// of records in its format.
enum Reading {
    Walk(Walk),
    Records(Box<dyn Records>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_can_move_to_another_thread() {
        fn send<T: Send>() {}
        send::<CorpusReader>();
        send::<CorpusDoc>();
        send::<Problem>();
    }
}
