//! Loads one MJCF model with `moreau::mjcf::load` and prints, as one JSON line, the wall time and
//! the CPU time of the load (the loader is single-threaded: the CPU time of this thread, from
//! `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`) and the growth of the process's peak resident
//! memory it caused (`VmHWM` after the load minus `VmRSS` before it, from `/proc/self/status`).
//! `tools/zoo/bench_load.py` runs it side by side with `mujoco.MjModel.from_xml_path`, measured
//! the same way.
//!
//!     cargo run --release --example load_model -- MODEL.xml

use std::time::Instant;

/// A `kB` field of `/proc/self/status`, in bytes.
fn status_kb(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// `clock_gettime`'s time value (64-bit Linux).
#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
}

/// Linux's `CLOCK_THREAD_CPUTIME_ID`.
const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

/// Nanoseconds this thread has run (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`: exact, where
/// `/proc/self/schedstat` advances only at scheduler ticks and reads 0 for a load of a few ms).
fn cpu_ns() -> Option<u64> {
    let mut t = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable `struct timespec` for the duration of the call.
    let r = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (r == 0).then(|| t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
}

fn main() -> Result<(), String> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: load_model MODEL.xml")?;
    let rss0 = status_kb("VmRSS:").ok_or("no VmRSS in /proc/self/status")?;
    let cpu0 = cpu_ns().ok_or("clock_gettime failed")?;
    let t = Instant::now();
    let m = moreau::load(&path).map_err(|e| e.to_string())?;
    let secs = t.elapsed().as_secs_f64();
    let cpu = (cpu_ns().ok_or("clock_gettime failed")? - cpu0) as f64 * 1e-9;
    let hwm = status_kb("VmHWM:").ok_or("no VmHWM in /proc/self/status")?;
    println!(
        "{{\"seconds\": {secs:e}, \"cpu_seconds\": {cpu:e}, \"peak_bytes\": {}, \"nq\": {}, \"nv\": {}, \"nmesh\": {}}}",
        hwm.saturating_sub(rss0),
        m.nq,
        m.nv,
        m.nmesh
    );
    Ok(())
}
