//! Fuzzing `align` on stable Rust, with proptest: real texts (the
//! zh-variants corpus and an English one) cut at random places and mutated
//! — characters deleted, inserted, replaced, runs duplicated, moved and
//! re-scripted — and wholly random text. Whatever the input: no panic,
//! every passage and link a valid half-open range of the original texts'
//! code points, links inside their passage, scores in [0, 1], and the same
//! result when run twice.
//!
//! `spans.rs` holds the properties on generated text pieces; this file
//! starts from real prose, where the aligner's chains, completion and
//! verbatim paths all fire, and breaks it.
//!
//! Cases per property: 24 by default (bounded time in CI);
//! `PARALLELS_FUZZ_CASES=N` asks for more, for a long run:
//!
//! ```sh
//! PARALLELS_FUZZ_CASES=20000 cargo test --release -p parallels --test align_fuzz
//! ```
//!
//! Each property prints how many cases it ran.

mod common;

use common::check;
use parallels::align::{Aligner, Options};
use parallels::segment::SentenceMode;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::sync::OnceLock;

fn cases() -> u32 {
    std::env::var("PARALLELS_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24)
}

/// The real texts mutated.
fn sources() -> &'static [Vec<char>] {
    static TEXTS: OnceLock<Vec<Vec<char>>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        ["eval/zh-variants/v1.txt", "eval/zh-variants/v2.txt", "eval/zh-variants/v4.txt", "eval/en-bible/mark_kjv.txt"]
            .iter()
            .filter_map(|p| std::fs::read_to_string(format!("{root}/{p}")).ok())
            .map(|t| t.chars().collect())
            .collect()
    })
}

/// A window of a source text, at most `max` characters.
fn window(source: usize, start: usize, len: usize) -> Vec<char> {
    let texts = sources();
    let t = &texts[source % texts.len()];
    let s = start % t.len().max(1);
    t[s..(s + len).min(t.len())].to_vec()
}

/// Characters that stress the normalizer: full width, traditional forms,
/// numerals, footnote markers, censoring, combining marks, controls,
/// emoji and joiners, private use, unassigned-looking code points.
const ODD: &[char] = &[
    '１',
    '９',
    '，',
    '。',
    '！',
    '戰',
    '萬',
    '裏',
    '着',
    '〇',
    '零',
    '两',
    '万',
    '[',
    ']',
    '①',
    '注',
    '*',
    '□',
    '\u{301}',
    '\u{200d}',
    '\u{FEFF}',
    '\u{FFFD}',
    '\u{0}',
    '\r',
    '\n',
    '\t',
    ' ',
    '👩',
    '🇨',
    '\u{E000}',
    '\u{10FFFF}',
    'ﬁ',
    'İ',
    'ß',
    '“',
    '”',
    '「',
    '」',
    '…',
    '—',
    ';',
    '；',
    ',',
    '.',
    '0',
    '5',
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete {
        at: usize,
        len: usize,
    },
    Insert {
        at: usize,
        text: Vec<char>,
    },
    Replace {
        at: usize,
        with: char,
    },
    Duplicate {
        at: usize,
        len: usize,
    },
    Move {
        from: usize,
        len: usize,
        to: usize,
    },
    /// Every sentence ender from `at` on becomes a comma (one long sentence).
    Unsentence {
        at: usize,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let odd = prop::sample::select(ODD);
    prop_oneof![
        (any::<usize>(), 1usize..200).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), prop::collection::vec(odd.clone(), 1..20))
            .prop_map(|(at, text)| Mutation::Insert { at, text }),
        (any::<usize>(), "\\PC{1,12}").prop_map(|(at, s)| Mutation::Insert { at, text: s.chars().collect() }),
        (any::<usize>(), odd).prop_map(|(at, with)| Mutation::Replace { at, with }),
        (any::<usize>(), 1usize..400).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        (any::<usize>(), 1usize..400, any::<usize>()).prop_map(|(from, len, to)| Mutation::Move { from, len, to }),
        any::<usize>().prop_map(|at| Mutation::Unsentence { at }),
    ]
}

