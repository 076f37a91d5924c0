//! The n-way collation table of all witnesses (issue 18) on real texts: the
//! bundled example in every argument order, the zh-variants corpus against
//! its pairwise gold (read in place from the shared corpus folder beside
//! the repository), and the exports (TEI, TMX, CSV/TSV, bitext) parsed back.

use parallels::align::{Aligner, Options};
use parallels::collate::{collate, export, Collation, CollationOutput, ExportError, Table};
use parallels::eval::{evaluate, Gold};
use parallels::read::{read_document, Document};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name)
}

/// A file of the shared corpus folder beside the repository (read in place,
/// never copied into it).
fn shared(name: &str) -> PathBuf {
    let path = PathBuf::from(format!("{}/../../../shared/corpus/{name}", env!("CARGO_MANIFEST_DIR")));
    assert!(path.exists(), "{}: missing (the shared corpus folder belongs beside the repository)", path.display());
    path
}

fn read(paths: &[PathBuf]) -> Vec<Document> {
    paths.iter().map(|p| read_document(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).collect()
}

fn collated(docs: &[Document]) -> (Collation, Table) {
    let c = collate(&Aligner::new(Options::default()), docs).unwrap();
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let t = c.table(&texts);
    (c, t)
}

/// Every sentence of every witness is in exactly one cell, and each column
/// reads its witness in order; a cell covering several rows repeats its
/// sentences in the rows below, marked continued.
fn assert_every_sentence_once_in_order(c: &Collation, t: &Table) {
    for (w, p) in c.prepared.iter().enumerate() {
        let runs: Vec<[u32; 2]> =
            t.rows.iter().filter(|r| !r.cells[w].is_continued()).filter_map(|r| r.cells[w].sentences).collect();
        let mut next = 0u32;
        for s in &runs {
            assert_eq!(s[0], next, "{}: a column jumps (run {s:?} after sentence {next})", t.ids[w]);
            assert!(s[1] > s[0]);
            next = s[1];
        }
        assert_eq!(next as usize, p.seg.sentences.len(), "{}: not every sentence is in the table", t.ids[w]);
    }
}

/// Rows as witness id → sentence run, sorted by id: the table up to column
/// order.
fn by_id(t: &Table) -> Vec<BTreeMap<String, Option<[u32; 2]>>> {
    t.rows.iter().map(|r| t.ids.iter().cloned().zip(r.cells.iter().map(|c| c.sentences)).collect()).collect()
}

#[test]
fn the_example_in_every_argument_order_has_every_sentence_once_and_the_same_rows() {
    let names = ["v1.txt", "v2.txt", "v3.txt"];
    let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    let mut first: Option<Vec<BTreeMap<String, Option<[u32; 2]>>>> = None;
    for order in orders {
        let paths: Vec<PathBuf> = order.iter().map(|&k| example(names[k])).collect();
        let docs = read(&paths);
        let (c, t) = collated(&docs);
        assert_every_sentence_once_in_order(&c, &t);
        let ids: Vec<&str> = order.iter().map(|&k| &names[k][..2]).collect();
        assert_eq!(t.ids, ids, "columns follow the argument order");
        let rows = by_id(&t);
        match &first {
            None => first = Some(rows),
            Some(f) => assert!(f == &rows, "order {ids:?}: other rows than the first order's"),
        }
    }
}

#[test]
fn with_the_abridgement_first_what_the_two_full_versions_share_is_all_there() {
    let docs = read(&[example("v3.txt"), example("v1.txt"), example("v2.txt")]);
    let (c, t) = collated(&docs);
    assert_every_sentence_once_in_order(&c, &t);
    // Rows the abridgement lacks, where both full versions have text.
    let without_v3 = t.rows.iter().filter(|r| r.cells[0].is_gap() && !r.cells[1].is_gap() && !r.cells[2].is_gap());
    assert!(without_v3.count() >= 20, "the first half (absent from v3) is missing from the table");
    // Every v1–v2 link of the pairwise alignment stands in one row, or is
    // marked as moved.
    let pair = c.output.pairs.iter().find(|p| p.a == "v1" && p.b == "v2").expect("v1 and v2 share passages");
    let (v1, v2) = (&c.prepared[1].seg.sentences, &c.prepared[2].seg.sentences);
    let row_of = |w: usize, pos: u32, sents: &[parallels::segment::Sentence]| {
        let s = sents.partition_point(|x| x.end <= pos) as u32;
        t.rows.iter().position(|r| r.cells[w].sentences.is_some_and(|q| q[0] <= s && s < q[1]))
    };
    let (mut links, mut together) = (0, 0);
    for l in pair.passages.iter().flat_map(|p| &p.links) {
        links += 1;
        if row_of(1, l.a[0], v1) == row_of(2, l.b[0], v2) {
            together += 1;
        }
    }
    assert!(together * 100 >= links * 95, "{together} of {links} v1–v2 links in one row");
}

#[test]
fn moved_paragraphs_are_marked_with_the_rows_of_the_other_place() {
    let docs = read(&[example("v1.txt"), example("v2.txt"), example("v3.txt")]);
    let (_, t) = collated(&docs);
    let moved: Vec<usize> = (0..t.rows.len()).filter(|&r| t.rows[r].transposed()).collect();
    assert!(!moved.is_empty(), "v3 moves two paragraphs; no row is marked");
    for &r in &moved {
        for (w, cell) in t.rows[r].cells.iter().enumerate() {
            for &o in &cell.elsewhere {
                assert!(o < t.rows.len() && o != r, "row {r}: points to row {o}");
                let there = &t.rows[o];
                if cell.is_gap() {
                    assert!(!there.cells[w].is_gap(), "row {r}: {} has it at row {o}, but not there", t.ids[w]);
                } else {
                    assert!(there.cells[w].is_gap(), "row {r}: row {o} should lack {}", t.ids[w]);
                    assert!(there.present() > 0);
                }
            }
        }
    }
    // The moved material of v3 is in the table, in v3's own order (checked
    // above) and pointing back: some gap of v3 points to a row holding v3.
    assert!(moved.iter().any(|&r| t.rows[r].cells[2].is_gap() && !t.rows[r].cells[2].elsewhere.is_empty()));
}

/// zh-variants: the pairwise links the table implies, scored against the
/// pairwise gold, are no worse than the pairwise alignment itself, and the
/// rows are the same with the arguments in another order.
#[test]
fn zh_variants_implied_links_score_as_well_as_the_pairwise_alignment() {
    let ids = ["v1", "v2", "v3", "v4", "v2_trad"];
    let paths: Vec<PathBuf> = ids.iter().map(|id| shared(&format!("zh-variants/{id}.txt"))).collect();
    let docs = read(&paths);
    let (c, t) = collated(&docs);
    assert_every_sentence_once_in_order(&c, &t);
    let other: Vec<PathBuf> = [2, 3, 4, 0, 1].iter().map(|&k| paths[k].clone()).collect();
    let (c2, t2) = collated(&read(&other));
    assert_every_sentence_once_in_order(&c2, &t2);
    assert!(by_id(&t) == by_id(&t2), "other rows for the arguments in another order");
    let gold: Gold = serde_json::from_str(&std::fs::read_to_string(shared("zh-variants/gold.json")).unwrap()).unwrap();
    let pairwise = evaluate(&gold, &c.output).unwrap();
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let out = CollationOutput::new(&t, c.witnesses(), &texts);
    let implied = evaluate(&gold, &out.implied_links()).unwrap();
    eprintln!("pairwise:\n{}\ntable:\n{}", pairwise.table(), implied.table());
    let (p, q) = (pairwise.link, implied.link);
    // No worse: equal or better, up to rounding.
    assert!(q.precision() >= p.precision() - 1e-9, "P {:.4} < pairwise {:.4}", q.precision(), p.precision());
    assert!(q.recall() >= p.recall() - 1e-9, "R {:.4} < pairwise {:.4}", q.recall(), p.recall());
    // Pair by pair too: what the table implies for the abridgement (v3)
    // is not coarser than what was aligned with it.
    for (p, q) in pairwise.pairs.iter().zip(&implied.pairs) {
        assert_eq!((&p.a, &p.b), (&q.a, &q.b));
        let (f, g) = (p.link.f1(), q.link.f1());
        assert!(g >= f - 1e-9, "{}-{}: link F1 {g:.4} < pairwise {f:.4}", p.a, p.b);
    }
}

#[test]
fn the_json_output_slices_the_original_texts_and_reads_back() {
    let docs = read(&[example("v2.txt"), example("v3.txt"), example("v1.txt")]);
    let (c, t) = collated(&docs);
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let out = CollationOutput::new(&t, c.witnesses(), &texts);
    let json = serde_json::to_string(&out).unwrap();
    let back: CollationOutput = serde_json::from_str(&json).unwrap();
    assert_eq!(back, out);
    assert_eq!(back.schema, "parallels.collation/1");
    for row in &back.rows {
        for (w, cell) in row.cells.iter().enumerate() {
            let Some(cell) = cell else { continue };
            let (Some(span), Some(bytes), Some(text)) = (cell.span, cell.bytes, &cell.text) else {
                assert!(cell.continued || !cell.elsewhere.is_empty(), "a gap object without elsewhere");
                continue;
            };
            let chars: String = texts[w].chars().skip(span[0] as usize).take((span[1] - span[0]) as usize).collect();
            assert_eq!(&chars, text);
            assert_eq!(&texts[w][bytes[0] as usize..bytes[1] as usize], text);
        }
    }
}

/// Two short versions whose sentences hold commas, quotes and tabs.
fn awkward_pair() -> Vec<Document> {
    let a = "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。\n\
             他说：\"城墙, 必须守住\"，然后\t转身走下了棱堡的台阶。\n\
             十七世纪中叶，城中约有两万三千名居民，其中一半是商人和他们的伙计。\n\
             城里有七座教堂、一所大学和一座专门存放琥珀的\"石头仓库\"。\n";
    let b = "魏斯明德位于布伦纳河注入波罗的海之处，是一座以粮食与琥珀贸易著称的港口城市。\n\
             他说：\"城墙, 一定要守住\"，随后\t转身走下棱堡的台阶。\n\
             十七世纪中叶，城中约有二万三千居民，其中半数是商人及其伙计。\n\
             城里有七座教堂、一所大学与一座专门存放琥珀的\"石头仓库\"。\n";
    [("a.txt", a), ("b.txt", b)]
        .iter()
        .map(|(p, t)| Document {
            id: p[..1].to_string(),
            path: PathBuf::from(p),
            text: t.to_string(),
            encoding: "utf-8".into(),
            replaced: 0,
        })
        .collect()
}

/// Every record of the CSV and TSV exports of `docs` reads back as the
/// table's row: a gap an empty field, any other cell its witness's text,
/// also in the rows below the first of a cell covering several. Returns
/// how many continued cells were checked.
fn assert_delimited_round_trips(docs: &[Document]) -> usize {
    let (_, t) = collated(docs);
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let mut continued = 0;
    for delimiter in [b',', b'\t'] {
        let bytes = export::delimited(&t, &texts, delimiter).unwrap();
        let mut reader = csv::ReaderBuilder::new().delimiter(delimiter).from_reader(bytes.as_slice());
        assert_eq!(reader.headers().unwrap().iter().collect::<Vec<_>>(), t.ids);
        let records: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(records.len(), t.rows.len());
        // The text each witness's open cell started with, carried down.
        let mut above: Vec<Option<String>> = vec![None; t.ids.len()];
        for (r, (rec, row)) in records.iter().zip(&t.rows).enumerate() {
            for (w, cell) in row.cells.iter().enumerate() {
                let want: String = match cell.span {
                    Some(s) => texts[w].chars().skip(s[0] as usize).take((s[1] - s[0]) as usize).collect(),
                    None => String::new(),
                };
                assert_eq!(&rec[w], want, "row {r}, {}", t.ids[w]);
                assert_eq!(rec[w].is_empty(), cell.is_gap(), "row {r}, {}: an empty field that is no gap", t.ids[w]);
                if cell.is_continued() {
                    assert_eq!(above[w].as_deref(), Some(&rec[w]), "row {r}, {}: not the text above", t.ids[w]);
                    continued += 1;
                } else {
                    above[w] = (!cell.is_gap()).then(|| rec[w].to_string());
                }
            }
        }
    }
    continued
}

#[test]
fn csv_and_tsv_round_trip_through_a_csv_reader() {
    let docs = awkward_pair();
    let (_, t) = collated(&docs);
    assert!(t.rows.iter().any(|r| r.present() == 2), "the two versions are not linked");
    assert_delimited_round_trips(&docs);
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    for delimiter in [b',', b'\t'] {
        let bytes = export::delimited(&t, &texts, delimiter).unwrap();
        let mut reader = csv::ReaderBuilder::new().delimiter(delimiter).from_reader(bytes.as_slice());
        let all: String = reader.records().map(|r| r.unwrap().iter().collect::<String>()).collect();
        assert!(all.contains("\"城墙, 必须守住\"") && all.contains('\t'), "quotes, commas or tabs lost");
    }
}

/// A cell covering several rows (the abridgement's one sentence beside
/// three) is written in each of its rows: every record says all its row
/// holds, and an empty field is always a gap.
#[test]
fn csv_writes_a_spanning_cell_in_every_row_it_covers() {
    let docs = read(&[example("v3.txt"), example("v1.txt"), example("v2.txt")]);
    let continued = assert_delimited_round_trips(&docs);
    assert!(continued > 0, "no cell of the example covers several rows: the check checked nothing");
}

#[test]
fn tmx_is_tmx_1_4_and_the_bitext_has_one_line_per_link() {
    let docs = awkward_pair();
    let (_, t) = collated(&docs);
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let xml = String::from_utf8(export::tmx(&t, &texts, ["zh", "zh-Hant"]).unwrap()).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "tmx");
    assert_eq!(root.attribute("version"), Some("1.4"));
    let header = root.children().find(|n| n.has_tag_name("header")).expect("a header");
    for attr in ["creationtool", "creationtoolversion", "segtype", "o-tmf", "adminlang", "srclang", "datatype"] {
        assert!(header.attribute(attr).is_some_and(|v| !v.is_empty()), "header without {attr}");
    }
    let body = root.children().find(|n| n.has_tag_name("body")).expect("a body");
    let tus: Vec<_> = body.children().filter(|n| n.is_element()).collect();
    let linked = t
        .blocks()
        .into_iter()
        .filter(|b| t.span_in(b.clone(), 0).is_some() && t.span_in(b.clone(), 1).is_some())
        .count();
    assert_eq!(tus.len(), linked);
    const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";
    for tu in &tus {
        assert!(tu.has_tag_name("tu"));
        let tuvs: Vec<_> = tu.children().filter(|n| n.is_element()).collect();
        assert_eq!(tuvs.len(), 2);
        let langs: Vec<_> = tuvs.iter().map(|v| v.attribute((XML_NS, "lang")).unwrap()).collect();
        assert_eq!(langs, ["zh", "zh-Hant"]);
        for v in tuvs {
            let seg = v.children().find(|n| n.has_tag_name("seg")).expect("a seg");
            assert!(!seg.text().unwrap_or("").is_empty());
        }
    }
    assert!(xml.contains("&quot;城墙, 必须守住&quot;") || xml.contains("\"城墙, 必须守住\""));
    let bitext = String::from_utf8(export::bitext(&t, &texts).unwrap()).unwrap();
    assert_eq!(bitext.lines().count(), linked);
    assert!(bitext.lines().all(|l| l.split('\t').count() == 2), "a line is not two tab-separated columns");
}

