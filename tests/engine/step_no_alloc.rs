//! `integrator::step` on f64 allocates nothing, under every integrator (counting global
//! allocator), on the MJCF models the pipeline supports.

use crate::alloc_counter;
use alloc_counter::allocations;
use moreau::model::Integrator;

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

/// Long runs, where contacts appear and disappear and every force term is active:
/// `fluid_swimmer` (fluid forces, a free body resting on the floor) and `humanoid` falling from
/// its keyframe onto the floor, 1000 steps under every integrator. Stepping allocates nothing
/// from the first step on (`Data::new` reserves what the contacts and constraints can need).
#[test]
fn long_runs_with_contacts_do_not_allocate() {
    for name in ["fluid_swimmer", "humanoid"] {
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
            let before = allocations();
            let mut most = 0;
            for k in 0..1000 {
                for (i, c) in d.ctrl.iter_mut().enumerate() {
                    *c = ((k as f64) * 0.01 + i as f64).sin() * 0.5;
                }
                moreau::step(&m, &mut d);
                most = most.max(d.contact.len());
            }
            let n = allocations() - before;
            assert!(most > 0, "{name} {integ:?}: no contact in 1000 steps");
            assert!(
                d.qpos.iter().all(|x| x.is_finite()),
                "{name} {integ:?}: diverged"
            );
            assert_eq!(
                n, 0,
                "{name} {integ:?}: {n} allocations in 1000 steps (up to {most} contacts)"
            );
        }
    }
}
