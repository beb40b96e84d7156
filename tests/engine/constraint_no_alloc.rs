//! `step` with contacts, limits, friction loss and equality constraints allocates nothing once
//! the efc arrays have reached their size (`Data::resize_efc` grows them only past the previous
//! high-water mark; counting global allocator), with constraint islands (MuJoCo's default) and
//! the noslip pass (models/noslip.xml).

use crate::alloc_counter;
use alloc_counter::allocations;
use moreau::model::{Cone, Integrator, SolverType};

#[test]
fn constrained_step_does_not_allocate() {
    for name in [
        "sphere_drop",
        "box_drop",
        "constraints",
        "quadruped",
        "islands",
        "noslip",
        "mesh_stack",
    ] {
        let path = format!("{}/models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
        let mut m = moreau::load(&path).unwrap();
        for (solver, cone, integ) in [
            (SolverType::Newton, Cone::Pyramidal, Integrator::Euler),
            (SolverType::Newton, Cone::Elliptic, Integrator::ImplicitFast),
            (SolverType::Cg, Cone::Pyramidal, Integrator::Euler),
            (SolverType::Pgs, Cone::Elliptic, Integrator::Rk4),
        ] {
            // islands on (the models' default) and, on models/noslip.xml, the noslip pass
            m.opt.solver = solver;
            m.opt.cone = cone;
            m.opt.integrator = integ;
            let mut d = moreau::Data::<f64>::new(&m);
            if m.nkey > 0 {
                d.reset_keyframe(&m, 0).unwrap();
            }
            // reach the efc high-water mark once, then step
            // (PGS's dense A + R and the rows of B = J L⁻¹ D^(−1/2) grow the same way, on first
            // use)
            d.resize_efc(m.nv, 400, 100);
            d.reserve_dense_solver(m.nv, 400);
            moreau::step(&m, &mut d);
            let before = allocations();
            let mut nefc = 0;
            for _ in 0..40 {
                moreau::step(&m, &mut d);
                nefc = nefc.max(d.nefc);
            }
            let n = allocations() - before;
            assert!(nefc > 0, "{name}: no constraint rows");
            assert_eq!(
                n, 0,
                "{name} {solver:?} {cone:?} {integ:?}: {n} allocations"
            );
        }
    }
}
