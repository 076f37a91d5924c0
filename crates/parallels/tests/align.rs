//! The aligner on real text: the zh-variants corpus (under `eval/`) and
//! copies planted into unrelated text.

use parallels::align::{Aligner, Options, PassageKind, Span};
use parallels::eval::{evaluate, Gold};
use parallels::output::{AlignOutput, DocumentInfo, PairOutput};

fn corpus(name: &str) -> String {
    let path = format!("{}/../../eval/zh-variants/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn chars(s: &str) -> u32 {
    s.chars().count() as u32
}

fn slice(t: &str, s: Span) -> String {
    t.chars().skip(s[0] as usize).take((s[1] - s[0]) as usize).collect()
}

/// The `parallels.align/1` document of texts with these ids and pairs.
fn output(ids: &[&str], texts: &[String], pairs: Vec<PairOutput>) -> AlignOutput {
    let documents = ids
        .iter()
        .zip(texts)
        .map(|(id, t)| DocumentInfo {
            id: id.to_string(),
            path: Default::default(),
            chars: chars(t) as u64,
            encoding: "utf-8".into(),
        })
        .collect();
    AlignOutput::new(documents, pairs)
}

/// Align all pairs of the corpus and score them against its gold.
#[test]
fn zh_variants_meet_the_accuracy_targets() {
    let ids = ["v1", "v2", "v3", "v4", "v2_trad"];
    let texts: Vec<String> = ids.iter().map(|id| corpus(id)).collect();
    let aligner = Aligner::new(Options::default());
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let prepared = aligner.prepare_all(&refs);
    let mut pairs = Vec::new();
    for x in 0..ids.len() {
        for y in x + 1..ids.len() {
            let passages = aligner.align(&prepared[x], &prepared[y]);
            if !passages.is_empty() {
                pairs.push(PairOutput { a: ids[x].into(), b: ids[y].into(), passages });
            }
        }
    }
    let out = output(&ids, &texts, pairs);
    let gold_path = format!("{}/../../eval/zh-variants/gold.json", env!("CARGO_MANIFEST_DIR"));
    let gold: Gold = serde_json::from_str(&std::fs::read_to_string(gold_path).unwrap()).unwrap();
    let report = evaluate(&gold, &out).unwrap();
    eprintln!("{}", report.table());
    assert!(report.link.f1() >= 0.97, "link F1 {:.4}", report.link.f1());
    assert!(report.coverage.f1() >= 0.98, "coverage F1 {:.4}", report.coverage.f1());
    // The unrelated same-topic text shares nothing with the abridgement.
    assert!(out.pairs.iter().all(|p| !(p.a == "v3" && p.b == "v4")));
    // Nothing wrong is linked with v4: every v4 link there is is a gold one.
    for p in out.pairs.iter().filter(|p| p.b == "v4") {
        let score = report.pairs.iter().find(|s| s.a == p.a && s.b == "v4").unwrap();
        assert_eq!(score.link.predicted, score.link.tp, "false links between {} and v4", p.a);
    }
}

#[test]
fn a_noisy_copy_inside_unrelated_text_is_found_with_tight_boundaries() {
    let v1 = corpus("v1");
    let v4 = corpus("v4");
    // The copied stretch: v1's second paragraph, in traditional script, with
    // half-width punctuation and two OCR-like substitutions.
    let start = v1.find("十七世纪中叶").unwrap();
    let end = v1.find("七座棱堡和三道城门。").unwrap() + "七座棱堡和三道城门。".len();
    let original = &v1[start..end];
    let mut noisy: String = original
        .replace("纪", "紀")
        .replace("来", "來")
        .replace("师", "師")
        .replace("计", "計")
        .replace('，', ",")
        .replace('。', ".");
    noisy = noisy.replacen("商人", "商入", 1).replacen("棱堡", "稜堡", 1);
    let at = v4.find("上一章我们").unwrap();
    let b = format!("{}{}{}", &v4[..at], noisy, &v4[at..]);
    let passages = Aligner::new(Options::default()).align_texts(&v1, &b);
    let verbatim: Vec<_> = passages.iter().filter(|p| p.kind == PassageKind::Verbatim).collect();
    assert_eq!(verbatim.len(), 1, "{passages:?}");
    let p = verbatim[0];
    let a_start = chars(&v1[..start]);
    let b_start = chars(&v4[..at]);
    // On A the copy is two whole sentences; on B it is set into other text,
    // and the passage runs from the first copied character to the last (the
    // final '.' stands for '。', another punctuation of one mark).
    assert_eq!(p.a, [a_start, a_start + chars(original)], "{:?}", slice(&v1, p.a));
    assert_eq!(p.b, [b_start, b_start + chars(&noisy)], "{:?}", slice(&b, p.b));
}

/// A quotation cut out of the middle of one sentence and set into the middle
/// of another is `verbatim` to the character on both sides, and the quoting
/// text around it belongs to no passage.
#[test]
fn a_quotation_cut_mid_sentence_is_verbatim_to_the_character() {
    let v1 = corpus("v1");
    let v4 = corpus("v4");
    // 41 characters from inside one paragraph of v1, starting and ending
    // inside sentences (after "市长" and before its sentence's end).
    let from = v1.find("约翰·埃克哈特").unwrap();
    let quote: String = v1[from..].chars().take(41).collect();
    let at = v4.find("上一章我们").unwrap() + "上一章我们".len();
    let host = format!("{}{quote}{}", &v4[..at], &v4[at..]);
    let passages = Aligner::new(Options::default()).align_texts(&host, &v1);
    let [p] = passages.as_slice() else { panic!("one passage expected: {passages:?}") };
    assert_eq!(p.kind, PassageKind::Verbatim);
    let (a0, b0) = (chars(&v4[..at]), chars(&v1[..from]));
    assert_eq!(p.a, [a0, a0 + 41], "{:?}", slice(&host, p.a));
    assert_eq!(p.b, [b0, b0 + 41], "{:?}", slice(&v1, p.b));
    // Its links tile the copy: every linked character is a copied one.
    assert!(p.links.iter().all(|l| p.a[0] <= l.a[0] && l.a[1] <= p.a[1] && p.b[0] <= l.b[0] && l.b[1] <= p.b[1]));
}

/// Two translations that share a run word for word: the run is marked
/// `verbatim`, and the sentences around it stay linked as versions of each
/// other (the parallel link keeps the whole sentence pair).
#[test]
fn a_run_two_versions_share_is_marked_inside_their_parallel_passage() {
    let (v1, v2) = (corpus("v1"), corpus("v2"));
    let run = "牧师安德烈亚斯·莫尔每天要主持十几场葬礼";
    let (x, y) = (chars(&v1[..v1.find(run).unwrap()]), chars(&v2[..v2.find(run).unwrap()]));
    let passages = Aligner::new(Options::default()).align_texts(&v1, &v2);
    let n = chars(run);
    let marked = passages.iter().find(|p| p.kind == PassageKind::Verbatim && p.a[0] <= x && x + n <= p.a[1]);
    let marked = marked.unwrap_or_else(|| panic!("no verbatim passage over the run: {passages:?}"));
    assert_eq!(slice(&v1, marked.a), slice(&v2, marked.b));
    assert!(slice(&v1, marked.a).contains(run));
    let around = passages.iter().flat_map(|p| &p.links).any(|l| {
        let holds = l.a[0] <= x && x + n <= l.a[1] && l.b[0] <= y && y + n <= l.b[1];
        p_kind_parallel(&passages, l) && holds && (l.a[1] - l.a[0]).max(l.b[1] - l.b[0]) > n + 5
    });
    assert!(around, "the sentence pair around the run is no longer linked whole: {passages:?}");
}

fn p_kind_parallel(passages: &[parallels::align::Passage], l: &parallels::align::Link) -> bool {
    passages.iter().any(|p| p.kind == PassageKind::Parallel && p.links.iter().any(|k| std::ptr::eq(k, l)))
}

#[test]
fn a_short_quotation_shared_by_unrelated_texts_is_found() {
    let quote = "倘若援军在九月之前不能到达，我们将不得不为这座城市的存续作出艰难的抉择";
    let v4 = corpus("v4");
    let v3 = corpus("v3");
    let a = format!("{}他在信中写道：“{quote}。”{}", slice(&v4, [0, 600]), slice(&v4, [600, 1200]));
    let b = format!("{}据说原信是这样的：{quote}，云云。{}", slice(&v3, [0, 900]), slice(&v3, [900, 1500]));
    let passages = Aligner::new(Options::default()).align_texts(&a, &b);
    assert_eq!(passages.len(), 1, "{passages:?}");
    assert_eq!(passages[0].kind, PassageKind::Verbatim, "{passages:?}");
    assert_eq!(slice(&a, passages[0].a), quote);
    assert_eq!(slice(&b, passages[0].b), quote);
}

/// With a high bar for a pair's best chain (as `scan` sets it), the further
/// chains of a related pair are kept at `min_chain_related`: the abridgement
/// v3 keeps passages of v2 the strict setting loses, and nothing else changes.
#[test]
fn further_chains_of_a_related_pair_need_less() {
    let (v2, v3) = (corpus("v2"), corpus("v3"));
    let mut strict = Options::default();
    strict.parallel.min_chain = 0.5;
    strict.parallel.min_chain_related = 0.5;
    let mut related = strict.clone();
    related.parallel.min_chain_related = Options::default().parallel.min_chain;
    let few = Aligner::new(strict).align_texts(&v2, &v3);
    let more = Aligner::new(related).align_texts(&v2, &v3);
    assert!(!few.is_empty());
    assert!(more.len() > few.len(), "{} vs {}", more.len(), few.len());
    for p in &few {
        assert!(more.contains(p), "lost {:?}", p.a);
    }
    // A pair with no strong chain keeps nothing, however low the second bar.
    let mut unrelated = Options::default();
    unrelated.parallel.min_chain = 50.0;
    assert!(Aligner::new(unrelated).align_texts(&v2, &v3).iter().all(|p| p.kind != PassageKind::Parallel));
}

/// Two renderings of one invented passage: every sentence shares words with
/// its counterpart except two — a paraphrase with nothing lexical in common
/// (`水手们！` / `伙计们！`, `城里的存粮一天比一天少。` / `饥荒的阴影越来越重。`)
/// and the reworded half of a sentence B splits in two.
const VERSION_A: &str = "船长站在甲板上望着北方的海面。风从岸边吹来，带着松林的气味。\
水手们！\
船长转过身，对着所有人大声喊道，我们今夜就要起锚出港。\
港口的守军已经撤走了一半，剩下的人都躲进了要塞。\
城里的存粮一天比一天少。\
市长每天早上都到码头去看有没有商船进港，可是海上一片空荡荡的。\
商人们把最后几袋面粉藏在地窖里，只在夜里偷偷拿出来卖高价，市民们排着长队也买不到一块面包。\
到了月底，连教堂的钟声都很少响起了。";

const VERSION_B: &str = "船长站在甲板上，望着北方的海面。岸边吹来的风带着松林的气味。\
伙计们！\
船长转过身来，对所有人大声喊，今夜我们就起锚出港。\
港口的守军撤走了一半，剩下的都躲进了要塞里。\
饥荒的阴影越来越重。\
市长每天早上都去码头看看有没有商船进港，但海上空荡荡的。\
商人们把面粉藏进地窖，夜里才高价卖出。\
排队的市民常常空手而归。\
到了月底，连教堂的钟都很少再敲响了。";

/// The link of the gap-completion tests that holds `a` on side A, if any.
fn link_with(passages: &[parallels::align::Passage], text_a: &str, a: &str) -> Option<(String, f64)> {
    let start = chars(&text_a[..text_a.find(a).unwrap()]);
    passages
        .iter()
        .flat_map(|p| &p.links)
        .find(|l| l.a[0] <= start && start < l.a[1])
        .map(|l| (slice(VERSION_B, l.b), l.score))
}

#[test]
fn sentences_between_anchors_are_linked_by_position_and_length() {
    let passages = Aligner::new(Options::default()).align_texts(VERSION_A, VERSION_B);
    let (b, score) = link_with(&passages, VERSION_A, "水手们！").expect("水手们！ linked");
    assert_eq!(b, "伙计们！");
    assert!(score < 0.1, "a link by position carries its own low score: {score}");
    let (b, _) = link_with(&passages, VERSION_A, "城里的存粮").expect("城里的存粮 linked");
    assert_eq!(b, "饥荒的阴影越来越重。");
    // B split one sentence in two and reworded the second half: a 1-2 link.
    let (b, _) = link_with(&passages, VERSION_A, "商人们把最后").expect("商人们 linked");
    assert_eq!(b, "商人们把面粉藏进地窖，夜里才高价卖出。排队的市民常常空手而归。");
    // Without completion, only what is shared lexically is linked.
    let mut lexical = Options::default();
    lexical.parallel.complete = false;
    let passages = Aligner::new(lexical).align_texts(VERSION_A, VERSION_B);
    assert_eq!(link_with(&passages, VERSION_A, "水手们！"), None);
    assert_eq!(link_with(&passages, VERSION_A, "城里的存粮"), None);
}

/// A file of the shared corpus folder beside the repository (read in
/// place, never copied into it).
fn shared(name: &str) -> String {
    let path = format!("{}/../../../shared/corpus/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (the shared corpus folder belongs beside the repository)"))
}

