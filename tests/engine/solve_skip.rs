//! The solver's reuse of the constraint islands and of its position-only problem data in
//! steps that skip the position stage (`solver::solve_skip`; MuJoCo 4.0.0 builds its islands
//! once in `mj_fwdPosition`) changes no bit: `forward_skip(Skip::Vel)` after a change of
//! `qfrc_applied` and `forward_skip(Skip::Pos)` after a change of `qvel` give exactly the full
//! `forward` of the changed data, also twice in a row; and a new position stage invalidates what
//! was kept. `models/islands.xml` (five islands: contacts, a joint limit with friction loss, a
//! connect equality, dofs in no island) with every solver, both cones, sparse `efc_J`, noslip and
//! islands disabled; the humanoid (one island holding every dof: the kept global problem); a
//! box on the floor beside a pendulum that touches nothing (one island that is not the global
//! problem: the kept island problem beside the kept global one).

use moreau::model::{disable, Cone, JacobianType, SolverType};
use moreau::pipeline::{forward_skip, fwd_position, fwd_velocity, Skip};
use moreau::{forward, Data, Model};

fn root() -> String {
    env!("CARGO_MANIFEST_DIR").to_string()
}

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// Every solver output and the island structure, bit for bit.
fn same(what: &str, a: &Data, b: &Data) {
    assert_eq!(a.nefc, b.nefc, "{what}: nefc");
    assert_eq!(bits(&a.qacc), bits(&b.qacc), "{what}: qacc");
    assert_eq!(
        bits(&a.qfrc_constraint),
        bits(&b.qfrc_constraint),
        "{what}: qfrc_constraint"
    );
    assert_eq!(bits(&a.efc_force), bits(&b.efc_force), "{what}: efc_force");
    assert_eq!(bits(&a.efc_b), bits(&b.efc_b), "{what}: efc_b");
    assert_eq!(a.efc_state, b.efc_state, "{what}: efc_state");
    assert_eq!(a.solver_niter, b.solver_niter, "{what}: solver_niter");
    assert_eq!(a.nisland, b.nisland, "{what}: nisland");
    let n = a.nefc;
    if a.nisland > 0 {
        assert_eq!(a.efc_island[..n], b.efc_island[..n], "{what}: efc_island");
        assert_eq!(
            a.map_iefc2efc[..n],
            b.map_iefc2efc[..n],
            "{what}: map_iefc2efc"
        );
        assert_eq!(a.map_idof2dof, b.map_idof2dof, "{what}: map_idof2dof");
    }
}

/// Skip-stage forwards against full ones from `d0` (which has constraint rows), with and
/// without what `keep_for_skips` lets the solver keep.
fn check(name: &str, m: &Model, d0: &Data) {
    for keep in [false, true] {
        let mut d = d0.clone();
        if keep {
            moreau::pipeline::keep_for_skips(&mut d);
        }
        check_one(&format!("{name} keep {keep}"), m, &d);
    }
}

fn check_one(name: &str, m: &Model, d0: &Data) {
    assert!(d0.nefc > 0, "{name}: no rows");
    let k = m.nv / 2;
    // acceleration-stage input (Skip::Vel), twice in a row on the kept data
    let mut a = d0.clone();
    forward(m, &mut a);
    for (i, df) in [0.3, -0.7].into_iter().enumerate() {
        a.qfrc_applied[k] += df;
        forward_skip(m, &mut a, Skip::Vel, false);
        let mut b = d0.clone();
        b.qfrc_applied.copy_from_slice(&a.qfrc_applied);
        forward(m, &mut b);
        same(&format!("{name}: Skip::Vel #{i}"), &a, &b);
    }
    // velocity (Skip::Pos), twice in a row
    let mut a = d0.clone();
    forward(m, &mut a);
    for (i, dv) in [0.05, -0.02].into_iter().enumerate() {
        a.qvel[k] += dv;
        a.qvel[0] += dv;
        forward_skip(m, &mut a, Skip::Pos, false);
        let mut b = d0.clone();
        b.qvel.copy_from_slice(&a.qvel);
        forward(m, &mut b);
        same(&format!("{name}: Skip::Pos #{i}"), &a, &b);
    }
    // a new position stage (not through forward) invalidates the kept islands and problem: a
    // later skip step sees the new rows, M and J
    let mut a = d0.clone();
    forward(m, &mut a);
    a.qpos[2] += 1e-3;
    fwd_position(m, &mut a);
    fwd_velocity(m, &mut a);
    forward_skip(m, &mut a, Skip::Vel, false);
    let mut b = d0.clone();
    b.qpos[2] += 1e-3;
    forward(m, &mut b);
    assert_ne!(
        bits(&b.qacc),
        bits(&d0_forward(m, d0).qacc),
        "{name}: qpos change"
    );
    same(&format!("{name}: after a new position stage"), &a, &b);
    // efc_b (through the solver's compressed rows where it has them) is the dense
    // `J qacc_smooth − aref` of params::compute_b, bit for bit
    let mut c = b.clone();
    moreau::pipeline::compute_b(m, &mut c);
    assert_eq!(bits(&c.efc_b), bits(&b.efc_b), "{name}: efc_b");
}

