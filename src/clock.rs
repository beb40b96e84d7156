//! CPU clocks for timings on a loaded machine, where wall-clock time mostly measures waiting for
//! a core (used by `moreau bench` and the optimizers' examples).

/// CPU time of the calling thread in µs (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, 64-bit
/// Linux); `None` elsewhere or on failure.
pub fn thread_cpu_us() -> Option<f64> {
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
        (r == 0).then_some(t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 * 1e-3)
    }
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    {
        None
    }
}
