//! libFuzzer target: an MJCF document (plus included and asset files, see `harness::split`)
//! through load, compile, a few steps, forward, inverse and the finite-difference and analytic
//! Jacobians. A panic, a stack overflow, a hang (libFuzzer's `-timeout`), an allocation above
//! `-malloc_limit_mb`, or a silent NaN (`harness::run`'s checks) is a finding. The mutator is
//! structure-aware (`mutate::mutate`). How to run it: fuzz/README.md.

#![no_main]

#[path = "../src/harness.rs"]
mod harness;
#[path = "../src/mutate.rs"]
mod mutate;

use libfuzzer_sys::{fuzz_mutator, fuzz_target};

fuzz_target!(|data: &[u8]| {
    static STAGES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *STAGES.get_or_init(|| std::env::var_os("MOREAU_FUZZ_STAGES").is_some()) {
        // the CPU time of each stage of this input, on stderr (fuzz/README.md, "Slow inputs")
        let cpu = || moreau::pipeline::thread_cpu_us().unwrap_or(f64::NAN) * 1e-6;
        let mut last = cpu();
        harness::run_staged(data, &mut |name| {
            let now = cpu();
            eprintln!("stage {name:20} {:9.3} s CPU", now - last);
            last = now;
        });
    } else {
        harness::run(data);
    }
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    mutate::mutate(data, size, max_size, seed)
});
