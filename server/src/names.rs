//! Player names: what is accepted, and why. Names are data: the server never
//! escapes or strips markup (`<b>` is a fine name); clients set them as text.

/// The longest name, in characters (not bytes).
pub const MAX_NAME_CHARS: usize = 24;

/// Checks a name and returns it trimmed of surrounding white space, or a
/// human reason for the `bad_name` error.
pub fn validate(raw: &str) -> Result<String, &'static str> {
    let name = raw.trim();
    if name.is_empty() {
        return Err("a name cannot be empty");
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err("a name is at most 24 characters");
    }
    if name.chars().any(char::is_control) {
        return Err("a name cannot contain control characters");
    }
    // Bidi embeddings, overrides and isolates can make a name run over its
    // neighbours in a list (or disguise itself as someone else's).
    if name.chars().any(|c| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')) {
        return Err("a name cannot contain bidirectional control characters");
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
}
