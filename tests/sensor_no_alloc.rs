//! `forward` with sensors (including `rne_post_constraint` and `subtree_vel`) and `inverse`
//! (with invdiscrete) allocate nothing on f64 (counting global allocator).

mod common;
mod sensor_common;

use common::*;
use moreau::model::{enable, Integrator};
use sensor_common::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

#[test]
fn sensors_and_inverse_do_not_allocate() {
    let all = load("sensor_cases.json");
    for e in all["models"].as_array().unwrap() {
        let mut m = build_sensor_model(&e["model"]);
        let mut d = moreau::Data::<f64>::new(&m);
        set_state(&m, &mut d, &e["cases"][0]);
        for integ in [
            Integrator::Euler,
            Integrator::ImplicitFast,
            Integrator::Implicit,
        ] {
            m.opt.integrator = integ;
            m.opt.enableflags |= enable::INVDISCRETE;
            let before = ALLOCS.load(Ordering::SeqCst);
            for _ in 0..2 {
                moreau::forward::forward(&m, &mut d);
                moreau::inverse::inverse(&m, &mut d);
            }
            let n = ALLOCS.load(Ordering::SeqCst) - before;
            assert_eq!(n, 0, "{}: {n} allocations", e["name"]);
        }
    }
}