/// One pair's passages as an output document, scored per verse against a
/// gold file of the shared corpus.
fn verse_units(
    ids: [&str; 2],
    texts: [&str; 2],
    passages: Vec<parallels::align::Passage>,
    gold: &str,
) -> (AlignOutput, parallels::eval::UnitReport) {
    let texts = [texts[0].to_string(), texts[1].to_string()];
    let out = output(&ids, &texts, vec![PairOutput { a: ids[0].into(), b: ids[1].into(), passages }]);
    let gold: Gold = serde_json::from_str(&shared(gold)).unwrap();
    let report = parallels::eval::evaluate_units(&gold, &out).unwrap();
    eprintln!("{}", report.table());
    (out, report)
}

/// Genesis 37–50 in two real Chinese translations (CUV simplified, CNV
/// traditional), read from the shared corpus folder beside the repository
/// (never copied into it): verse-unit precision (±1 verse) and recall.
#[test]
fn zh_bible_verses_align_and_no_stock_phrase_links_out_of_place() {
    let (a, b) = (shared("zh-bible/genesis37-50_cuv.txt"), shared("zh-bible/genesis37-50_ncv.txt"));
    let passages = Aligner::new(Options::default()).align_texts(&a, &b);
    let (out, report) = verse_units(["genesis37-50_cuv", "genesis37-50_ncv"], [&a, &b], passages, "zh-bible/gold.json");
    assert!(report.units.precision() >= 0.99, "unit P {:.4}", report.units.precision());
    assert!(report.units.recall() >= 0.99, "unit R {:.4}", report.units.recall());
    // Every passage lies along the main alignment: none links verses more
    // than a few apart (a recurring formula matched in another chapter).
    let loose = Aligner::new(Options { coherence: false, ..Options::default() }).align_texts(&a, &b);
    assert!(out.pairs[0].passages.len() < loose.len(), "the stock-phrase passages are dropped");
}

