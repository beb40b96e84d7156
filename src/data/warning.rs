//! Warnings (`mjtWarning`, `mjWarningStat`, `mj_warning`) and the handler that reports them
//! (`mju_user_warning`).
//!
//! MuJoCo's `mj_warning` prints the warning's text with the simulation time through
//! `mju_warning` only when its counter is zero, i.e. the first time since the last
//! `mj_resetData`; the divergence checks call it before they reset, then set the counter to 1, so
//! the same `mjData` diverging again prints nothing until it is reset explicitly (measured on
//! MuJoCo 4.0.0). `mju_warning`'s default handler writes `WARNING: <text>` and an empty line to
//! stderr and appends `WARNING <ctime>: <text>` and an empty line to `MUJOCO_LOG.TXT` in the
//! working directory (Programming "Error and memory", `mju_user_warning`). The engine calls no
//! handler by default (a library that writes files unasked would surprise its callers);
//! [`set_warning_handler`] with [`mujoco_warning_handler`] reproduces MuJoCo's, as the Python
//! package does at import.

use super::arena;
use std::io::Write;
use std::sync::RwLock;

/// Warning kinds (`mjtWarning`), recorded instead of panicking. Values are MuJoCo 4.0.0's
/// (which has no `VGEOMFULL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warning {
    Inertia = 0,
    ContactFull = 1,
    CnstrFull = 2,
    BadQpos = 3,
    BadQvel = 4,
    BadQacc = 5,
    BadCtrl = 6,
}

/// Number of warning kinds.
pub const NWARNING: usize = 7;

impl Warning {
    /// Every kind, in `mjtWarning` order (index = `self as usize`).
    pub const ALL: [Warning; NWARNING] = [
        Warning::Inertia,
        Warning::ContactFull,
        Warning::CnstrFull,
        Warning::BadQpos,
        Warning::BadQvel,
        Warning::BadQacc,
        Warning::BadCtrl,
    ];

    /// MuJoCo's `mju_warningText(warning, info)`, word for word.
    pub fn text(self, info: i64) -> String {
        let bad = |what: &str, at: &str| {
            format!("Nan, Inf or huge value in {what} at {at} {info}. The simulation is unstable.")
        };
        match self {
            Warning::Inertia => format!(
                "Inertia matrix is too close to singular, or the effective-metric solve failed \
                 to converge, at DOF {info}. Check model."
            ),
            Warning::ContactFull => format!(
                "Too many contacts. The arena memory is full, increase arena memory \
                 allocation.(ncon = {info})"
            ),
            Warning::CnstrFull => format!(
                "Insufficient arena memory for the number of constraints generated. Increase \
                 arena memory allocation above {} bytes.",
                arena::format_bytes(usize::try_from(info).unwrap_or(0))
            ),
            Warning::BadQpos => bad("QPOS", "DOF"),
            Warning::BadQvel => bad("QVEL", "DOF"),
            Warning::BadQacc => bad("QACC", "DOF"),
            Warning::BadCtrl => bad("CTRL", "ACTUATOR"),
        }
    }

    /// The line MuJoCo's default handler prints when `mj_warning` fires at simulation time
    /// `time`: `WARNING: <text> Time = <time, 4 decimals>.`
    pub fn message(self, info: i64, time: f64) -> String {
        format!("WARNING: {} Time = {time:.4}.", self.text(info))
    }

    /// True for the divergence checks (`mj_checkPos`, `mj_checkVel`, `mj_checkAcc`), which reset
    /// the state unless the autoreset flag is disabled.
    pub fn resets(self) -> bool {
        matches!(self, Warning::BadQpos | Warning::BadQvel | Warning::BadQacc)
    }
}

/// Per-kind warning statistics (`mjWarningStat`): the last info value (e.g. the offending
/// index) and how many times it happened.
#[derive(Clone, Copy, Debug, Default)]
pub struct WarningStat {
    pub lastinfo: i64,
    pub number: u64,
}

/// A warning handler (`mju_user_warning`): receives the whole message, `<text> Time = <t>.`.
pub type WarningHandler = fn(&str);

static HANDLER: RwLock<Option<WarningHandler>> = RwLock::new(None);

/// Installs `handler` (or none) for every later warning, as setting `mju_user_warning` does;
/// returns the previous one.
pub fn set_warning_handler(handler: Option<WarningHandler>) -> Option<WarningHandler> {
    let mut h = HANDLER.write().unwrap_or_else(|e| e.into_inner());
    std::mem::replace(&mut *h, handler)
}

/// Passes `w`'s message to the handler, if one is installed (`mju_warning`).
pub(super) fn report(w: Warning, info: i64, time: f64) {
    let h = *HANDLER.read().unwrap_or_else(|e| e.into_inner());
    if let Some(h) = h {
        h(&format!("{} Time = {time:.4}.", w.text(info)));
    }
}

thread_local! {
    /// The messages [`report_message`] keeps instead of passing them to the handler, while
    /// [`capture_messages`] runs on this thread.
    static CAPTURED: std::cell::RefCell<Option<Vec<String>>> =
        const { std::cell::RefCell::new(None) };
}

