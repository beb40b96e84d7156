//! Analytic derivatives (IFT through soft contact, analytic inverse-dynamics derivatives)
//! against exact dual-number Jacobians (same computation on `Dual64`) and against finite
//! differences, at random states (proptest) of project models with and without contacts.
//!
//! The constraint solver runs with `tolerance = 0` (all 100 iterations) so the dual
//! derivative of the solver iterates equals the IFT derivative at the optimum.
//! Errors are `max |a − b| / max(1, max |b|)`; the worst values are printed.

use moreau::model::{enable, Integrator};
use moreau::pipeline::{collision, kinematics};
use moreau::{integrate_pos, step, Data, Model};
use moreau_derivatives::dual::{dual_forward_jacobian, dual_inverse_jacobian, dual_step_jacobian};
use moreau_derivatives::forward::forward_analytic;
use moreau_derivatives::inverse_pos::{d_pos_method, Method, Output};
use moreau_derivatives::{inverse, transition, InverseOptions, Support, TransitionOptions};
use nalgebra::DMatrix;
use proptest::prelude::*;

use crate::common;

fn err(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    assert_eq!(a.shape(), b.shape());
    let scale = b.amax().max(1.0);
    (a - b).amax() / scale
}

/// Constraint rows the analytic `∂/∂q` covers besides contacts: hinge/slide limits, dof and
/// fixed-tendon friction loss, a fixed-tendon limit, single-joint and single-tendon equalities,
/// and a condim-4 sphere and a box on the floor.
const ROWS_XML: &str = r#"<mujoco model="rows">
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body pos="0 0 0.5">
      <joint name="h1" type="hinge" axis="0 1 0" limited="true" range="-10 10" frictionloss="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body pos="0.3 0 0">
        <joint name="h2" type="hinge" axis="0 1 0" limited="true" range="-5 5"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/>
      </body>
    </body>
    <body pos="1 0 0.5">
      <joint name="s1" type="slide" axis="0 0 1" limited="true" range="-0.1 0.1"/>
      <geom type="box" size="0.05 0.05 0.05"/>
      <body pos="0 0 -0.2">
        <joint name="s2" type="slide" axis="1 0 0"/>
        <geom type="sphere" size="0.05"/>
      </body>
    </body>
    <body pos="2 0 0.5">
      <joint name="e1" type="hinge" axis="1 0 0"/>
      <geom type="capsule" fromto="0 0 0 0 0.2 0" size="0.02"/>
    </body>
    <body pos="3 0 0.5"><joint name="t1" type="slide" axis="0 0 1"/><geom type="box" size=".03 .03 .03"/></body>
    <body pos="3.5 0 0.5"><joint name="t2" type="slide" axis="0 0 1"/><geom type="box" size=".03 .03 .03"/></body>
    <body pos="0 1 0.1"><freejoint/><geom type="sphere" size="0.1" condim="4"/></body>
    <body pos="1 1 0.1" euler="0 0 20"><freejoint/><geom type="box" size="0.1 0.08 0.06" condim="6"/></body>
  </worldbody>
  <tendon>
    <fixed name="ft" limited="true" range="-0.05 0.05" frictionloss="0.1">
      <joint joint="t1" coef="1"/><joint joint="t2" coef="-0.5"/>
    </fixed>
    <fixed name="fe"><joint joint="s2" coef="1"/></fixed>
  </tendon>
  <equality>
    <joint joint1="e1" polycoef="0.3 0 0 0 0"/>
    <tendon tendon1="fe" polycoef="0.05 0 0 0 0"/>
  </equality>
</mujoco>"#;

/// Elliptic contacts whose friction rows take `solreffriction` (a `<pair>`): their rows have
/// different `B`, so `constraint_pos` differentiates `J a` and `J v` separately.
const PAIR_XML: &str = r#"<mujoco model="elliptic_pair">
  <option cone="elliptic"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body pos="0 0 0.1"><freejoint/><geom name="ball" type="sphere" size="0.1"/></body>
    <body pos="1 0 0.1" euler="10 5 0">
      <freejoint/><geom name="box" type="box" size="0.1 0.08 0.06"/>
    </body>
  </worldbody>
  <contact>
    <pair geom1="floor" geom2="ball" condim="3" solreffriction="0.05 0.5"/>
    <pair geom1="floor" geom2="box" condim="4" solreffriction="-800 -20"/>
  </contact>
</mujoco>"#;

fn model(name: &str, integ: Option<Integrator>) -> Model {
    if name == "rows" || name == "elliptic_pair" {
        let xml = if name == "rows" { ROWS_XML } else { PAIR_XML };
        let m = moreau::load_from_str(xml, &moreau::Vfs::default()).unwrap();
        common::converged(m, integ)
    } else {
        common::model(name, integ)
    }
}

