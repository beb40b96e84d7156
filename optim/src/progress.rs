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

/// CPU time of the calling thread in ms (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, Linux 64-bit;
/// `None` elsewhere): for timings on a loaded machine, where wall time mostly measures waiting
/// for a core. (The same clock as `thread_cpu_us` of the `moreau` CLI, which cannot depend on
/// this crate.)
pub fn thread_cpu_ms() -> Option<f64> {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    {
        #[repr(C)]
        struct Timespec {
            tv_sec: i64,
            tv_nsec: i64,
        }
        extern "C" {
            fn clock_gettime(clk: i32, tp: *mut Timespec) -> i32;
        }
        const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
        let mut t = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid, exclusively borrowed timespec (two 64-bit fields on 64-bit
        // Linux); clock_gettime only writes it.
        let r = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
        (r == 0).then_some(t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 * 1e-6)
    }
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    {
        None
    }
}

/// Thread CPU ms since `c0 = thread_cpu_ms()` (NaN where the clock is unavailable).
pub fn cpu_ms_since(c0: Option<f64>) -> f64 {
    match (c0, thread_cpu_ms()) {
        (Some(a), Some(b)) => b - a,
        _ => f64::NAN,
    }
}
