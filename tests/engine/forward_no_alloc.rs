//! `forward` on f64 allocates nothing (counting global allocator).

use crate::common;

use crate::alloc_counter;
use alloc_counter::allocations;
use common::*;

#[test]
fn forward_and_checks_do_not_allocate() {
    let all = load_cases();
    for e in all["models"].as_array().unwrap() {
        let m = build_model(&e["model"]);
        let mut d = moreau::Data::<f64>::new(&m);
        set_state(&m, &mut d, &e["cases"][0]);
        let before = allocations();
        for _ in 0..3 {
            moreau::pipeline::check_pos(&m, &mut d);
            moreau::pipeline::check_vel(&m, &mut d);
            moreau::forward(&m, &mut d);
            moreau::pipeline::check_acc(&m, &mut d);
        }
        let n = allocations() - before;
        assert_eq!(n, 0, "{}: {n} allocations", e["name"]);
    }
}

/// The counter sees this thread's allocations (so a zero above means something).
#[test]
fn counter_counts_this_threads_allocations() {
    let before = allocations();
    let v: Vec<u64> = std::hint::black_box(Vec::with_capacity(64));
    let n = allocations() - before;
    drop(v);
    assert_eq!(n, 1);
}