/// A random state: `settle` steps from the initial state (contacts form), then random
/// position (tangent), velocity and control perturbations from a seed.
fn state(m: &Model, seed: u64, settle: usize) -> Data<f64> {
    common::state(m, common::lcg(seed), settle, 0.05, 0.1)
}

/// Analytic vs dual (forward ∂qacc, A, B, inverse DfDv, DfDa) and dual vs centered FD (A, B).
/// Returns how `inverse_pos` obtained `∂g/∂q` at the state.
fn check(name: &str, integ: Option<Integrator>, seed: u64, settle: usize) -> Method {
    let m = model(name, integ);
    let d = state(&m, seed, settle);
    check_at(name, &m, d, integ, seed)
}

/// [`check`] at the given (forwarded) state.
fn check_at(name: &str, m: &Model, d: Data<f64>, integ: Option<Integrator>, seed: u64) -> Method {
    check_at_tol(name, m, d, integ, seed, Tol::default())
}

/// Tolerances of [`check_at_tol`].
struct Tol {
    /// Analytic against dual.
    exact: f64,
    /// Step and tolerance of the dual-vs-FD transition check.
    fd_eps: f64,
    fd: f64,
}

impl Default for Tol {
    fn default() -> Self {
        Tol {
            exact: 1e-10,
            fd_eps: 1e-6,
            fd: 1e-4,
        }
    }
}

/// [`check_at`] with explicit tolerances.
fn check_at_tol(
    name: &str,
    m: &Model,
    mut d: Data<f64>,
    integ: Option<Integrator>,
    seed: u64,
    tol: Tol,
) -> Method {
    let m = m.clone();
    let nefc = d.nefc;
    let meth = d_pos_method(&m, &d, Output::Residual, &mut Default::default()).1;
    let cone = d.efc_state[..nefc]
        .iter()
        .filter(|s| **s == moreau::data::ConstraintState::Cone)
        .count();
    let d0 = d.clone();
    // forward dynamics by the IFT
    let fa = forward_analytic(&m, &mut d).unwrap();
    let fdl = dual_forward_jacobian(&m, &d0);
    let e_fwd = err(&fa, &fdl);
    // inverse dynamics at the forward qacc
    let mut di = d0.clone();
    let (iq, iv, ia, _) = inverse(&m, &mut di, &InverseOptions::analytic())
        .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
        .unwrap();
    let (dq, dv, da, _) = dual_inverse_jacobian(&m, &d0);
    let e_inv = err(&ia, &da).max(err(&iv, &dv)).max(err(&iq, &dq));
    let mut dfi = d0.clone();
    let fi = inverse(&m, &mut dfi, &InverseOptions::fd(1e-6, false, true)).unwrap();
    let e3 = [err(&iq, &fi.DfDq), err(&iv, &fi.DfDv), err(&ia, &fi.DfDa)];
    // DfDq vs FD: the soft-contact cost is piecewise quadratic; a position step of eps moves
    // jar by ~K eps (K the stiff reference stiffness), so rows with |jar| that small cross a
    // kink in the FD (not in the exact one-sided derivative). Compared, not asserted; the
    // smaller-step FD is printed too.
    let e_q_small = {
        let mut dfi = d0.clone();
        err(
            &iq,
            &inverse(&m, &mut dfi, &InverseOptions::fd(1e-9, false, true))
                .unwrap()
                .DfDq,
        )
    };
    let e_inv_fd = e3[1].max(e3[2]);
    // transition
    let mut dt = d0.clone();
    let (e_a, e_b, e_fd) = match transition(
        &m,
        &mut dt,
        &TransitionOptions::analytic().with_sensors(false),
    ) {
        Ok(t) => {
            let (a, b) = dual_step_jacobian(&m, &d0);
            let mut dfd = d0.clone();
            let f = transition(&m, &mut dfd, &TransitionOptions::fd(tol.fd_eps, true)).unwrap();
            let e_fd = err(&a, &f.A).max(if m.nu > 0 { err(&b, &f.B) } else { 0.0 });
            (
                err(&t.A, &a),
                if m.nu > 0 { err(&t.B, &b) } else { 0.0 },
                e_fd,
            )
        }
        Err(e) => {
            eprintln!("{name}: transition skipped ({e})");
            (0.0, 0.0, 0.0)
        }
    };
    eprintln!(
        "{name} {integ:?} seed {seed}: {meth:?}, nefc {nefc} (cone rows {cone}), IFT qacc vs dual {e_fwd:.1e}, inverse {e_inv:.1e}, \
         A {e_a:.1e}, B {e_b:.1e}, dual vs FD {e_fd:.1e}, inverse DfDv, DfDa vs FD {:.1e} {:.1e}, DfDq vs FD {:.1e} (eps 1e-9: {e_q_small:.1e})",
        e3[1], e3[2], e3[0]
    );
    assert!(e_fwd < tol.exact, "{name}: forward {e_fwd}");
    assert!(e_inv < tol.exact, "{name}: inverse {e_inv}");
    assert!(
        e_a < tol.exact && e_b < tol.exact,
        "{name}: A {e_a} B {e_b}"
    );
    assert!(e_fd < tol.fd, "{name}: dual vs FD {e_fd}");
    assert!(e_inv_fd < 1e-4, "{name}: inverse vs FD {e_inv_fd}");
    meth
}

