//! Fitting a line of figures into a box's width without cutting a number: a line comes in
//! several wordings, from full labels to short ones to none, and the first that fits is shown;
//! when none does, whole words are dropped from the end and an ellipsis says so.

/// The first of `wordings` (fullest first) that fits `width` columns; else the last, cut at a
/// word boundary by [`fit_words`].
pub fn first_fitting(wordings: &[String], width: usize) -> String {
    wordings
        .iter()
        .find(|w| w.chars().count() <= width)
        .cloned()
        .unwrap_or_else(|| fit_words(wordings.last().map_or("", String::as_str), width))
}

/// `text` in `width` columns: as is when it fits, else its leading whole words followed by
/// `…` (a number is shown whole or not at all, never as a shorter number).
pub fn fit_words(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    for word in text.split(' ') {
        let next = if out.is_empty() {
            word.chars().count()
        } else {
            out.chars().count() + 1 + word.chars().count()
        };
        if next + 1 > width {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    let out = out.trim_end().to_owned();
    if width == 0 { out } else { out + "…" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fullest_wording_that_fits_is_chosen() {
        let wordings = ["depth 103  peak 120".to_owned(), "d 103 pk 120".to_owned()];
        assert_eq!(first_fitting(&wordings, 30), "depth 103  peak 120");
        assert_eq!(first_fitting(&wordings, 15), "d 103 pk 120");
        assert_eq!(first_fitting(&wordings, 8), "d 103…");
    }

    #[test]
    fn words_are_dropped_whole_with_an_ellipsis() {
        assert_eq!(fit_words("handler=slow pending=103", 20), "handler=slow…");
        assert_eq!(fit_words("short", 20), "short");
        assert_eq!(fit_words("pending=103", 5), "…");
    }
}