#[test]
fn tmx_and_bitext_refuse_other_than_two_witnesses() {
    let docs = read(&[example("v1.txt"), example("v2.txt"), example("v3.txt")]);
    let (_, t) = collated(&docs);
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let err = export::tmx(&t, &texts, ["zh", "zh"]).unwrap_err();
    assert_eq!(err, ExportError::NotTwo { format: "tmx", given: 3 });
    assert!(err.to_string().contains("exactly two"), "{err}");
    assert!(matches!(export::bitext(&t, &texts), Err(ExportError::NotTwo { given: 3, .. })));
}

#[test]
fn tei_follows_the_parallel_segmentation_structure() {
    let docs = read(&[example("v3.txt"), example("v1.txt"), example("v2.txt")]);
    let (c, t) = collated(&docs);
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let xml = String::from_utf8(export::tei(&t, &c.witnesses(), &texts).unwrap()).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    const TEI: &str = "http://www.tei-c.org/ns/1.0";
    let root = doc.root_element();
    assert!(root.has_tag_name((TEI, "TEI")));
    let el = |name: &'static str| doc.descendants().filter(move |n| n.has_tag_name((TEI, name)));
    let header = el("teiHeader").next().expect("a teiHeader");
    assert!(header.descendants().any(|n| n.has_tag_name((TEI, "title"))));
    let variant = el("variantEncoding").next().expect("a variantEncoding");
    assert_eq!(variant.attribute("method"), Some("parallel-segmentation"));
    // Witnesses declared once each, in a listWit.
    const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";
    let declared: Vec<&str> = el("listWit")
        .next()
        .expect("a listWit")
        .children()
        .filter(|n| n.has_tag_name((TEI, "witness")))
        .map(|n| n.attribute((XML_NS, "id")).expect("a witness without xml:id"))
        .collect();
    assert_eq!(declared, ["v3", "v1", "v2"]);
    // Every app holds only rdgs, each witness named exactly once per app.
    let apps: Vec<_> = el("app").collect();
    let blocks = t.blocks();
    assert_eq!(apps.len(), blocks.len());
    for (app, block) in apps.iter().zip(&blocks) {
        assert!(app.ancestors().any(|n| n.has_tag_name((TEI, "body"))));
        // app stands in running text (here an ab), never inside another app.
        assert!(app.parent().is_some_and(|p| p.has_tag_name((TEI, "ab"))), "an app outside an ab");
        let mut named: Vec<&str> = Vec::new();
        for child in app.children().filter(|n| n.is_element()) {
            assert!(child.has_tag_name((TEI, "rdg")), "an app holds {:?}", child.tag_name());
            assert!(!child.children().any(|n| n.is_element()), "a rdg holds elements");
            let wit = child.attribute("wit").expect("a rdg without wit");
            for w in wit.split_whitespace() {
                let id = w.strip_prefix('#').expect("wit points with #");
                assert!(declared.contains(&id), "rdg wit {w} is not a declared witness");
                named.push(id);
                // A reading's text is the witness's text in these rows; an
                // empty rdg is a gap throughout.
                let k = declared.iter().position(|d| *d == id).unwrap();
                let want = t
                    .span_in(block.clone(), k)
                    .map(|s| texts[k].chars().skip(s[0] as usize).take((s[1] - s[0]) as usize).collect::<String>());
                assert_eq!(child.text().map(str::to_string), want);
            }
        }
        named.sort_unstable();
        let mut all = declared.clone();
        all.sort_unstable();
        assert_eq!(named, all, "every witness once per app");
        let transposed = t.rows[block.clone()].iter().any(|r| r.transposed());
        assert_eq!(app.attribute("type") == Some("transposition"), transposed);
    }
    // Read in app order, each witness's readings hold each of its
    // sentences once, in order (whitespace between sentences aside).
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    for (k, id) in declared.iter().enumerate() {
        let mut read = String::new();
        for app in &apps {
            let rdg = app
                .children()
                .find(|n| n.attribute("wit").is_some_and(|w| w.split_whitespace().any(|x| x == format!("#{id}"))))
                .unwrap();
            read.push_str(rdg.text().unwrap_or(""));
        }
        let index = parallels::chars::CharIndex::new(texts[k]);
        let sentences: String =
            c.prepared[k].seg.sentences.iter().map(|s| index.slice(s.start, s.end)).collect::<Vec<_>>().concat();
        assert!(!sentences.is_empty());
        assert_eq!(squeeze(&read), squeeze(&sentences), "{id}: the readings are not its sentences once each");
    }
    // Transposition pointers name existing apps.
    for rdg in el("rdg") {
        for target in rdg.attribute("corresp").unwrap_or("").split_whitespace() {
            let id = target.strip_prefix('#').unwrap();
            assert!(apps.iter().any(|a| a.attribute((XML_NS, "id")) == Some(id)), "{target} names no app");
        }
    }
}