fn apply(text: &mut Vec<char>, m: &Mutation) {
    let n = text.len();
    let pos = |x: usize| if n == 0 { 0 } else { x % (n + 1) };
    match m {
        Mutation::Delete { at, len } => {
            let s = pos(*at);
            text.drain(s..(s + len).min(n));
        }
        Mutation::Insert { at, text: t } => {
            let s = pos(*at);
            text.splice(s..s, t.iter().copied());
        }
        Mutation::Replace { at, with } => {
            if n > 0 {
                text[at % n] = *with;
            }
        }
        Mutation::Duplicate { at, len } => {
            let s = pos(*at);
            let piece: Vec<char> = text[s..(s + len).min(n)].to_vec();
            text.splice(s..s, piece);
        }
        Mutation::Move { from, len, to } => {
            let s = pos(*from);
            let piece: Vec<char> = text.drain(s..(s + len).min(n)).collect();
            let t = if text.is_empty() { 0 } else { to % (text.len() + 1) };
            text.splice(t..t, piece);
        }
        Mutation::Unsentence { at } => {
            for c in text.iter_mut().skip(pos(*at)) {
                if matches!(*c, '。' | '！' | '？' | '.' | '!' | '?' | '\n') {
                    *c = '，';
                }
            }
        }
    }
}

/// Align both ways, twice one way; check every span and the determinism.
fn align_checked(aligner: &Aligner, a: &str, b: &str) -> Result<(), TestCaseError> {
    let (la, lb) = (a.chars().count() as u32, b.chars().count() as u32);
    let first = aligner.align_texts(a, b);
    check(&first, la, lb)?;
    check(&aligner.align_texts(b, a), lb, la)?;
    prop_assert_eq!(first, aligner.align_texts(a, b), "two runs differ");
    Ok(())
}

/// Run `test` for [`cases`] cases of `strategy`; print how many ran.
fn fuzz<S: Strategy>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) {
    let mut runner = TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() });
    let ran = std::sync::atomic::AtomicU64::new(0);
    let result = runner.run(&strategy, |v| {
        ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        test(v)
    });
    eprintln!("{name}: {} executions", ran.into_inner());
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
}

#[test]
fn a_real_text_against_a_mutated_copy_gives_valid_spans() {
    assert!(!sources().is_empty(), "no source texts under eval/");
    let strategy = (any::<usize>(), any::<usize>(), 0usize..3000, prop::collection::vec(mutation(), 0..12));
    fuzz("mutated copy", strategy, |(source, start, len, mutations)| {
        let a = window(source, start, len);
        let mut b = a.clone();
        for m in &mutations {
            apply(&mut b, m);
        }
        let (a, b): (String, String) = (a.into_iter().collect(), b.into_iter().collect());
        let aligner = Aligner::new(Options::default());
        align_checked(&aligner, &a, &b)
    });
}

#[test]
fn two_mutated_windows_of_different_texts_give_valid_spans() {
    let side = || (any::<usize>(), any::<usize>(), 0usize..2000, prop::collection::vec(mutation(), 0..6));
    fuzz("two windows", (side(), side(), any::<bool>(), any::<bool>()), |(x, y, semantic, lines)| {
        let make = |(source, start, len, mutations): (usize, usize, usize, Vec<Mutation>)| {
            let mut t = window(source, start, len);
            for m in &mutations {
                apply(&mut t, m);
            }
            t.into_iter().collect::<String>()
        };
        let (a, b) = (make(x), make(y));
        // One sentence a line, as sentence aligners take texts, half the
        // time (the windows' own line breaks are kept).
        let sentences = if lines { SentenceMode::Lines } else { SentenceMode::Text };
        let opts = Options { meaning: semantic, sentences, ..Options::default() };
        align_checked(&Aligner::new(opts), &a, &b)
    });
}

#[test]
fn random_text_and_random_bytes_read_as_text_give_valid_spans() {
    let strategy = ("\\PC{0,400}", prop::collection::vec(any::<u8>(), 0..600), prop::collection::vec(mutation(), 0..6));
    fuzz("random", strategy, |(a, bytes, mutations)| {
        // Bytes as the reader would decode them (lossy UTF-8).
        let b = String::from_utf8_lossy(&bytes).into_owned();
        let mut c: Vec<char> = a.chars().collect();
        for m in &mutations {
            apply(&mut c, m);
        }
        let c: String = c.into_iter().collect();
        let aligner = Aligner::new(Options::default());
        align_checked(&aligner, &a, &b)?;
        align_checked(&aligner, &a, &c)
    });
}
