//! Player names: what is accepted, and why. Names are data: the server never
//! escapes or strips markup (`<b>` is a fine name); clients set them as text.
//! What is refused is what a list of names cannot show honestly: nothing
//! visible, control and bidi characters, and characters that have no
//! agreed picture (private use, noncharacters, placeholders).

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The longest name, in characters (not bytes).
pub const MAX_NAME_CHARS: usize = 24;

/// Characters that draw nothing (or only space) in a list of names, but
/// that `str::trim` keeps because Unicode does not call them white space:
/// a name made only of these (and white space) looks blank, so it is
/// refused like a blank one. Inside a name with visible letters they are
/// harmless (ZWJ builds emoji, ZWNJ is needed in Persian).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'            // soft hyphen
        | '\u{034F}'          // combining grapheme joiner
        | '\u{061C}'          // Arabic letter mark
        | '\u{115F}' | '\u{1160}' // Hangul choseong / jungseong fillers
        | '\u{17B4}' | '\u{17B5}' // Khmer inherent vowels
        | '\u{180B}'..='\u{180F}' // Mongolian variation selectors, vowel separator
        | '\u{200B}'..='\u{200F}' // zero-width space, ZWNJ, ZWJ, LRM, RLM
        | '\u{2060}'..='\u{206F}' // word joiner, invisible operators, deprecated format
        | '\u{2800}'          // Braille blank
        | '\u{3164}'          // Hangul filler
        | '\u{FE00}'..='\u{FE0F}' // variation selectors
        | '\u{FEFF}'          // byte order mark / zero-width no-break space
        | '\u{FFA0}'          // halfwidth Hangul filler
        | '\u{1BCA0}'..='\u{1BCA3}' // shorthand format controls
        | '\u{1D173}'..='\u{1D17A}' // musical symbol format controls
        | '\u{E0000}'..='\u{E007F}' // tags
        | '\u{E0100}'..='\u{E01EF}' // variation selectors supplement
    )
}

/// A combining mark (general category Mn or Me: an accent, an enclosing
/// circle) draws on the character before it; with no letter to sit on, a
/// name of marks alone is a smudge, or nothing.
fn is_mark(c: char) -> bool {
    matches!(c.general_category(), GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark)
}

/// Characters with no agreed picture, refused anywhere in a name:
/// - private use (U+E000 to U+F8FF and planes 15 and 16): each font draws its
///   own, so one player's logo is another's empty box;
/// - noncharacters (U+FDD0 to U+FDEF, and the last two code points of every
///   plane, U+FFFE, U+FFFF ... U+10FFFF), which Unicode keeps out of text;
/// - the interlinear annotation controls (U+FFF9 to U+FFFB), which hide the
///   text between them, and the object and character replacement signs
///   (U+FFFC, U+FFFD), which stand for something that is not there.
///
/// Listed by range rather than "unassigned": an emoji newer than this
/// build's tables must still be a fine name.
fn has_no_picture(c: char) -> bool {
    let u = c as u32;
    matches!(u, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF | 0xFDD0..=0xFDEF | 0xFFF9..=0xFFFD)
        || u & 0xFFFE == 0xFFFE
}