/// Passes a message without a simulation time to the handler, if one is installed (the
/// compiler's `mju_warning` calls); inside [`capture_messages`], keeps it instead.
pub(crate) fn report_message(msg: &str) {
    let kept = CAPTURED.with(|c| match c.borrow_mut().as_mut() {
        Some(v) => {
            v.push(msg.to_string());
            true
        }
        None => false,
    });
    if kept {
        return;
    }
    let h = *HANDLER.read().unwrap_or_else(|e| e.into_inner());
    if let Some(h) = h {
        h(msg);
    }
}

/// Runs `f`, keeping the compiler's and the reset's warning messages it gives on this thread
/// (in order) instead of passing them to the handler, as MuJoCo's Python `MjSpec.compile`
/// raises them as `UserWarning`s instead of printing them; returns `f`'s result and the
/// messages. Nested calls keep their own messages.
pub fn capture_messages<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let outer = CAPTURED.with(|c| c.borrow_mut().replace(Vec::new()));
    // restored even if `f` unwinds
    struct Restore(Option<Option<Vec<String>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(outer) = self.0.take() {
                CAPTURED.with(|c| *c.borrow_mut() = outer);
            }
        }
    }
    let mut guard = Restore(Some(outer));
    let r = f();
    let outer = guard.0.take().unwrap_or_default();
    let kept = CAPTURED.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer));
    (r, kept.unwrap_or_default())
}

/// MuJoCo's default warning handler: `WARNING: <msg>` and an empty line on stderr, and
/// `WARNING <date>: <msg>` and an empty line appended to `MUJOCO_LOG.TXT` in the working
/// directory (the date as `ctime` writes it: local time, after `TZ`). Errors writing either are
/// ignored, as MuJoCo's `mju_writeLog` ignores a file it cannot open.
pub fn mujoco_warning_handler(msg: &str) {
    let _ = write!(std::io::stderr().lock(), "WARNING: {msg}\n\n");
    let line = format!(
        "WARNING {}: {msg}\n\n",
        ctime_local(std::time::SystemTime::now())
    );
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open("MUJOCO_LOG.TXT")
    {
        let _ = f.write_all(line.as_bytes());
    }
}

/// `ctime(&t)` without its newline (`Sun Nov 29 19:39:56 2026`): `t` in local time, the
/// zone's offset from C's `localtime_r` after `tzset` (so a changed `TZ` is read, as `ctime`
/// reads it); in UTC where that is not available.
fn ctime_local(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let offset = utc_offset(secs).unwrap_or(0);
    ctime_utc(secs.saturating_add_signed(offset))
}

/// Seconds east of UTC of the local time zone at `secs` since the epoch (`tm_gmtoff` of
/// `localtime_r`; glibc and musl on 64-bit Linux), `None` elsewhere or on failure.
fn utc_offset(secs: u64) -> Option<i64> {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    {
        /// C's `struct tm` with the `tm_gmtoff` and `tm_zone` members of glibc and musl (its
        /// fields are written by C, only `tm_gmtoff` is read).
        #[allow(dead_code)]
        #[repr(C)]
        struct Tm {
            ints: [i32; 9],
            tm_gmtoff: i64,
            tm_zone: *const u8,
        }
        extern "C" {
            fn tzset();
            fn localtime_r(t: *const i64, out: *mut Tm) -> *mut Tm;
        }
        let t = i64::try_from(secs).ok()?;
        let mut tm = Tm {
            ints: [0; 9],
            tm_gmtoff: 0,
            tm_zone: std::ptr::null(),
        };
        // SAFETY: tzset takes no arguments; `t` and `tm` are valid and exclusively borrowed for
        // the call (`time_t` is 64-bit and `struct tm` has this layout on 64-bit Linux), and
        // localtime_r only writes `tm`.
        let r = unsafe {
            tzset();
            localtime_r(&t, &mut tm)
        };
        (!r.is_null()).then_some(tm.tm_gmtoff)
    }
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    {
        let _ = secs;
        None
    }
}

/// `ctime`'s format without its newline (`Sun Nov 29 19:39:56 2026`) of `secs` since the epoch
/// in UTC.
fn ctime_utc(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // civil date from days since 1970-01-01 (proleptic Gregorian, eras of 400 years)
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    const WEEKDAY: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTH: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {day:2} {:02}:{:02}:{:02} {year}",
        WEEKDAY[(days % 7) as usize],
        MONTH[(month - 1) as usize],
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::ctime_utc;

    /// `time.asctime(time.gmtime(s))` of Python for a few instants (leap day, year ends).
    #[test]
    fn ctime_is_asctimes() {
        for (s, want) in [
            (0, "Thu Jan  1 00:00:00 1970"),
            (951_782_400, "Tue Feb 29 00:00:00 2000"),
            (1_798_573_196, "Tue Dec 29 19:39:56 2026"),
            (4_102_444_799, "Thu Dec 31 23:59:59 2099"),
        ] {
            assert_eq!(ctime_utc(s), want);
        }
    }
}
