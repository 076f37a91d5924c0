//! `--format ladder`: two texts' beads as sentence indices
//! ([`crate::ladder`]).

use super::writer::{Run, WriteError, Writer};

/// Two texts' beads, one a line, `[0, 1]:[0]`, null beads included.
pub struct Ladder;

impl Writer for Ladder {
    fn name(&self) -> &'static str {
        "ladder"
    }

    fn about(&self) -> &'static str {
        "Two texts' beads as sentence indices, one a line, `[0, 1]:[0]`, null beads `[5]:[]` included: what \
         sentence aligners write and their scorers read. Sentence k is the k-th non-blank line (`--sentences \
         lines`, the default with this format)"
    }

    fn two_texts(&self) -> bool {
        true
    }

    /// Sentence aligners take texts one sentence a line: cut at sentence
    /// enders, its indices would name other sentences than a gold's.
    fn lines(&self) -> bool {
        true
    }

    /// The output's pairs put the smaller id first; the ladder's A is the
    /// first text given.
    fn write(&self, run: &Run, out: &mut Vec<u8>) -> Result<(), WriteError> {
        self.check(run.docs.len())?;
        let (ids, prepared) = (run.ids, run.prepared);
        let (a, b) = (&ids[0], &ids[1]);
        let mut passages = Vec::new();
        for p in run.output.pairs.iter().filter(|p| (&p.a, &p.b) == (a, b) || (&p.a, &p.b) == (b, a)) {
            let flip = &p.a != a;
            passages.extend(p.passages.iter().map(|x| if flip { x.clone().flipped() } else { x.clone() }));
        }
        let (sa, sb) = (&prepared[0].seg.sentences, &prepared[1].seg.sentences);
        out.extend_from_slice(crate::ladder::write(&crate::ladder::beads_of_pair(sa, sb, &passages)).as_bytes());
        Ok(())
    }
}
