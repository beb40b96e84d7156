//! `forward` with sensors (including `rne_post_constraint` and `subtree_vel`) and `inverse`
//! (with invdiscrete) allocate nothing on f64 (counting global allocator).

use crate::common;
use crate::sensor_common;

use crate::alloc_counter;
use alloc_counter::allocations;
use common::*;
use moreau::model::{enable, Integrator};
use sensor_common::*;

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
            let before = allocations();
            for _ in 0..2 {
                moreau::forward(&m, &mut d);
                moreau::inverse(&m, &mut d);
            }
            let n = allocations() - before;
            assert_eq!(n, 0, "{}: {n} allocations", e["name"]);
        }
    }
}
