//! Property: whatever the input, every span the library returns is a valid
//! half-open range of code points of the original text, and nothing panics.

mod common;

use common::{check, valid};
use parallels::align::{Aligner, Options, Span};
use proptest::prelude::*;

/// Text pieces that exercise the normalizer and segmenter: CJK with
/// numerals, footnotes, censoring, boilerplate lines, Latin with combining
/// marks, emoji, full-width forms, stray control characters.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("魏斯明德坐落在布伦纳河注入波罗的海的河口。".to_string()),
        Just("城中约有两万三千名居民，".to_string()),
        Just("17世纪中期，城里住着大约23,000人。".to_string()),
        Just("克鲁格[12]说：“走吧！”".to_string()),
        Just("让那些**的瑞典人□□再等一个月".to_string()),
        Just("\n第十二章 围城（3）\n更新时间：2021-06-08 21:30\n".to_string()),
        Just("這場戰爭裏的軍隊。".to_string()),
        Just("Ｆｕｌｌ－ｗｉｄｔｈ！１２３".to_string()),
        Just("Cafe\u{301} naïve résumé. ".to_string()),
        Just("👩‍👩‍👧 🇨🇳 emoji\u{200d}".to_string()),
        Just("\r\n\t\u{0}\u{FEFF}\u{FFFD}".to_string()),
        Just("一六五九年三月十二日".to_string()),
        Just("第三，五万，1.8万，三十万塔勒；23；000磅".to_string()),
        "\\PC{0,30}",
        "[一二三四五六七八九十百千万两零〇年月日人。，0-9,.;；]{0,30}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..30).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn spans_are_valid_for_random_texts(a in text(), b in text()) {
        let aligner = Aligner::new(Options::default());
        let (la, lb) = (a.chars().count() as u32, b.chars().count() as u32);
        check(&aligner.align_texts(&a, &b), la, lb)?;
    }

    #[test]
    fn spans_are_valid_when_one_text_copies_the_other(a in text(), cut in 0usize..100, extra in text()) {
        // B embeds a slice of A: verbatim and parallel paths both fire.
        let chars: Vec<char> = a.chars().collect();
        let k = cut.min(chars.len());
        let b = format!("{extra}{}{extra}", chars[k..].iter().collect::<String>());
        let aligner = Aligner::new(Options::default());
        check(&aligner.align_texts(&a, &b), chars.len() as u32, b.chars().count() as u32)?;
    }

    #[test]
    fn sentences_and_tokens_point_into_the_original(a in text()) {
        let aligner = Aligner::new(Options::default());
        let p = aligner.prepare(&a);
        let len = a.chars().count() as u32;
        prop_assert_eq!(p.chars, len);
        for s in &p.seg.sentences {
            prop_assert!(valid([s.start, s.end], len));
            for t in s.tokens(&p.seg) {
                prop_assert!(s.start <= t.start && t.end <= s.end && t.start < t.end, "token {:?} outside sentence {:?}", t, s);
            }
        }
    }
}

#[test]
fn aligned_spans_slice_the_same_text_in_two_encodings_of_one_document() {
    // A repeated real paragraph: the text the spans select is what a reader sees.
    let a = "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。十七世纪中叶，城中约有两万三千名居民。";
    let b =
        "布伦纳河在魏斯明德汇入波罗的海，这座港口城市因粮食和琥珀生意而远近闻名。17世纪中期，城里住着大约23,000人。";
    let passages = Aligner::new(Options::default()).align_texts(a, b);
    assert_eq!(passages.len(), 1);
    let slice = |t: &str, s: Span| t.chars().skip(s[0] as usize).take((s[1] - s[0]) as usize).collect::<String>();
    let links: Vec<(String, String)> = passages[0].links.iter().map(|l| (slice(a, l.a), slice(b, l.b))).collect();
    assert_eq!(
        links,
        vec![
            (
                "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。".to_string(),
                "布伦纳河在魏斯明德汇入波罗的海，这座港口城市因粮食和琥珀生意而远近闻名。".to_string()
            ),
            ("十七世纪中叶，城中约有两万三千名居民。".to_string(), "17世纪中期，城里住着大约23,000人。".to_string()),
        ]
    );
}
