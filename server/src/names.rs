//! Player names: what is accepted, and why. Names are data: the server never
//! escapes or strips markup (`<b>` is a fine name); clients set them as text.
//! What is refused is what a list of names cannot show honestly: nothing
//! visible (no character of a visible category, [`is_visible`]), control
//! and bidi characters, and characters that have no agreed picture
//! (private use, noncharacters, placeholders).

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

use crate::metrics::{self, NameRefusal};

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

/// Code points Unicode keeps for pictographs not yet encoded (they carry
/// Extended_Pictographic in emoji-data.txt while unassigned): the emoji
/// blocks from Mahjong tiles to Symbols and Pictographs Extended-A, and
/// the reserved U+1FC00 to U+1FFFD.
fn is_future_pictograph(c: char) -> bool {
    matches!(c as u32, 0x1F000..=0x1FAFF | 0x1FC00..=0x1FFFD)
}

/// Whether `c` draws something of its own in a list of names: a letter, a
/// digit, punctuation, a symbol or a spacing mark. Not white space, the
/// invisible characters above, combining marks (Mn, Me: an accent or an
/// enclosing circle draws on the character before it, so with no letter
/// to sit on it is a smudge, or nothing), format characters (Cf: U+0600,
/// U+110BD, U+13430 draw nothing alone), controls, private use, or code
/// points this build's tables leave unassigned (Cn: U+1D455 is a hole that
/// will stay one). The exception among those: an unassigned code point in
/// the emoji blocks ([`is_future_pictograph`]) is an emoji newer than the
/// tables, which players' devices do draw, so a name of one new emoji is
/// still a name. A letter of a script newer than the tables is not
/// excepted: such a name is refused until the tables are updated.
fn is_visible(c: char) -> bool {
    use GeneralCategory as G;
    if c.is_whitespace() || is_invisible(c) {
        return false;
    }
    match c.general_category() {
        G::NonspacingMark
        | G::EnclosingMark
        | G::Format
        | G::Control
        | G::Surrogate
        | G::PrivateUse
        | G::SpaceSeparator
        | G::LineSeparator
        | G::ParagraphSeparator => false,
        G::Unassigned => is_future_pictograph(c),
        _ => true,
    }
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
/// Listed by range rather than "unassigned", and refused anywhere: an
/// emoji newer than this build's tables must still be a fine name. (An
/// unassigned code point elsewhere is let through beside visible ones,
/// like a zero-width joiner; alone it is blank, see [`is_visible`].)
fn has_no_picture(c: char) -> bool {
    let u = c as u32;
    matches!(u, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF | 0xFDD0..=0xFDEF | 0xFFF9..=0xFFFD)
        || u & 0xFFFE == 0xFFFE
}

/// Checks a name and returns it trimmed of surrounding white space, or a
/// human reason for the `bad_name` error (counted by its kind in
/// `mazerace_names_refused_total`).
pub fn validate(raw: &str) -> Result<String, &'static str> {
    check(raw.trim()).map(str::to_owned).map_err(|(kind, why)| {
        metrics::name_refused(kind);
        why
    })
}

fn check(name: &str) -> Result<&str, (NameRefusal, &'static str)> {
    // First, so a lone placeholder is told why rather than "empty".
    if name.chars().any(has_no_picture) {
        return Err((
            NameRefusal::NoPicture,
            "a name cannot contain private-use, placeholder or non-characters",
        ));
    }
    if !name.chars().any(is_visible) {
        return Err((NameRefusal::Blank, "a name cannot be empty"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err((NameRefusal::TooLong, "a name is at most 24 characters"));
    }
    // U+2028/U+2029 are line breaks that `char::is_control` does not cover.
    if name.chars().any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')) {
        return Err((NameRefusal::Control, "a name cannot contain control characters"));
    }
    // Bidi embeddings, overrides and isolates can make a name run over its
    // neighbours in a list (or disguise itself as someone else's).
    if name.chars().any(|c| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')) {
        return Err((NameRefusal::Control, "a name cannot contain bidirectional control characters"));
    }
    Ok(name)
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

    /// Issue 34, item 8: a name made only of format characters (category
    /// Cf) or of code points this build's tables do not assign (Cn) draws
    /// nothing and is refused like a blank one; beside a visible character
    /// they are kept, and a lone emoji newer than the tables (a code point
    /// Unicode keeps for pictographs) is a fine name.
    #[test]
    fn names_of_format_or_unassigned_characters_only_are_blank() {
        use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
        let cases = [
            ('\u{0600}', GeneralCategory::Format, "Arabic number sign"),
            ('\u{110BD}', GeneralCategory::Format, "Kaithi number sign"),
            ('\u{13430}', GeneralCategory::Format, "Egyptian hieroglyph vertical joiner"),
            ('\u{1D455}', GeneralCategory::Unassigned, "the hole in mathematical italic small h"),
            ('\u{0378}', GeneralCategory::Unassigned, "unassigned in Greek"),
            ('\u{E0001}', GeneralCategory::Format, "language tag"),
        ];
        for (c, category, what) in cases {
            assert_eq!(c.general_category(), category, "{what}: the tables' category");
            for name in [c.to_string(), c.to_string().repeat(3), format!(" {c} {c} ")] {
                assert_eq!(validate(&name), Err("a name cannot be empty"), "{what} (U+{:04X})", c as u32);
            }
        }
        let counted = r#"mazerace_names_refused_total{reason="blank"}"#;
        let before = crate::metrics::read(counted);
        let all: String = cases.iter().map(|(c, ..)| *c).collect();
        assert_eq!(validate(&all), Err("a name cannot be empty"), "all of them at once");
        assert!(crate::metrics::read(counted) > before, "counted for the operator");
        assert_eq!(validate("\u{200D}\u{0600}\u{1D455}"), Err("a name cannot be empty"), "with a ZWJ");
        // Beside something visible they are kept: digits after the number sign.
        assert_eq!(validate("\u{0600}123").unwrap(), "\u{0600}123");
        assert_eq!(validate("Ann\u{1D455}").unwrap(), "Ann\u{1D455}");
        // Every code point of the emoji blocks the tables leave unassigned
        // (Extended_Pictographic keeps them for future emoji) is a name.
        let future: Vec<char> = (0x1F000..=0x1FAFF)
            .chain(0x1FC00..=0x1FFFD)
            .filter_map(char::from_u32)
            .filter(|c| c.general_category() == GeneralCategory::Unassigned)
            .collect();
        assert!(future.len() > 100, "the tables leave room for new emoji: {}", future.len());
        for c in future {
            assert_eq!(validate(&c.to_string()).as_deref(), Ok(&*c.to_string()), "U+{:04X}", c as u32);
        }
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