#[test]
fn the_table_is_built_for_one_witness_and_for_texts_sharing_nothing() {
    let docs = awkward_pair();
    let one = &docs[..1];
    let (c, t) = collated(one);
    assert_every_sentence_once_in_order(&c, &t);
    let other = Document {
        id: "x".into(),
        path: PathBuf::from("x.txt"),
        text: "The quick brown fox jumps over the lazy dog. Nothing here is shared.\n".into(),
        encoding: "utf-8".into(),
        replaced: 0,
    };
    let docs = vec![docs[0].clone(), other, Document { text: String::new(), ..docs[1].clone() }];
    let (c, t) = collated(&docs);
    assert_every_sentence_once_in_order(&c, &t);
    assert!(t.rows.iter().all(|r| r.present() == 1));
    assert_eq!(export::guess_language(&docs[1].text), "en");
    assert_eq!(export::guess_language(&docs[0].text), "zh");
}

mod random {
    //! Random witnesses made from the example's sentences (dropped, moved,
    //! doubled, with control characters, tabs, quotes and commas thrown
    //! in): the table keeps its invariants and every export parses.
    use super::*;
    use proptest::prelude::*;

    fn sentences() -> Vec<String> {
        let text = std::fs::read_to_string(example("v1.txt")).unwrap();
        text.split_inclusive('。').map(str::to_string).filter(|s| !s.trim().is_empty()).take(40).collect()
    }