/// `check`, asserting that `inverse_pos` took the analytic path (`Constraint` with rows, else `Smooth`).
fn check_analytic(name: &str, integ: Option<Integrator>, seed: u64, settle: usize) {
    let m = model(name, integ);
    let nefc = state(&m, seed, settle).nefc;
    let meth = check(name, integ, seed, settle);
    let want = if nefc > 0 {
        Method::Constraint
    } else {
        Method::Smooth
    };
    assert_eq!(meth, want, "{name}: expected the analytic path");
}

/// Fixed tendons' springs (a dead band, polynomial stiffness) and actuators on fixed tendons
/// (a motor, a position servo: its force depends on the length) take the analytic path
/// (`Method::Smooth`: `J` constant, `∂ten_length/∂q = J`): forward, inverse and A, B against
/// duals, under Euler and implicitfast; and with a tendon-level force clamp on the servo's
/// tendon (the per-direction passes over the actuation stage).
#[test]
fn fixed_tendons_are_analytic() {
    for integ in [None, Some(Integrator::ImplicitFast)] {
        for seed in [1, 2, 3] {
            assert_eq!(check("tendon_springs", integ, seed, 0), Method::Smooth);
        }
    }
    let mut m = model("tendon_springs", None);
    m.tendon_actfrclimited[2] = true;
    m.tendon_actfrcrange[2] = [-0.3, 0.3];
    for seed in [4, 5] {
        let d = state(&m, seed, 0);
        let name = "tendon_springs, clamped servo";
        assert_eq!(check_at(name, &m, d, None, seed), Method::Smooth);
    }
}

/// The tendon `actuatorfrcrange` clamp scales every force of the tendon's actuators by
/// `bound / total`, so that one actuator's force depends on the others' controls and
/// activations: the analytic forward and transition derivatives against duals and the duals
/// against centered FD, with every tendon's total inside its range and with every total
/// clamped, under Euler and implicitfast. The model of the engine's oracle test
/// (tests/reference/tendon_actfrc_cases.json): three actuators on a fixed tendon, two on a
/// spatial one, a motor on an unlimited tendon, a velocity servo on a tendon with
/// `actuatorfrclimited="true"` and a joint motor.
#[test]
fn tendon_actfrc_clamp() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/reference/tendon_actfrc_cases.json"
    );
    let refs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let xml = refs["xml"].as_str().unwrap();
    let base = moreau::load_from_str(xml, &moreau::Vfs::default()).unwrap();
    for integ in [Integrator::Euler, Integrator::ImplicitFast] {
        let m = common::converged(base.clone(), Some(integ));
        for (k, (scale, clamped)) in [(0.02, false), (2.0, true)].into_iter().enumerate() {
            let mut d = Data::new(&m);
            d.qpos.copy_from_slice(&[0.2, -0.3, 0.05]);
            d.qvel.copy_from_slice(&[0.1 * scale, -0.05 * scale, 0.02]);
            d.act.copy_from_slice(&[0.3 * scale]);
            let u = [1.0, 0.5, -0.4, 0.7, -0.6, 0.2, 1.0, 0.3];
            for (c, x) in d.ctrl.iter_mut().zip(u) {
                *c = x * scale;
            }
            moreau::forward(&m, &mut d);
            let f: &[f64] = &d.actuator_force;
            let totals: [f64; 3] = [f[0] + f[1] + f[2], f[3] + f[4], f[6]];
            let on_bound = [
                totals[0].abs() >= 0.5 - 1e-12,
                totals[1] <= -1.1 + 1e-12 || totals[1] >= 0.8 - 1e-12,
                totals[2] <= -0.2 + 1e-12 || totals[2] >= 0.1 - 1e-12,
            ];
            assert_eq!(on_bound, [clamped; 3], "state {k}: totals {totals:?}");
            check_at("tendon_actfrc", &m, d, Some(integ), k as u64);
        }
    }
}

