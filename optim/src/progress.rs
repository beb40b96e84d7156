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

/// A fixed-width text table: a header row and rows of cells.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let ncol = header.len();
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate().take(ncol) {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let s: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{:<width$}", c, width = w[i]))
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
