//! `step` with contacts, limits, friction loss and equality constraints allocates nothing once
//! the efc arrays have reached their size (`Data::resize_efc` grows them only past the previous
//! high-water mark; counting global allocator), with constraint islands (MuJoCo's default) and
//! the noslip pass (models/noslip.xml), and on the sparse path (models/humanoids.xml: sparse
//! `efc_J`, the sparse Newton Hessian's pattern and the `solver_nnz` count).

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
        // sparse efc_J and the sparse Newton Hessian (nv = 84)
        "humanoids",
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

/// 100 free spheres of radius 0.01, 0.05 apart in a 10 × 10 square, with gap 1 and
/// no gravity: every pair is within the gap, so each pass lists 4,950 contacts (listed for
/// the gap only, so without rows), more than the `64 + 32 ngeom` = 3,264 `Data::new` reserved
/// before the reserve came from the arena. From the first step of a new `Data` on, stepping
/// allocates nothing: `Data::new` reserves every contact the arena keeps (as MuJoCo sizes its
/// arena once, in `mj_makeData`).
#[test]
fn contacts_beyond_the_old_reserve_do_not_allocate() {
    let mut bodies = String::new();
    for i in 0..100 {
        let (x, y) = ((i % 10) as f64 * 0.05, (i / 10) as f64 * 0.05);
        bodies.push_str(&format!(
            "<body pos='{x} {y} 1'><freejoint/><geom size='.01' gap='1'/></body>"
        ));
    }
    let xml = format!("<mujoco><option gravity='0 0 0'/><worldbody>{bodies}</worldbody></mujoco>");
    let m = moreau::load_from_str(&xml, &moreau::Vfs::default()).unwrap();
    let mut d = moreau::Data::<f64>::new(&m);
    let before = allocations();
    for _ in 0..5 {
        moreau::step(&m, &mut d);
    }
    let n = allocations() - before;
    assert_eq!((d.contact.len(), d.nefc), (4950, 0));
    assert!(d.contact.len() > 64 + 32 * m.ngeom);
    assert_eq!(n, 0, "{n} allocations in 5 steps of a new Data");
}

/// 100 free spheres of radius 0.01, 0.05 apart, with margin 1 and no gravity: every pair is
/// an active contact with 4 pyramidal rows that stay satisfied, 19,800 rows, far beyond the
/// rows `Data::new` reserved before they came from the arena (those of `64 + 32 ngeom`
/// contacts, and at most 4 MB of Jacobian: 873 rows at nv 600). Neither a new `Data` nor a
/// clone (of a new one, and of one that has stepped, whose lengths are no longer its
/// reserve) allocates from its first step on; nor does `clone_from` into a new `Data` or into
/// one that has stepped elsewhere, whose next steps give the bits of a clone's.
#[test]
fn rows_beyond_the_old_reserve_and_clones_do_not_allocate() {
    let mut bodies = String::new();
    for i in 0..100 {
        let (x, y) = ((i % 10) as f64 * 0.05, (i / 10) as f64 * 0.05);
        bodies.push_str(&format!(
            "<body pos='{x} {y} 1'><freejoint/><geom size='.01' margin='1'/></body>"
        ));
    }
    let xml = format!("<mujoco><option gravity='0 0 0'/><worldbody>{bodies}</worldbody></mujoco>");
    let m = moreau::load_from_str(&xml, &moreau::Vfs::default()).unwrap();
    let steps = |d: &mut moreau::Data<f64>, what: &str| {
        let before = allocations();
        for _ in 0..2 {
            moreau::step(&m, d);
        }
        let n = allocations() - before;
        assert_eq!((d.contact.len(), d.nefc), (4950, 19_800), "{what}");
        assert_eq!(n, 0, "{what}: {n} allocations in 2 steps");
    };
    let fresh = moreau::Data::<f64>::new(&m);
    let mut d = fresh.clone();
    steps(&mut d, "a clone of a new Data");
    let mut stepped = d.clone();
    steps(&mut stepped, "a clone of a Data that has stepped");
    let mut d = fresh;
    steps(&mut d, "a new Data");
    assert!(d.nefc > 4 * (64 + 32 * m.ngeom));
    // `clone_from` (mj_copyData) writes into the destination's arrays: no allocation into a
    // new Data or into one that has stepped elsewhere, and the copy steps to the same bits as a
    // clone of the source
    let mut other = moreau::Data::<f64>::new(&m);
    other.qpos[2] += 0.5;
    moreau::step(&m, &mut other);
    for (mut into, what) in [
        (moreau::Data::<f64>::new(&m), "clone_from into a new Data"),
        (other, "clone_from into a Data that has stepped"),
    ] {
        let before = allocations();
        into.clone_from(&d);
        let n = allocations() - before;
        assert_eq!(n, 0, "{what}: {n} allocations");
        let mut twin = d.clone();
        steps(&mut into, what);
        steps(&mut twin, "a clone");
        for (a, b) in [(&into.qpos, &twin.qpos), (&into.qvel, &twin.qvel)] {
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(a), bits(b), "{what}: not the clone's bits");
        }
        assert_eq!(into.efc_force, twin.efc_force, "{what}");
    }
}