/// Chinese Mark 5–8 (CUV) against the whole of English Mark (KJV), read
/// from the shared corpus folder: two languages, next to no shared
/// characters, aligned by meaning (the sentence encoder) and length.
#[test]
fn chinese_mark_aligns_with_english_mark_by_meaning() {
    let (a, b) = (shared("zh-en-bible/mark5-8_cuv.txt"), shared("en-bible/mark_kjv.txt"));
    let passages = Aligner::new(Options::default()).align_texts(&a, &b);
    assert!(
        passages.iter().flat_map(|p| &p.links).all(|l| l.meaning.is_some()),
        "links across languages carry meaning"
    );
    let (_, report) = verse_units(["mark5-8_cuv", "mark_kjv"], [&a, &b], passages, "zh-en-bible/gold.json");
    assert!(report.units.f1() >= 0.90, "unit F1 {:.4}", report.units.f1());
    // Nothing is linked into the chapters of English Mark that the
    // Chinese text does not contain.
    assert!(report.coverage.precision() >= 0.99, "coverage P {:.4}", report.coverage.precision());
    // Lexical evidence alone finds nothing across the two languages.
    let lexical = Aligner::new(Options { meaning: false, ..Options::default() }).align_texts(&a, &b);
    let linked: usize = lexical.iter().map(|p| p.links.len()).sum();
    assert!(linked < 5, "{linked} links without meaning");
}