/// Checks a name and returns it trimmed of surrounding white space, or a
/// human reason for the `bad_name` error.
pub fn validate(raw: &str) -> Result<String, &'static str> {
    let name = raw.trim();
    if name.chars().all(|c| c.is_whitespace() || is_invisible(c) || is_mark(c)) {
        return Err("a name cannot be empty");
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err("a name is at most 24 characters");
    }
    // U+2028/U+2029 are line breaks that `char::is_control` does not cover.
    if name.chars().any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')) {
        return Err("a name cannot contain control characters");
    }
    // Bidi embeddings, overrides and isolates can make a name run over its
    // neighbours in a list (or disguise itself as someone else's).
    if name.chars().any(|c| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')) {
        return Err("a name cannot contain bidirectional control characters");
    }
    if name.chars().any(has_no_picture) {
        return Err("a name cannot contain private-use, placeholder or non-characters");
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::validate;

    #[test]
    fn names() {
        assert_eq!(validate("  Ann ").unwrap(), "Ann");
        assert_eq!(validate("<b>bold</b>").unwrap(), "<b>bold</b>");
        assert_eq!(validate("ÅÄÖ 🙂").unwrap(), "ÅÄÖ 🙂");
        assert!(validate("").is_err());
        assert!(validate("   ").is_err());
        assert!(validate(&"x".repeat(25)).is_err());
        assert!(validate(&"é".repeat(24)).is_ok(), "characters, not bytes");
        assert!(validate("a\u{0007}b").is_err());
        assert!(validate("a\nb").is_err());
        assert!(validate("evil\u{202E}gnp").is_err());
        assert!(validate("x\u{2066}y").is_err());
    }

    /// Issue 13, item 9: every one of these draws nothing, alone or repeated,
    /// with or without white space around it.
    #[test]
    fn names_that_render_as_nothing_are_blank() {
        let invisible = [
            ('\u{200B}', "zero-width space"),
            ('\u{200C}', "zero-width non-joiner"),
            ('\u{200D}', "zero-width joiner"),
            ('\u{2060}', "word joiner"),
            ('\u{2063}', "invisible separator"),
            ('\u{FEFF}', "byte order mark"),
            ('\u{3164}', "Hangul filler"),
            ('\u{115F}', "Hangul choseong filler"),
            ('\u{1160}', "Hangul jungseong filler"),
            ('\u{FFA0}', "halfwidth Hangul filler"),
            ('\u{200E}', "left-to-right mark"),
            ('\u{200F}', "right-to-left mark"),
            ('\u{061C}', "Arabic letter mark"),
            ('\u{FE0F}', "variation selector 16"),
            ('\u{FE00}', "variation selector 1"),
            ('\u{E0100}', "variation selector 17"),
            ('\u{180E}', "Mongolian vowel separator"),
            ('\u{00AD}', "soft hyphen"),
            ('\u{034F}', "combining grapheme joiner"),
            ('\u{2800}', "Braille blank"),
            ('\u{E0020}', "tag space"),
            ('\u{17B4}', "Khmer vowel inherent aq"),
        ];
        for (c, what) in invisible {
            for name in [c.to_string(), c.to_string().repeat(3), format!(" {c} \u{3000}{c} ")] {
                assert_eq!(validate(&name), Err("a name cannot be empty"), "{what} (U+{:04X})", c as u32);
            }
        }
        let mixed: String = invisible.iter().map(|(c, _)| *c).take(20).collect();
        assert_eq!(validate(&mixed), Err("a name cannot be empty"), "all of them at once");
        // Line and paragraph separators break a list's lines: refused anywhere.
        for c in ['\u{2028}', '\u{2029}'] {
            assert!(validate(&c.to_string()).is_err(), "U+{:04X} alone", c as u32);
            assert_eq!(validate(&format!("a{c}b")), Err("a name cannot contain control characters"));
        }
        // Next to visible letters they are harmless, and kept.
        assert_eq!(validate("Ann\u{3164}").unwrap(), "Ann\u{3164}");
        assert_eq!(validate("👩\u{200D}🚀").unwrap(), "👩\u{200D}🚀", "ZWJ builds emoji");
        assert_eq!(validate("می\u{200C}خواهم").unwrap(), "می\u{200C}خواهم", "ZWNJ in Persian");
        assert_eq!(validate("\u{200F}שלום").unwrap(), "\u{200F}שלום");
    }

    /// Issue 24: characters with no agreed picture are refused anywhere, and
    /// combining marks alone are as blank as nothing.
    #[test]
    fn private_use_noncharacters_placeholders_and_lone_marks() {
        let refused = "a name cannot contain private-use, placeholder or non-characters";
        for c in ['\u{FFF9}', '\u{FFFA}', '\u{FFFB}', '\u{FFFC}', '\u{FFFD}', '\u{FFFE}', '\u{FFFF}'] {
            assert_eq!(validate(&c.to_string()), Err(refused), "U+{:04X} alone", c as u32);
            assert_eq!(validate(&format!("Ann{c}")), Err(refused), "U+{:04X} beside letters", c as u32);
        }
        for c in ['\u{E000}', '\u{F8FF}', '\u{F0000}', '\u{10FFFD}', '\u{10FFFF}', '\u{1FFFE}', '\u{FDD0}'] {
            assert_eq!(validate(&format!("x{c}")), Err(refused), "U+{:04X}", c as u32);
        }
        // Marks with nothing to sit on: an acute accent, a combining
        // enclosing circle, a Devanagari sign, repeated, with spaces.
        for marks in ["\u{0301}", "\u{0301}\u{0301}\u{0301}", " \u{20DD} ", "\u{093C}\u{200B}"] {
            assert_eq!(validate(marks), Err("a name cannot be empty"), "{:?}", marks);
        }
        // On a letter they are writing: kept.
        assert_eq!(validate("Jose\u{0301}").unwrap(), "Jose\u{0301}");
        assert_eq!(validate("नमस्ते").unwrap(), "नमस्ते");
        // Neighbours of the refused ranges stay fine.
        assert_eq!(validate("\u{FFEE}\u{1F600}\u{1FAF8}").unwrap(), "\u{FFEE}\u{1F600}\u{1FAF8}");
    }
}