/// Contacts whose rows have different `B` (elliptic friction rows with `solreffriction`):
/// analytic against duals at states where such a contact has rows.
#[test]
fn elliptic_solreffriction() {
    for seed in [1, 2, 3] {
        let m = model("elliptic_pair", None);
        let d = state(&m, seed, 100);
        let mixed = d.contact.iter().any(|c| {
            usize::try_from(c.efc_address).is_ok_and(|r0| {
                let n = moreau::pipeline::contact_nrow(c.dim, m.opt.cone);
                (r0..r0 + n).any(|r| d.efc_KBIP[r][1] != d.efc_KBIP[r0][1])
            })
        });
        assert!(mixed, "seed {seed}: no contact with rows of different B");
        assert_eq!(
            check_at("elliptic_pair", &m, d, None, seed),
            Method::Constraint
        );
    }
}

/// Friction-loss rows in their linear (sliding) zones next to limits and contacts: the
/// analytic path against duals with `LinearPos`/`LinearNeg` rows present.
#[test]
fn friction_loss_linear_zone() {
    use moreau::data::ConstraintState::{LinearNeg, LinearPos};
    let m = model("rows", None);
    let mut d = state(&m, 3, 200);
    for (j, v) in [("h1", 3.0), ("t1", -2.0), ("t2", 1.5)] {
        let jn = m.joint_id(j).unwrap();
        d.qvel[m.jnt_dofadr[jn]] = v;
    }
    moreau::forward(&m, &mut d);
    let lin = d.efc_state[..d.nefc]
        .iter()
        .filter(|s| matches!(s, LinearPos | LinearNeg))
        .count();
    assert!(lin >= 2, "rows: {lin} friction rows in the linear zone");
    assert_eq!(check_at("rows/sliding", &m, d, None, 3), Method::Constraint);
}

/// A state of `name` for the convex-contact checks: `settle` steps from the keyframe (resting
/// poses), then, if `tilt > 0`, every free body turned by a rotation of up to `tilt` rad about a
/// seeded random axis (tilted poses), forwarded.
fn convex_state(m: &Model, settle: usize, tilt: f64, seed: u64) -> Data<f64> {
    let mut d = Data::new(m);
    d.reset_keyframe(m, 0).unwrap();
    for _ in 0..settle {
        step(m, &mut d);
    }
    let mut s = seed.wrapping_add(0x9e3779b97f4a7c15);
    let mut rnd = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut dq = vec![0.0; m.nv];
    for j in 0..m.njnt {
        if m.jnt_type[j] == moreau::model::JointType::Free {
            let a = m.jnt_dofadr[j];
            for k in 3..6 {
                dq[a + k] = tilt * rnd();
            }
        }
    }
    integrate_pos(m, &mut d.qpos, &dq, 1.0);
    moreau::forward(m, &mut d);
    d
}

/// Contacts of the convex colliders (plane–mesh, multi-contact box/mesh patches, ellipsoid,
/// cylinder, sphere/capsule–mesh; src/collision/cvxdiff.rs) at resting and tilted poses:
/// `inverse_pos` takes the analytic path; analytic forward/inverse/A/B against the full dual Jacobians
/// to `1e-10`, or, where the dual reference itself is less reproducible, to 10× its spread
/// (the dual forward Jacobian recomputed from a zero warm start: the solver takes another
/// path; at the resting mesh_drop state, 52 stiff rows on light bodies, the two differ by
/// ~7e-9 relative, which bounds any comparison with it); the dual A, B against centered FD of
/// the `f64` step with step `fd_eps` to `fd` (see `Tol`).
fn check_convex(name: &str, settle: usize, tilt: f64, seed: u64, fd_eps: f64, fd: f64) {
    let m = model(name, None);
    let d = convex_state(&m, settle, tilt, seed);
    assert!(d.nefc > 0, "{name}: no contact");
    let mut d0 = d.clone();
    d0.qacc_warmstart.iter_mut().for_each(|x| *x = 0.0);
    let spread = err(
        &dual_forward_jacobian(&m, &d0),
        &dual_forward_jacobian(&m, &d),
    );
    let tag = format!("{name}/settle {settle}/tilt {tilt}");
    eprintln!("{tag}: dual reference spread {spread:.1e}");
    let tol = Tol {
        exact: (10.0 * spread).max(1e-10),
        fd_eps,
        fd,
    };
    assert!(tol.exact < 1e-7, "{tag}: dual reference spread {spread}");
    assert_eq!(
        check_at_tol(&tag, &m, d, None, seed, tol),
        Method::Constraint,
        "{tag}"
    );
}

#[test]
fn convex_mesh_drop() {
    check_convex("mesh_drop", 300, 0.0, 7, 1e-6, 1e-4);
    check_convex("mesh_drop", 300, 0.01, 7, 1e-6, 1e-4);
}

#[test]
fn convex_mesh_stack() {
    check_convex("mesh_stack", 100, 0.0, 3, 1e-6, 1e-4);
    check_convex("mesh_stack", 100, 0.005, 3, 1e-6, 1e-4);
}

