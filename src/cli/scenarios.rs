//! `kinformer scenarios`: the built-in scenarios, one row each — the name `--scenario NAME`
//! plays and the first sentence of what it shows.

use std::io::{self, Write};

use crate::scenario::builtin::BUILTIN;
use crate::scenario::parse;

/// Writes the NAME and DESCRIPTION table.
pub fn print(out: &mut dyn Write) -> io::Result<()> {
    let width = BUILTIN
        .iter()
        .map(|(name, _)| name.len())
        .max()
        .unwrap_or(0);
    writeln!(out, "{:width$}   DESCRIPTION", "NAME")?;
    for (name, text) in BUILTIN {
        let description = parse(text)
            .map(|s| first_sentence(&s.description))
            .unwrap_or_default();
        writeln!(out, "{name:width$}   {description}")?;
    }
    Ok(())
}

/// The text up to its first full stop followed by a space (or all of it), on one line.
fn first_sentence(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match text.find(". ") {
        Some(end) => text[..=end].to_owned(),
        None => text,
    }
}
