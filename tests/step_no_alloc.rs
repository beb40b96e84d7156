//! `integrator::step` on f64 allocates nothing, under every integrator (counting global
//! allocator), on the MJCF models the pipeline supports.

use moreau::model::Integrator;
mod alloc_counter;
use alloc_counter::allocations;

#[test]
fn step_does_not_allocate() {
    for name in ["arm7", "free_body", "ball_pendulum", "cartpole"] {
        let path = format!("{}/models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
        let mut m = moreau::load(&path).unwrap();
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
            let before = allocations();
            for _ in 0..5 {
                moreau::step(&m, &mut d);
            }
            let n = allocations() - before;
            assert_eq!(n, 0, "{name} {integ:?}: {n} allocations");
        }
    }
}