fn d0_forward(m: &Model, d0: &Data) -> Data {
    let mut d = d0.clone();
    forward(m, &mut d);
    d
}

#[test]
fn islands_every_solver_and_option() {
    let base = moreau::load(format!("{}/models/islands.xml", root())).unwrap();
    for solver in [SolverType::Newton, SolverType::Cg, SolverType::Pgs] {
        for cone in [Cone::Pyramidal, Cone::Elliptic] {
            for variant in ["", "sparse", "noslip", "noisland"] {
                let mut m = base.clone();
                m.opt.solver = solver;
                m.opt.cone = cone;
                match variant {
                    "sparse" => m.opt.jacobian = JacobianType::Sparse,
                    "noslip" => m.opt.noslip_iterations = 2,
                    "noisland" => m.opt.disableflags |= disable::ISLAND,
                    _ => m.opt.jacobian = JacobianType::Dense,
                }
                let mut d = Data::new(&m);
                for _ in 0..40 {
                    moreau::step(&m, &mut d);
                }
                let name = format!("islands {solver:?} {cone:?} {variant}");
                let d1 = d0_forward(&m, &d);
                if variant == "noisland" {
                    assert_eq!(d1.nisland, 0, "{name}");
                } else {
                    assert!(d1.nisland >= 3, "{name}: {} islands", d1.nisland);
                }
                check(&name, &m, &d);
            }
        }
    }
}

#[test]
fn humanoid_single_island() {
    let m = moreau::load(format!("{}/models/humanoid.xml", root())).unwrap();
    let mut d = Data::new(&m);
    d.reset_keyframe(&m, 0).unwrap();
    for _ in 0..3000 {
        moreau::step(&m, &mut d);
        if d.nefc > 0 {
            break;
        }
    }
    let d1 = d0_forward(&m, &d);
    assert!(
        d1.nisland == 1 && d1.nidof == m.nv,
        "one island holding every dof"
    );
    check("humanoid", &m, &d);
}

/// A pendulum (its own tree, in no island) and a box resting on the floor: one island holding
/// the box's dofs and every row, so the solve runs on the island's problem, which a skip step
/// keeps with its B, AR and noslip blocks, the global warm start's problem beside it.
const BOX_BESIDE_PENDULUM: &str = r#"
<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body pos="0.8 0 0.11">
      <freejoint/>
      <geom type="box" size="0.1 0.08 0.1" friction="0.9 0.02 0.01"/>
    </body>
    <body pos="0 0 1.5">
      <joint type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 -0.3" size="0.03" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>
"#;

#[test]
fn one_island_beside_free_trees_every_solver() {
    let base = moreau::load_from_str(BOX_BESIDE_PENDULUM, &moreau::Vfs::default()).unwrap();
    for solver in [SolverType::Newton, SolverType::Cg, SolverType::Pgs] {
        for cone in [Cone::Pyramidal, Cone::Elliptic] {
            for variant in ["", "sparse", "noslip"] {
                let mut m = base.clone();
                m.opt.solver = solver;
                m.opt.cone = cone;
                match variant {
                    "sparse" => m.opt.jacobian = JacobianType::Sparse,
                    "noslip" => m.opt.noslip_iterations = 3,
                    _ => m.opt.jacobian = JacobianType::Dense,
                }
                let mut d = Data::new(&m);
                // the box slides, the pendulum swings (qpos[2], the box's height, is what
                // `check` changes for a new position stage)
                d.qvel[0] = 1.0;
                d.qvel[6] = 2.0;
                for _ in 0..40 {
                    moreau::step(&m, &mut d);
                }
                let name = format!("box beside pendulum {solver:?} {cone:?} {variant}");
                let d1 = d0_forward(&m, &d);
                assert!(
                    d1.nisland == 1 && d1.nidof < m.nv && d1.nefc > 0,
                    "{name}: one island without every dof ({} islands, {} of {} dofs)",
                    d1.nisland,
                    d1.nidof,
                    m.nv
                );
                check(&name, &m, &d);
            }
        }
    }
}
