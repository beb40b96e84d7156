//! What users see during long optimizations: an indicatif progress bar (also as an argmin
//! observer) and a plain-text summary table.

use argmin::core::observers::Observe;
use argmin::core::{Error, State, KV};
use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar over `len` iterations showing the latest cost; hidden when stderr is not a
/// terminal or `MOREAU_NO_PROGRESS` is set.
pub fn bar(len: u64, label: &str) -> ProgressBar {
    let pb = if std::env::var_os("MOREAU_NO_PROGRESS").is_some() {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(len)
    };
    pb.set_style(
        ProgressStyle::with_template("{prefix:>14} [{bar:30}] {pos:>4}/{len} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_prefix(label.to_string());
    pb
}

/// An argmin observer driving a progress bar: one tick per iteration, the message shows the
/// observer's key-value log (cost, dynamics residual).
pub struct ProgressObserver {
    pub bar: ProgressBar,
}

impl<I: State> Observe<I> for ProgressObserver {
    fn observe_iter(&mut self, _state: &I, kv: &KV) -> Result<(), Error> {
        let get = |k: &str| kv.get(k).and_then(|v| v.get_float());
        let msg = match (get("cost"), get("defect")) {
            (Some(c), Some(d)) => format!("cost {c:.6} defect {d:.1e}"),
            (Some(c), None) => format!("cost {c:.6}"),
            _ => String::new(),
        };
        self.bar.set_message(msg);
        self.bar.inc(1);
        Ok(())
    }
    fn observe_final(&mut self, _state: &I) -> Result<(), Error> {
        self.bar.finish();
        Ok(())
    }
}

/// The widest line [`table`] prints (characters), so that summaries fit a terminal.
pub const TABLE_WIDTH: usize = 100;

/// A fixed-width text table: a header row and rows of cells, at most [`TABLE_WIDTH`]
/// characters wide. A table that would be wider is printed transposed (one line per column,
/// one column per row, headed by the row's first cell), and when that is still too wide, as
/// several such tables over groups of the rows, each repeating the label column.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let wide = grid(header, rows);
    if width(&wide) <= TABLE_WIDTH || rows.is_empty() {
        return wide;
    }
    let ncol = header.len();
    let cell = |r: &Vec<String>, j: usize| r.get(j).cloned().unwrap_or_default();
    // transposed: column 0 holds the original header, then one column per row
    let columns: Vec<Vec<String>> = rows
        .iter()
        .map(|r| (0..ncol).map(|j| cell(r, j)).collect())
        .collect();
    let mut out = String::new();
    let mut start = 0;
    while start < columns.len() {
        // as many rows as fit (at least one)
        let mut end = start + 1;
        while end < columns.len()
            && width(&transposed(header, &columns[start..=end])) <= TABLE_WIDTH
        {
            end += 1;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out += &transposed(header, &columns[start..end]);
        start = end;
    }
    out
}

/// `columns` (each an original row) side by side, labelled by `header` (its first entry
/// heads the label column).
fn transposed(header: &[&str], columns: &[Vec<String>]) -> String {
    let head: Vec<&str> = std::iter::once(header[0])
        .chain(columns.iter().map(|c| c[0].as_str()))
        .collect();
    let body: Vec<Vec<String>> = (1..header.len())
        .map(|j| {
            std::iter::once(header[j].to_string())
                .chain(columns.iter().map(|c| c[j].clone()))
                .collect()
        })
        .collect();
    grid(&head, &body)
}

fn width(t: &str) -> usize {
    t.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

fn grid(header: &[&str], rows: &[Vec<String>]) -> String {
    let ncol = header.len();
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate().take(ncol) {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let s: Vec<String> = (0..ncol)
            .map(|i| {
                format!(
                    "{:<width$}",
                    cells.get(i).copied().unwrap_or(""),
                    width = w[i]
                )
            })
            .collect();
        format!("| {} |\n", s.join(" | "))
    };
    let mut out = line(header.to_vec());
    let sep: Vec<String> = w.iter().map(|n| "-".repeat(*n)).collect();
    out += &format!("|-{}-|\n", sep.join("-|-"));
    for r in rows {
        out += &line(r.iter().map(|s| s.as_str()).collect());
    }
    out
}

/// CPU time of the calling thread in ms ([`moreau::pipeline::thread_cpu_us`]; `None` where that
/// clock is unavailable).
pub fn thread_cpu_ms() -> Option<f64> {
    moreau::pipeline::thread_cpu_us().map(|us| us * 1e-3)
}

/// Runs `solve(bar)` with a progress bar over `len` iterations labelled `label` (which `solve`
/// advances), cleared afterwards; returns its result with the wall and thread-CPU
/// milliseconds it took.
pub fn timed_with_bar<T>(
    len: u64,
    label: &str,
    solve: impl FnOnce(&ProgressBar) -> T,
) -> (T, f64, f64) {
    let pb = bar(len, label);
    let (t0, c0) = (std::time::Instant::now(), thread_cpu_ms());
    let out = solve(&pb);
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let cpu = cpu_ms_since(c0);
    pb.finish_and_clear();
    (out, ms, cpu)
}

/// Thread CPU ms since `c0 = thread_cpu_ms()` (NaN where the clock is unavailable).
pub fn cpu_ms_since(c0: Option<f64>) -> f64 {
    match (c0, thread_cpu_ms()) {
        (Some(a), Some(b)) => b - a,
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_tables_are_unchanged() {
        let t = table(&["a", "bb"], &[vec!["1".into(), "22".into()]]);
        assert_eq!(t, "| a | bb |\n|---|----|\n| 1 | 22 |\n");
    }

    #[test]
    fn wide_tables_fit_and_keep_every_cell() {
        let header: Vec<String> = (0..14)
            .map(|j| format!("quantity number {j} unit"))
            .collect();
        let h: Vec<&str> = header.iter().map(|s| s.as_str()).collect();
        let rows: Vec<Vec<String>> = (0..6)
            .map(|i| (0..14).map(|j| format!("run{i} value {j}")).collect())
            .collect();
        assert!(width(&grid(&h, &rows)) > TABLE_WIDTH);
        let t = table(&h, &rows);
        assert!(width(&t) <= TABLE_WIDTH, "{t}");
        for r in &rows {
            for c in r {
                assert!(t.contains(c.as_str()), "{c} missing");
            }
        }
        for q in &header {
            assert!(t.contains(q.as_str()));
        }
    }
}