#[test]
fn convex_pairs() {
    // FD step 1e-5, tolerance 1e-2 (measured 4.2e-3 and 3.5e-3): the witness points of the
    // contacts whose normal comes from the CCD (ellipsoid–ellipsoid, ellipsoid–edge) carry its
    // ~1e-5 m convergence noise (an FD step of 1e-6 gives 1.3e-2 in their columns; the other
    // bodies' columns agree to 3e-6 at that step), and at the keyframe (zero velocity) the
    // friction rows sit at zero slip, a kink for FD. The smooth contacts' derivatives are checked
    // exactly in `convex_smooth_vs_closed_forms`.
    check_convex("convex_pairs", 0, 0.0, 1, 1e-5, 1e-2);
    check_convex("convex_pairs", 10, 0.01, 1, 1e-5, 1e-2);
}

/// The contact geometry itself: for every contact, `∂(dist, pos, frame)/∂q` from one
/// `Dual64` run of kinematics and collision per tangent direction against centered FD of the
/// `f64` collision (step 1e-6), with the tolerance `tol` of the model's contacts: polytope
/// contacts (plane–mesh, multi-contact patches) are exact to rounding in `f64`, FD error ~1e-9.
/// (Smooth shapes are checked in `convex_smooth_vs_closed_forms`: their `f64` CCD witness
/// points carry ~1e-5 of convergence noise, which FD quotients amplify to O(1).)
fn geometry_vs_fd(name: &str, settle: usize, tilt: f64, tol: f64) {
    let m = model(name, None);
    let d = convex_state(&m, settle, tilt, 5);
    geometry_vs_fd_at(name, &m, &d, tol);
}

/// [`geometry_vs_fd`] at the forwarded state `d`.
fn geometry_vs_fd_at(name: &str, m: &Model, d: &Data<f64>, tol: f64) {
    use moreau_derivatives::dual::{lift, seed};
    let (m, d) = (m.clone(), d.clone());
    let nc = d.contact.len();
    assert!(nc > 0, "{name}: no contact");
    let geo = |c: &moreau::data::Contact<f64>| {
        let mut g = vec![c.dist];
        g.extend(c.pos.iter());
        g.extend(c.frame.transpose().iter());
        g
    };
    let eps = 1e-6;
    let mut worst: f64 = 0.0;
    let mut per = vec![0.0f64; nc];
    for j in 0..m.nv {
        let mut dd = lift(&m, &d);
        seed(&m, &mut dd, j);
        kinematics(&m, &mut dd);
        collision(&m, &mut dd);
        assert_eq!(dd.contact.len(), nc, "{name}: dual contacts");
        let side = |sg: f64| {
            let mut e = d.clone();
            let mut dq = vec![0.0; m.nv];
            dq[j] = sg * eps;
            integrate_pos(&m, &mut e.qpos, &dq, 1.0);
            kinematics(&m, &mut e);
            collision(&m, &mut e);
            assert_eq!(e.contact.len(), nc, "{name}: FD contacts, direction {j}");
            e.contact.iter().map(geo).collect::<Vec<_>>()
        };
        let (p, q) = (side(1.0), side(-1.0));
        for (k, c) in dd.contact.iter().enumerate() {
            let mut x = vec![c.dist];
            x.extend(c.pos.iter().copied());
            x.extend(c.frame.transpose().iter().copied());
            assert_eq!(c.dist.re, d.contact[k].dist, "{name}: values kept");
            for (o, v) in x.iter().enumerate() {
                let fd = (p[k][o] - q[k][o]) / (2.0 * eps);
                let e = (v.eps - fd).abs() / fd.abs().max(1.0);
                worst = worst.max(e);
                per[k] = per[k].max(e);
                assert!(
                    e < tol,
                    "{name}: contact {k} ({:?}) output {o} direction {j}: dual {} FD {fd}",
                    c.geom,
                    v.eps
                );
            }
        }
    }
    eprintln!(
        "{name}: {nc} contacts, geometry dual vs FD {worst:.1e}, per contact {:?}",
        per.iter().map(|x| format!("{x:.1e}")).collect::<Vec<_>>()
    );
}

