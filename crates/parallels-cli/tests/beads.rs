//! Complete alignment of translations, as sentence aligners do it: texts
//! one sentence a line (`--sentences lines`), every sentence in a bead
//! (`--format ladder`, null beads included), and bead scores
//! (`eval --beads`).

mod util;

use std::path::{Path, PathBuf};
use util::Sandbox;

/// A bead of a ladder file: sentence indices of each side.
type Bead = (Vec<u32>, Vec<u32>);

fn parse_ladder(text: &str) -> Vec<Bead> {
    let side = |s: &str| -> Vec<u32> {
        s.trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .filter_map(|x| x.trim().parse().ok())
            .collect()
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (a, b) = l.split_once(':').expect("a bead has a colon");
            (side(a), side(b))
        })
        .collect()
}

/// Every sentence of each side in exactly one bead, in order on both sides.
fn assert_complete_and_in_order(beads: &[Bead], n: u32, m: u32) {
    let a: Vec<u32> = beads.iter().flat_map(|b| b.0.iter().copied()).collect();
    let b: Vec<u32> = beads.iter().flat_map(|b| b.1.iter().copied()).collect();
    assert_eq!(a, (0..n).collect::<Vec<_>>(), "A's sentences, once each, in order");
    assert_eq!(b, (0..m).collect::<Vec<_>>(), "B's sentences, once each, in order");
}

/// A short text of our own and its German translation, one sentence a
/// line: the German splits the last sentence in two and has one sentence
/// of its own (its sixth line) that the English does not have.
fn lines_fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lines").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_translation_one_sentence_a_line_is_aligned_completely_with_null_beads() {
    let sb = Sandbox::new();
    let de_text = lines_fixture("walls.de.txt");
    sb.write("en.txt", lines_fixture("walls.en.txt")).write("de.txt", &de_text);
    let run = sb.run(&["align", "en.txt", "de.txt", "--sentences", "lines", "--format", "ladder"]);
    run.success();
    let beads = parse_ladder(run.stdout_str());
    assert_complete_and_in_order(&beads, 8, 10);
    let expected: Vec<Bead> = vec![
        (vec![0], vec![0]),
        (vec![1], vec![1]),
        (vec![2], vec![2]),
        (vec![3], vec![3]),
        (vec![4], vec![4]),
        (vec![], vec![5]),
        (vec![5], vec![6]),
        (vec![6], vec![7]),
        (vec![7], vec![8, 9]),
    ];
    assert_eq!(beads, expected, "{}", run.stdout_str());
    // The JSON of the pair holds the same: links, and the sentence
    // without counterpart as an unlinked sentence of B.
    let json = sb.run(&["align", "en.txt", "de.txt", "--sentences", "lines", "--format", "json"]).json();
    let passages = json["pairs"][0]["passages"].as_array().expect("passages");
    assert_eq!(passages.len(), 1);
    let unlinked = passages[0]["unlinked"].as_array().expect("unlinked sentences");
    let de: Vec<char> = de_text.chars().collect();
    let fishers: String = {
        let s = unlinked[0]["b"].as_array().expect("a span of B");
        de[s[0].as_u64().unwrap() as usize..s[1].as_u64().unwrap() as usize].iter().collect()
    };
    assert_eq!(fishers, "Die Fischer flickten dann ihre Netze am Ufer.");
    assert_eq!(passages[0]["links"].as_array().unwrap().len(), 8);
}

#[test]
fn lines_mode_keeps_a_line_whole_where_text_mode_cuts_it() {
    let sb = Sandbox::new();
    // Two sentences in one line of A, the same as two lines of B.
    sb.write("a.txt", "他来了。他坐下了。\n天黑了。\n").write("b.txt", "他来了。\n他坐下了。\n天黑了。\n");
    let lines = sb.run(&["align", "a.txt", "b.txt", "--sentences", "lines", "--format", "ladder"]);
    lines.success();
    // The first line of A is one sentence, linked to the two lines of B.
    let beads = parse_ladder(lines.stdout_str());
    assert_eq!(beads, [(vec![0], vec![0, 1]), (vec![1], vec![2])], "{}", lines.stdout_str());
    let text = sb.run(&["align", "a.txt", "b.txt", "--format", "ladder", "--sentences", "text"]);
    text.success();
    let beads = parse_ladder(text.stdout_str());
    assert_eq!(beads, [(vec![0], vec![0]), (vec![1], vec![1]), (vec![2], vec![2])], "{}", text.stdout_str());
}

#[test]
fn ladder_takes_exactly_two_texts() {
    let sb = Sandbox::new();
    sb.write("a.txt", "一。\n").write("b.txt", "二。\n").write("c.txt", "三。\n");
    let run = sb.run(&["align", "a.txt", "b.txt", "c.txt", "--format", "ladder"]);
    run.no_panic().code(2);
    assert!(run.stderr.contains("ladder pairs the sentences of exactly two texts, and 3 were given"), "{run}");
    assert!(run.stdout.is_empty(), "{run}");
}

