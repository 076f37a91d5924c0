//! Which records are documents: the rule every reader of a corpus applies
//! before the duplicate check, and that a distributed driver asks of the
//! library for each of its rows (`parallels.spark`).

/// Whether a text is blank: empty, or Unicode white space alone (as
/// `str::trim` reads it). A blank text is not a document.
pub fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// Whether a record of `id` and `text` (either missing) is a document the
/// corpus reader takes, before its duplicate check: an id that is not
/// empty, and a text that is not blank ([`is_blank`]).
pub fn is_document(id: Option<&str>, text: Option<&str>) -> bool {
    matches!(id, Some(id) if !id.is_empty()) && matches!(text, Some(text) if !is_blank(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_has_an_id_and_a_text_that_is_not_blank() {
        assert!(is_document(Some("a"), Some("天下大势。")));
        assert!(is_document(Some("0"), Some(" 。 ")));
        assert!(!is_document(Some(""), Some("天下大势。")));
        assert!(!is_document(None, Some("天下大势。")));
        assert!(!is_document(Some("a"), None));
        assert!(!is_document(Some("a"), Some("")));
        // White space of every kind: ideographic space, no-break space,
        // line and paragraph separators, tabs and newlines.
        assert!(!is_document(Some("a"), Some("\u{3000}\u{a0}\u{2028}\u{2029}\t\r\n ")));
        // Format characters are not white space.
        assert!(is_document(Some("a"), Some("\u{200b}")));
        assert!(is_document(Some("a"), Some("\u{feff}")));
    }
}