#[test]
fn convex_geometry_vs_fd() {
    geometry_vs_fd("mesh_drop", 300, 0.01, 1e-7);
    geometry_vs_fd("mesh_stack", 100, 0.005, 1e-7);
    // height field (prisms, polytopes) under a box (polytope–prism faces) and a sphere (a point
    // plus radius against a prism face; its CCD witness point moves with ~1e-6 relative error
    // along the face, measured 2.4e-5 in the FD quotient, hence 1e-4; the box: MuJoCo's EPA face,
    // differentiated as a plane, 4e-7). Positions: 0.5 mm deep by
    // MuJoCo 4.0.0's mj_forward.
    let hf = r#"<mujoco><asset><hfield name="h" nrow="3" ncol="3" size=".3 .3 .05 .05"
        elevation="0 .2 .4  .1 .3 .5  .2 .4 .6"/></asset><worldbody>
      <geom type="hfield" hfield="h"/>
      <body pos="-.1 -.1 .0443" euler="4 -3 20"><freejoint/><geom type="box" size=".03 .02 .02"/></body>
      <body pos=".12 .1 .0584"><freejoint/><geom type="sphere" size=".03"/></body>
    </worldbody></mujoco>"#;
    let m = moreau::load_from_str(hf, &moreau::Vfs::default()).unwrap();
    let d = convex_state_at(&m);
    assert!(d.contact.len() >= 2, "hfield: {} contacts", d.contact.len());
    assert_eq!(
        d_pos_method(&m, &d, Output::Residual, &mut Default::default()).1,
        Method::Constraint
    );
    geometry_vs_fd_at("hfield", &m, &d, 1e-4);
    // multi-contact edge patches: a capsule lying on a cube mesh (its side segment clipped by
    // the face, lifted by its radius) and a box resting on an edge (edge–face), both tilted
    let edges = r#"<mujoco><asset><mesh name="c" vertex="-.05 -.05 -.05 -.05 -.05 .05
        -.05 .05 -.05 -.05 .05 .05 .05 -.05 -.05 .05 -.05 .05 .05 .05 -.05 .05 .05 .05"/>
      </asset><worldbody>
      <geom type="mesh" mesh="c" pos="0 0 .05"/>
      <body pos=".01 .01 .1193" euler="3 89.7 10"><freejoint/><geom type="capsule" size=".02 .04"/></body>
      <geom type="mesh" mesh="c" pos=".5 0 .05"/>
      <body pos=".51 0 .1276" euler="45 .3 0"><freejoint/><geom type="box" size=".03 .02 .02"/></body>
    </worldbody></mujoco>"#;
    let m = moreau::load_from_str(edges, &moreau::Vfs::default()).unwrap();
    let d = convex_state_at(&m);
    for b in [1, 2] {
        let n = d
            .contact
            .iter()
            .filter(|c| c.geom.iter().any(|&g| m.geom_bodyid[g] == b))
            .count();
        assert_eq!(n, 2, "edge patches: body {b} has {n} contacts");
    }
    geometry_vs_fd_at("edge patches", &m, &d, 1e-7);
}

/// Cylinder patches on a box (src/collision/multiccd.rs), contact counts as MuJoCo 4.0.0's
/// mj_forward reports at these poses: standing cap-down, tilted (euler 3° 1° 10°, 0.5 mm deep):
/// the 16-gon of the rim clipped by the box face, 4 points, corners fixed in the cylinder frame;
/// lying on its side, tilted 0.3° (0.34 and 0.66 mm deep): the side line clipped by the face, 2
/// points, its rim points re-aimed along the face normal in `T` (a roll about the axis leaves
/// the line in place). Dual vs centered FD to 1e-7 (measured ~3e-11).
#[test]
fn convex_cylinder_patch_vs_fd() {
    for (name, z, euler, n) in [
        ("cap", ".1316", "3 1 10", 4),
        ("side", ".1395", "90.3 0 10", 2),
    ] {
        let xml = format!(
            r#"<mujoco><worldbody><geom type="box" size=".1 .1 .05" pos="0 0 .05"/>
      <body pos=".01 .005 {z}" euler="{euler}"><freejoint/><geom type="cylinder" size=".04 .03"/></body>
    </worldbody></mujoco>"#
        );
        let mut m = moreau::load_from_str(&xml, &moreau::Vfs::default()).unwrap();
        common::converged_ccd(&mut m);
        let d = convex_state_at(&m);
        assert_eq!(d.contact.len(), n, "cylinder {name} patch");
        geometry_vs_fd_at(&format!("cylinder {name}"), &m, &d, 1e-7);
    }
}