#[test]
fn eval_beads_scores_as_the_field_does() {
    let sb = Sandbox::new();
    sb.write("gold.align", "[0]:[0]\n[1]:[1, 2]\n[2]:[]\n[3]:[3]\n[]:[4]\n");
    // One bead exact, one finer than the gold (lax only), the null bead
    // right, one wrong (B's last sentence, which the gold leaves
    // unlinked).
    sb.write("pred.align", "[0]:[0]\n[1]:[1]\n[]:[2]\n[2]:[]\n[3]:[4]\n");
    let run = sb.run(&["eval", "--beads", "--gold", "gold.align", "pred.align"]);
    run.success();
    let total = run.stdout_str().lines().find(|l| l.starts_with("ALL")).expect("a total line");
    let cells: Vec<&str> = total.split_whitespace().collect();
    // gold 3, pred 3, null 2; strict P (1 + 1 null) / 5, R 1/3.
    assert_eq!(&cells[2..5], ["3", "3", "2"], "{total}");
    assert_eq!(cells[5], "0.4000", "{total}");
    assert_eq!(cells[6], "0.3333", "{total}");
    // A broken ladder is named with its line.
    sb.write("bad.align", "[0]:[0]\n[1] [1]\n");
    let run = sb.run(&["eval", "--beads", "--gold", "gold.align", "bad.align"]);
    run.no_panic().code(2);
    assert!(run.stderr.contains("bad.align: line 2"), "{run}");
}

/// `../shared/corpus/<set>` beside the repository (read in place, never
/// copied into it), as the library's tests read it.
fn shared(set: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus").join(set);
    assert!(dir.is_dir(), "{}: not found (the shared corpus folder belongs beside the repository)", dir.display());
    dir
}

/// The gold beads of a `*-gold/1` file's document as a ladder.
fn gold_ladder(gold: &serde_json::Value, doc: usize) -> String {
    let mut out = String::new();
    for bead in gold["documents"][doc]["beads"].as_array().expect("beads") {
        let side = |k: usize| {
            bead[k].as_array().unwrap().iter().map(|x| x.as_u64().unwrap().to_string()).collect::<Vec<_>>().join(", ")
        };
        out.push_str(&format!("[{}]:[{}]\n", side(0), side(1)));
    }
    out
}

/// Strict F1 (null beads counted) of `eval --beads` on one document.
fn strict_f1(sb: &Sandbox, gold: &str, pred: &str) -> f64 {
    let run = sb.run(&["eval", "--beads", "--gold", gold, pred]);
    run.success();
    let total = run.stdout_str().lines().find(|l| l.starts_with("ALL")).expect("a total line");
    total.split_whitespace().nth(7).and_then(|x| x.parse().ok()).expect("strict F1")
}

/// The dev sets of the field's benchmarks (read from `../shared`, never
/// copied): a German article against its French translation, and a
/// Chinese chapter against its published English translation. The dev
/// numbers are in EVALUATION.md (0.879 and 0.965); these bounds leave room
/// for changes of the aligner, not for a return of the local alignment
/// (0.136 and 0.887 before).
#[test]
fn the_dev_sets_of_the_field_are_aligned_completely() {
    let sb = Sandbox::new();
    let cases =
        [("textberg-dev", "dev.de.txt", "dev.fr.txt", 0, 0.85), ("mac-dev", "001.zh.txt", "001.en.txt", 0, 0.93)];
    for (set, a, b, doc, bound) in cases {
        let dir = shared(set);
        let gold: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("gold.json")).unwrap()).unwrap();
        sb.write("gold.align", gold_ladder(&gold, doc));
        let (pa, pb) = (dir.join(a), dir.join(b));
        let run = sb.run(&[
            "align",
            pa.to_str().unwrap(),
            pb.to_str().unwrap(),
            "--sentences",
            "lines",
            "--format",
            "ladder",
            "-o",
            "pred.align",
        ]);
        run.success();
        let lines = |p: &Path| std::fs::read_to_string(p).unwrap().lines().filter(|l| !l.trim().is_empty()).count();
        let beads = parse_ladder(&String::from_utf8(sb.read("pred.align")).unwrap());
        assert_complete_and_in_order(&beads, lines(&pa) as u32, lines(&pb) as u32);
        let f1 = strict_f1(&sb, "gold.align", "pred.align");
        assert!(f1 >= bound, "{set}: strict F1 {f1} < {bound}");
    }
}

/// Beads whose choice is close are measured again on their groups' own
/// text (`beads::CLOSE`): on the first mac-dev chapter strict F1 0.960
/// without that second look (`--without refine`) and 0.967 with it
/// (EVALUATION.md); it must not do worse than without, and every sentence
/// stays in one bead, in order.
#[test]
fn close_beads_measured_again_do_no_worse_on_a_real_chapter() {
    let sb = Sandbox::new();
    let dir = shared("mac-dev");
    let gold: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("gold.json")).unwrap()).unwrap();
    sb.write("gold.align", gold_ladder(&gold, 0));
    let (pa, pb) = (dir.join("001.zh.txt"), dir.join("001.en.txt"));
    let mut f1 = Vec::new();
    for extra in [&["--without", "refine"][..], &[][..]] {
        let mut args =
            vec!["align", pa.to_str().unwrap(), pb.to_str().unwrap(), "--sentences", "lines", "--format", "ladder"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-o", "pred.align"]);
        sb.run(&args).success();
        let lines = |p: &Path| std::fs::read_to_string(p).unwrap().lines().filter(|l| !l.trim().is_empty()).count();
        let beads = parse_ladder(&String::from_utf8(sb.read("pred.align")).unwrap());
        assert_complete_and_in_order(&beads, lines(&pa) as u32, lines(&pb) as u32);
        f1.push(strict_f1(&sb, "gold.align", "pred.align"));
    }
    assert!(f1[1] >= f1[0], "refined {} < without {}", f1[1], f1[0]);
    assert!(f1[1] >= 0.96, "refined strict F1 {}", f1[1]);
}
