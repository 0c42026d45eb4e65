//! The demo's narration on stderr: a line per phase of the tour, told after the table rows it
//! speaks of (stdout is flushed first, so on a terminal a line never comes before the header
//! or the rows it names) and wrapped at word boundaries to the terminal's width.

use std::io::{self, Write};

use crate::informer::trace::Event;

/// What to tell of an event (a line starting `── `), when anything.
pub type Narrator = Box<dyn FnMut(&Event) -> Option<String>>;

/// A narrator, and the lines it told that are not written yet.
pub struct Narration {
    narrator: Narrator,
    out: Box<dyn Write>,
    width: Option<usize>,
    told: Vec<String>,
}

impl Narration {
    /// Lines from `narrator`, written to stderr and wrapped to its width on a terminal.
    pub fn to_stderr(narrator: Narrator) -> Self {
        Self::new(narrator, Box::new(io::stderr()), stderr_width())
    }

    /// Lines from `narrator`, written to `out`, wrapped to `width` when given.
    pub fn new(narrator: Narrator, out: Box<dyn Write>, width: Option<usize>) -> Self {
        Self {
            narrator,
            out,
            width,
            told: Vec::new(),
        }
    }

    /// Notes what the narrator tells of `event`, to be written at [`Self::write_told`].
    pub fn observe(&mut self, event: &Event) {
        if let Some(line) = (self.narrator)(event) {
            self.told.push(line);
        }
    }

    /// Writes what was told since the last call.
    pub fn write_told(&mut self) -> io::Result<()> {
        for line in std::mem::take(&mut self.told) {
            for part in wrapped(&line, self.width) {
                writeln!(self.out, "{part}")?;
            }
        }
        self.out.flush()
    }
}

/// `line` broken between words to fit `width` (when given); continuation lines are indented
/// under the text after a leading `── `.
pub fn wrapped(line: &str, width: Option<usize>) -> Vec<String> {
    let Some(width) = width else {
        return vec![line.to_owned()];
    };
    let (first, words) = match line.strip_prefix("── ") {
        Some(rest) => ("── ".to_owned(), rest),
        None => (String::new(), line),
    };
    super::table::wrap(first, words, width)
}

/// The width of the terminal stderr is, if it is one.
pub fn stderr_width() -> Option<usize> {
    terminal_size::terminal_size_of(io::stderr()).map(|(terminal_size::Width(w), _)| usize::from(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narration_line_wraps_between_words_under_its_text() {
        let line = "── resync: fast's resync period is due, so it gets an update for every \
                    cached pod with an unchanged resourceVersion (the sync row)";
        let lines = wrapped(line, Some(80));
        assert!(lines.len() > 1, "{lines:?}");
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{lines:?}");
        assert!(
            lines[1..]
                .iter()
                .all(|l| l.starts_with("   ") && !l.starts_with("    "))
        );
        let words: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(words.join(" "), line, "no word cut or lost");
        assert_eq!(wrapped(line, None), [line]);
    }
}