/// Smooth convex contacts whose exact geometry has a closed form elsewhere: ellipsoids with
/// equal semi-axes go through the convex collider (CCD, then [`cvxdiff`]'s implicit-function
/// derivative), the same geoms as spheres through the closed-form primitive colliders (generic
/// over the scalar). Pairs: on a box face (face against a smooth point), on a box edge (the
/// normal on the circle about the edge), on a ball (two smooth points), a cylinder's rim on a
/// ball (rim: smooth support), a capsule's side on a ball (a segment core plus radius). The
/// contact values agree to the CCD tolerance (~1e-5 in position); the derivatives, both those
/// of the exact contact, agree to 1e-8 (relative to max(1, |∂|); the implicit-function
/// derivative is evaluated at the CCD's features after Newton refinement of the normal).
///
/// [`cvxdiff`]: moreau::collision::cvxdiff
#[test]
fn convex_smooth_vs_closed_forms() {
    use moreau_derivatives::dual::{lift, seed};
    let xml = |ball: &str, r: f64| {
        let b = |x: f64| {
            if ball == "sphere" {
                format!("{x}")
            } else {
                format!("{x} {x} {x}")
            }
        };
        format!(
            r#"<mujoco><worldbody>
  <geom type="box" size=".1 .1 .05" pos="0 0 .05"/>
  <body pos=".01 .02 .129" euler="10 20 30"><freejoint/><geom type="{ball}" size="{}"/></body>
  <geom type="box" size=".1 .05 .05" pos=".5 0 .05" euler="45 0 0"/>
  <body pos=".51 .004 .1497" euler="-10 5 0"><freejoint/><geom type="{ball}" size="{}"/></body>
  <geom type="{ball}" size="{}" pos="1 0 .05"/>
  <body pos="1.01 .02 .1265"><freejoint/><geom type="{ball}" size="{}"/></body>
  <geom type="{ball}" size="{}" pos="1.5 0 .05"/>
  <body pos="1.56 0 .14473" euler="3 -4 0"><freejoint/><geom type="cylinder" size=".04 .05"/></body>
  <geom type="{ball}" size="{}" pos="2 0 .05"/>
  <body pos="2.01 0 .119" euler="2 90 0"><freejoint/><geom type="capsule" size=".02 .06"/></body>
</worldbody></mujoco>"#,
            b(r),
            b(r),
            b(0.05),
            b(r),
            b(0.05),
            b(0.05)
        )
    };
    let load = |x: String| {
        let mut m = moreau::load_from_str(&x, &moreau::Vfs::default()).unwrap();
        common::converged_ccd(&mut m);
        m
    };
    let (me, ms) = (load(xml("ellipsoid", 0.03)), load(xml("sphere", 0.03)));
    let de = convex_state_at(&me);
    let ds = convex_state_at(&ms);
    assert_eq!(de.contact.len(), 5, "one contact per pair");
    assert_eq!(ds.contact.len(), 5);
    let mut worst: [f64; 2] = [0.0; 2];
    for j in 0..me.nv {
        let run = |m: &Model, d: &Data<f64>| {
            let mut dd = lift(m, d);
            seed(m, &mut dd, j);
            kinematics(m, &mut dd);
            collision(m, &mut dd);
            dd.contact
        };
        let (ce, cs) = (run(&me, &de), run(&ms, &ds));
        for (a, b) in ce.iter().zip(&cs) {
            let mut sb = [b.geom[0], b.geom[1]];
            // the geom order follows the types (capsule < ellipsoid, sphere < capsule)
            let flip = if a.geom == sb {
                1.0
            } else {
                sb.swap(0, 1);
                assert_eq!(a.geom, sb);
                -1.0
            };
            let (na, nb) = (a.normal(), b.normal());
            let mut xa = vec![a.dist];
            let mut xb = vec![b.dist];
            xa.extend(a.pos.iter().chain(na.iter()).copied());
            xb.extend(b.pos.iter().copied());
            xb.extend(nb.iter().map(|x| *x * flip));
            for (u, v) in xa.iter().zip(&xb) {
                worst[0] = worst[0].max((u.re - v.re).abs());
                let e = (u.eps - v.eps).abs() / v.eps.abs().max(1.0);
                worst[1] = worst[1].max(e);
                assert!(
                    e < 1e-8,
                    "geoms {:?} direction {j}: convex {} closed form {}",
                    a.geom,
                    u.eps,
                    v.eps
                );
            }
        }
    }
    eprintln!(
        "smooth convex contacts vs closed forms: values {:.1e}, derivatives {:.1e}",
        worst[0], worst[1]
    );
    assert!(worst[0] < 1e-4, "values {}", worst[0]);
}

/// The forwarded initial state of `m` (no keyframe).
fn convex_state_at(m: &Model) -> Data<f64> {
    let mut d = Data::new(m);
    moreau::forward(m, &mut d);
    d
}