    fn witness(pool: &[String], picks: &[(usize, u8)]) -> String {
        let mut out = String::new();
        for &(k, noise) in picks {
            let s = &pool[k % pool.len()];
            match noise % 8 {
                0 => out.push_str(&s.replace('，', ",\t\"")),
                1 => out.push_str(&format!("\u{0}{s}\u{b}")),
                2 => out.push('\n'),
                _ => out.push_str(s),
            }
            if noise % 5 == 0 {
                out.push('\n');
            }
        }
        out
    }

    fn doc(id: &str, text: String) -> Document {
        Document {
            id: id.into(),
            path: PathBuf::from(format!("{id}.txt")),
            text,
            encoding: "utf-8".into(),
            replaced: 0,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
        #[test]
        fn random_witnesses_keep_the_invariants_and_every_export_parses(
            picks in proptest::collection::vec(proptest::collection::vec((0usize..40, any::<u8>()), 0..24), 2..4)
        ) {
            let pool = sentences();
            let docs: Vec<Document> =
                picks.iter().enumerate().map(|(k, p)| doc(&format!("w{k}"), witness(&pool, p))).collect();
            let (c, t) = collated(&docs);
            assert_every_sentence_once_in_order(&c, &t);
            let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
            for row in &t.rows {
                for (w, cell) in row.cells.iter().enumerate() {
                    if let Some(s) = cell.span {
                        prop_assert!(s[0] < s[1] && s[1] as usize <= texts[w].chars().count());
                    }
                    for &o in &cell.elsewhere {
                        prop_assert!(o < t.rows.len());
                    }
                }
            }
            let out = CollationOutput::new(&t, c.witnesses(), &texts);
            let back: CollationOutput = serde_json::from_str(&serde_json::to_string(&out).unwrap()).unwrap();
            prop_assert_eq!(&back, &out);
            let _ = out.implied_links();
            let tei = String::from_utf8(export::tei(&t, &c.witnesses(), &texts).unwrap()).unwrap();
            prop_assert!(roxmltree::Document::parse(&tei).is_ok(), "TEI does not parse");
            for d in [b',', b'\t'] {
                let bytes = export::delimited(&t, &texts, d).unwrap();
                let mut r = csv::ReaderBuilder::new().delimiter(d).from_reader(bytes.as_slice());
                let records: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
                prop_assert_eq!(records.len(), t.rows.len());
            }
            if docs.len() == 2 {
                let tmx = String::from_utf8(export::tmx(&t, &texts, ["zh", "zh"]).unwrap()).unwrap();
                prop_assert!(roxmltree::Document::parse(&tmx).is_ok(), "TMX does not parse");
                let _ = export::bitext(&t, &texts).unwrap();
            }
        }
    }
}
