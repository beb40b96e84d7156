//! `integrator::step` on f64 allocates nothing, under every integrator (counting global
//! allocator), on the MJCF models the pipeline supports.

use moreau::model::Integrator;
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
fn step_does_not_allocate() {
    for name in ["arm7", "free_body", "ball_pendulum", "cartpole"] {
        let path = format!("{}/models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
        let mut m = moreau::mjcf::load(&path).unwrap();
        for integ in [
            Integrator::Euler,
            Integrator::ImplicitFast,
            Integrator::Implicit,
            Integrator::Rk4,
        ] {
            m.opt.integrator = integ;
            let mut d = moreau::Data::<f64>::new(&m);
            if m.nkey > 0 {
                d.reset_keyframe(&m, 0).unwrap();
            }
            d.ctrl.iter_mut().for_each(|c| *c = 0.3);
            let before = ALLOCS.load(Ordering::SeqCst);
            for _ in 0..5 {
                moreau::integrator::step(&m, &mut d);
            }
            let n = ALLOCS.load(Ordering::SeqCst) - before;
            assert_eq!(n, 0, "{name} {integ:?}: {n} allocations");
        }
    }
}
