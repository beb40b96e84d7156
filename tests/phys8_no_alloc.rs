//! `forward` on f64 allocates nothing on the issue-8 models (spatial tendons with wraps and
//! pulleys, fluid forces, site / slider-crank transmissions, muscles).

mod common;

use common::phys8::*;
use common::*;
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
fn phys8_forward_does_not_allocate() {
    let all = load();
    for e in all["models"].as_array().unwrap() {
        let m = build(&e["model"]);
        let mut d = moreau::Data::<f64>::new(&m);
        set_state(&m, &mut d, &e["cases"][1]);
        let before = ALLOCS.load(Ordering::SeqCst);
        for _ in 0..3 {
            moreau::forward::forward(&m, &mut d);
        }
        let n = ALLOCS.load(Ordering::SeqCst) - before;
        assert_eq!(n, 0, "{}: {n} allocations", e["name"]);
    }
}
