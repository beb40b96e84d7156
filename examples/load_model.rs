//! Loads one MJCF model with `moreau::mjcf::load` and prints, as one JSON line, the wall time and
//! the CPU time of the load (the loader is single-threaded: the CPU time of this thread,
//! `moreau::pipeline::thread_cpu_us`) and the growth of the process's peak resident memory it
//! caused (`VmHWM` after the load minus `VmRSS` before it, from `/proc/self/status`).
//! `tools/zoo/bench_load.py` runs it side by side with `mujoco.MjModel.from_xml_path`, measured
//! the same way.
//!
//!     cargo run --release --example load_model -- MODEL.xml

use moreau::pipeline::thread_cpu_us;
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

fn main() -> Result<(), String> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: load_model MODEL.xml")?;
    let rss0 = status_kb("VmRSS:").ok_or("no VmRSS in /proc/self/status")?;
    let cpu0 = thread_cpu_us().ok_or("no thread CPU clock")?;
    let t = Instant::now();
    let m = moreau::load(&path).map_err(|e| e.to_string())?;
    let secs = t.elapsed().as_secs_f64();
    let cpu = (thread_cpu_us().ok_or("no thread CPU clock")? - cpu0) * 1e-6;
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