const PLOT_A: &str = "\
魏斯明德坐落在布伦纳河注入波罗的海的河口。\
城中约有两万三千名居民，其中三分之一是商人。\
城墙修建于一五六〇年代，共有七座棱堡和三道城门。\
其中最坚固的是东面的琥珀门。\
舰长下令立即起航。\
瑞典舰队在六月封锁了河口，切断了海上的补给。\
城里的粮价一个月之内涨了三倍。\
市议会决定把教堂的银器熔掉铸成钱币。";

const PLOT_B: &str = "\
布伦纳河在魏斯明德注入波罗的海的河口。\
城里约有两万三千居民，三分之一是商人。\
城墙建于一五六〇年代，有七座棱堡、三道城门。\
最坚固的是东边的琥珀门。\
港口上空阴云密布。\
指挥官要求船队马上出海。\
六月，瑞典舰队封锁河口，切断海上补给。\
一个月内，城中粮价涨了三倍。\
市议会决定熔掉教堂的银器来铸钱。";

/// Between two anchors, A has one sentence and B two: an addition of the
/// same length (`港口上空阴云密布。`) and a longer, reworded counterpart that
/// shares no character with it. Length alone prefers the addition; meaning
/// does not.
#[test]
fn meaning_picks_the_reworded_counterpart_between_anchors() {
    let passages = Aligner::new(Options::default()).align_texts(PLOT_A, PLOT_B);
    let link = |passages: &[parallels::align::Passage]| {
        let start = chars(&PLOT_A[..PLOT_A.find("舰长").unwrap()]);
        passages.iter().flat_map(|p| &p.links).find(|l| l.a[0] <= start && start < l.a[1]).cloned()
    };
    let l = link(&passages).expect("舰长下令立即起航。 linked");
    assert_eq!(slice(PLOT_B, l.b), "指挥官要求船队马上出海。");
    assert!(l.meaning.is_some_and(|m| m > 0.3), "{:?}", l.meaning);
    let lexical = Aligner::new(Options { meaning: false, ..Options::default() }).align_texts(PLOT_A, PLOT_B);
    assert_ne!(link(&lexical).map(|l| slice(PLOT_B, l.b)).as_deref(), Some("指挥官要求船队马上出海。"));
}
