//! `forward` on f64 allocates nothing on the spatial-tendon and fluid models (spatial tendons with
//! wraps and pulleys, fluid forces, site / slider-crank transmissions, muscles).

use crate::common;

use crate::alloc_counter;
use alloc_counter::allocations;
use common::tendon_fluid::*;
use common::*;

#[test]
fn phys8_forward_does_not_allocate() {
    let all = load();
    for e in all["models"].as_array().unwrap() {
        let m = build(&e["model"]);
        let mut d = moreau::Data::<f64>::new(&m);
        set_state(&m, &mut d, &e["cases"][1]);
        let before = allocations();
        for _ in 0..3 {
            moreau::forward(&m, &mut d);
        }
        let n = allocations() - before;
        assert_eq!(n, 0, "{}: {n} allocations", e["name"]);
    }
}
