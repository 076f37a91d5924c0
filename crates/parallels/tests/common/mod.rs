//! What every alignment must satisfy, whatever its input: shared by the
//! property tests (`spans.rs`, `align_fuzz.rs`).

use parallels::align::{Passage, Span};
use proptest::prelude::*;

/// A non-empty half-open range ending inside a text of `len` characters.
pub fn valid(span: Span, len: u32) -> bool {
    span[0] < span[1] && span[1] <= len
}

/// Every span a valid half-open range of code points inside its text
/// (`la`, `lb` characters), links inside their passage, scores in range.
pub fn check(passages: &[Passage], la: u32, lb: u32) -> Result<(), TestCaseError> {
    for p in passages {
        prop_assert!(valid(p.a, la) && valid(p.b, lb), "passage {:?} outside {la}/{lb}", p);
        prop_assert!((0.0..=1.0).contains(&p.score), "score {}", p.score);
        for l in &p.links {
            prop_assert!(valid(l.a, la) && valid(l.b, lb), "link {:?} outside {la}/{lb}", l);
            prop_assert!(p.a[0] <= l.a[0] && l.a[1] <= p.a[1], "link {:?} outside passage {:?}", l, p);
            prop_assert!(p.b[0] <= l.b[0] && l.b[1] <= p.b[1], "link {:?} outside passage {:?}", l, p);
            prop_assert!((0.0..=1.0).contains(&l.score), "link score {}", l.score);
            if let Some(m) = l.meaning {
                prop_assert!(m.is_finite() && (-1.0..=1.0).contains(&m), "meaning {}", m);
            }
        }
        for u in &p.unlinked {
            prop_assert!(u.a.is_some() != u.b.is_some(), "unlinked {:?}: one side, not {:?}", u, p);
            if let Some(x) = u.a {
                prop_assert!(valid(x, la) && p.a[0] <= x[0] && x[1] <= p.a[1], "unlinked {:?} outside {:?}", u, p);
            }
            if let Some(x) = u.b {
                prop_assert!(valid(x, lb) && p.b[0] <= x[0] && x[1] <= p.b[1], "unlinked {:?} outside {:?}", u, p);
            }
        }
    }
    Ok(())
}
