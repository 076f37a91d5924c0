//! The interface every format of records implements (a leaf: the formats
//! and the registry import it, it imports neither).

use std::ops::Range;
use std::path::Path;

use crate::corpus::doc::Origin;
use crate::corpus::error::CorpusError;
use crate::corpus::options::CorpusOptions;
use crate::corpus::raw::RawDoc;
use crate::corpus::summary::Summary;
use crate::plumbing::problem::Problem;

/// A file format of records; see the module docs.
pub(crate) trait RecordFormat: Sync {
    /// Its name, as messages and [`Format::name`] give it.
    fn name(&self) -> &'static str;
    /// Its file extensions, lower case, without the dot.
    fn extensions(&self) -> &'static [&'static str];
    /// Whether its records are rows (0-based, `path#row`) rather than
    /// lines (1-based, `path:line`).
    fn rows(&self) -> bool;
    /// Why a compressed file of it (`.gz`, `.zst`) is refused; `None` when
    /// it is read, decompressed as it is read.
    fn refuses_compressed(&self) -> Option<&'static str> {
        None
    }
    /// What is checked before reading (a file that cannot be opened is
    /// reported when it is read, as a problem).
    fn check(&self, _path: &Path, _options: &CorpusOptions) -> Result<(), CorpusError> {
        Ok(())
    }
    /// Open a file of it for reading (counted in `summary`).
    fn open(&self, path: &Path, options: &CorpusOptions, summary: &mut Summary) -> Result<Box<dyn Records>, Problem>;
    /// How a record's own bytes ([`Origin::bytes`], without the line
    /// ending) are read again into its document, as the first reading read
    /// them; `None` when its records have no bytes of their own.
    fn reparse(&self) -> Option<Parse> {
        None
    }
}

/// A record's bytes into its document: the parse of [`Record::Deferred`].
pub(crate) type Parse = fn(&[u8], Origin, &CorpusOptions) -> Result<RawDoc, Problem>;

/// A file of records being read.
pub(crate) trait Records: Send {
    /// The next record of input `input` (a record's bytes appended to
    /// `bytes`, when it is deferred), or `None` at the end.
    fn next(
        &mut self,
        input: usize,
        options: &CorpusOptions,
        summary: &mut Summary,
        bytes: &mut Vec<u8>,
    ) -> Option<Record>;
}

/// A record as a [`Records`] hands it on.
pub(crate) enum Record {
    /// Read: a document, or the problem that it is none.
    Read(Result<RawDoc, Problem>),
    /// Bytes of the buffer still to parse, by `parse` (in parallel with the
    /// other records of a batch).
    Deferred {
        /// Where the record's bytes are in the buffer.
        bytes: Range<usize>,
        /// Its origin.
        origin: Origin,
        /// How they are read.
        parse: Parse,
    },
}

impl Record {
    /// The document (or problem) of a record, its bytes in `buffer`.
    pub(crate) fn parse(self, buffer: &[u8], options: &CorpusOptions) -> Result<RawDoc, Problem> {
        match self {
            Record::Read(result) => result,
            Record::Deferred { bytes, origin, parse } => parse(&buffer[bytes], origin, options),
        }
    }
}