/// `invdiscrete` (`ã = M⁻¹ He a`: Euler with implicit damping `He = M + h D`, implicitfast
/// `M − h sym(qDeriv)`, implicit `M − h qDeriv`): the analytic chain rule against the dual pass
/// through `mj_discreteAcc` (1e-10) and centered FD (1e-4; `DfDq` only on contact-free models,
/// see `check`). `qacc` is the forward acceleration, read as discrete.
fn check_invdiscrete(name: &str, integ: Option<Integrator>, seed: u64, settle: usize) {
    let mut m = model(name, integ);
    m.opt.enableflags |= enable::INVDISCRETE;
    let d0 = state(&m, seed, settle);
    let mut di = d0.clone();
    let (iq, iv, ia, idm) = inverse(&m, &mut di, &InverseOptions::analytic())
        .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
        .unwrap();
    assert_eq!(di.qacc, d0.qacc, "{name}: qacc restored");
    let (dq, dv, da, ddm) = dual_inverse_jacobian(&m, &d0);
    let e = [err(&iq, &dq), err(&iv, &dv), err(&ia, &da), err(&idm, &ddm)];
    // the chain rule is exercised: DfDa differs from the plain M + JᵀHJ
    let mut plain = m.clone();
    plain.opt.enableflags &= !enable::INVDISCRETE;
    let (_, _, pa, _) = inverse(&plain, &mut d0.clone(), &InverseOptions::analytic())
        .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
        .unwrap();
    let shift = err(&pa, &ia);
    let mut dfi = d0.clone();
    let fi = inverse(&m, &mut dfi, &InverseOptions::fd(1e-6, false, true)).unwrap();
    let ef = [err(&iq, &fi.DfDq), err(&iv, &fi.DfDv), err(&ia, &fi.DfDa)];
    eprintln!(
        "{name} {:?} invdiscrete seed {seed}: nefc {}, vs dual q {:.1e} v {:.1e} a {:.1e} \
         DmDq {:.1e}, vs FD q {:.1e} v {:.1e} a {:.1e}, DfDa shift by He − M {shift:.1e}",
        m.opt.integrator, d0.nefc, e[0], e[1], e[2], e[3], ef[0], ef[1], ef[2]
    );
    for x in e {
        assert!(x < 1e-10, "{name}: analytic vs dual {e:?}");
    }
    assert!(shift > 1e-6, "{name}: He − M not exercised");
    assert!(ef[1] < 1e-4 && ef[2] < 1e-4, "{name}: vs FD {ef:?}");
    if d0.nefc == 0 {
        assert!(ef[0] < 1e-4, "{name}: DfDq vs FD {ef:?}");
    }
}

/// RK4 under `invdiscrete` is refused, as MuJoCo 4.0.0's `mj_discreteAcc` does (a fatal
/// error); the implicit integrators are covered.
#[test]
fn invdiscrete_refused_for_rk4() {
    let mut m = model("cartpole", Some(Integrator::Rk4));
    m.opt.enableflags |= enable::INVDISCRETE;
    let e = Support::inverse(&m).check().expect_err("refused");
    assert!(e.message().contains("RK4"), "{e}");
    let mut d = Data::new(&m);
    assert!(inverse(&m, &mut d, &InverseOptions::analytic()).is_err());
    m.opt.integrator = Integrator::ImplicitFast;
    assert!(Support::inverse(&m).is_covered());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3, failure_persistence: None, rng_seed: proptest::test_runner::RngSeed::Fixed(0x6d6f7265), ..ProptestConfig::default() })]

    #[test]
    fn smooth_models(seed in any::<u64>()) {
        check("pendulum", None, seed, 0);
        check("cartpole", None, seed, 0);
        check("cartpole", Some(Integrator::ImplicitFast), seed, 0);
        check("arm7", None, seed, 0);
    }

    #[test]
    fn contact_models(seed in any::<u64>()) {
        check_analytic("sphere_drop", None, seed, 300);
        check_analytic("sphere_drop_elliptic", None, seed, 300);
        check_analytic("box_drop", None, seed, 300);
        check_analytic("box_drop_elliptic", None, seed, 300);
    }

    #[test]
    fn contact_chains(seed in any::<u64>()) {
        check_analytic("humanoid", None, seed, 150);
        check_analytic("capsule_chain", None, seed, 100);
        check_analytic("hopper_leg", None, seed, 50);
        check_analytic("rows", None, seed, 200);
    }

    #[test]
    fn invdiscrete_models(seed in any::<u64>()) {
        check_invdiscrete("cartpole", None, seed, 0);
        check_invdiscrete("tendon_springs", None, seed, 0);
        check_invdiscrete("hopper_leg", None, seed, 50);
    }

    #[test]
    fn invdiscrete_implicit_models(seed in any::<u64>()) {
        for integ in [Integrator::ImplicitFast, Integrator::Implicit] {
            check_invdiscrete("cartpole", Some(integ), seed, 0);
            check_invdiscrete("tendon_springs", Some(integ), seed, 0);
            check_invdiscrete("hopper_leg", Some(integ), seed, 50);
        }
    }

    #[test]
    fn quadruped(seed in any::<u64>()) {
        check_analytic("quadruped", None, seed, 200);
        check("quadruped", Some(Integrator::ImplicitFast), seed, 200);
    }
}
