//! The one table writer for the reports that are not a live stream — the exit summary, `dump`'s
//! cache and index tables, the resync schedule: kubectl-style plain columns (no borders, a
//! header row unless `--no-headers`, columns three spaces apart), built on comfy-table. Chosen
//! columns are right-aligned (counts); on a terminal the last column wraps within its width.

use comfy_table::{CellAlignment, ColumnConstraint, ContentArrangement, Table, presets};

/// Spaces between columns.
pub const COLUMN_GAP: usize = 3;

/// A table being filled row by row.
pub struct Columns {
    table: Table,
    right_from: Option<usize>,
    width: Option<usize>,
}

impl Columns {
    /// A table with `header` (pass `no_headers` to leave it out; it still names the columns).
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>, no_headers: bool) -> Self {
        let mut table = Table::new();
        table.load_style(presets::NOTHING);
        let header: Vec<String> = header.into_iter().map(Into::into).collect();
        if !no_headers {
            table.set_header(header);
        }
        Self {
            table,
            right_from: None,
            width: None,
        }
    }

    /// Right-aligns the columns from `column` on (counts, figures).
    pub fn right_align_from(mut self, column: usize) -> Self {
        self.right_from = Some(column);
        self
    }

    /// On a terminal `width` columns wide, the last column wraps to stay inside it.
    pub fn wrap_last_to(mut self, width: Option<usize>) -> Self {
        self.width = width;
        self
    }

    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        let cells: Vec<String> = cells.into_iter().map(Into::into).collect();
        self.table.add_row(cells);
    }

    /// Appends the table, a newline after each line (nothing for a table with no lines).
    pub fn write(mut self, out: &mut Vec<u8>) {
        let count = self.table.column_count();
        let gap = u16::try_from(COLUMN_GAP).unwrap_or(u16::MAX);
        for (i, column) in self.table.column_iter_mut().enumerate() {
            let last = i + 1 == count;
            column.set_padding((0, if last { 0 } else { gap }));
            if self.right_from.is_some_and(|from| i >= from) {
                column.set_cell_alignment(CellAlignment::Right);
            }
            if self.width.is_some() && !last {
                column.set_constraint(ColumnConstraint::ContentWidth);
            }
        }
        if let Some(width) = self.width {
            self.table
                .set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(u16::try_from(width).unwrap_or(u16::MAX));
        }
        for line in self.table.lines() {
            out.extend_from_slice(line.trim_end().as_bytes());
            out.push(b'\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(columns: Columns) -> String {
        let mut out = Vec::new();
        columns.write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn columns_are_three_spaces_apart_and_counts_right_aligned() {
        let mut t = Columns::new(["NAME", "COUNT"], false).right_align_from(1);
        t.row(["a", "7"]);
        t.row(["longer", "1234"]);
        assert_eq!(
            written(t),
            "NAME     COUNT\na            7\nlonger    1234\n"
        );
    }

    #[test]
    fn no_headers_leaves_the_header_out() {
        let mut t = Columns::new(["NAME", "VALUE"], true);
        t.row(["a", "b"]);
        assert_eq!(written(t), "a   b\n");
    }

    #[test]
    fn on_a_terminal_the_last_column_wraps_inside_the_width() {
        let mut t = Columns::new(["HANDLER", "ADJUSTMENT"], false).wrap_last_to(Some(30));
        t.row(["fast", "lowered the informer's check period from 3s to 2s"]);
        let text = written(t);
        assert!(text.lines().count() > 2, "{text}");
        for line in text.lines() {
            assert!(line.chars().count() <= 30, "{line:?} in\n{text}");
        }
        assert!(text.contains("lowered"), "{text}");
    }
}
