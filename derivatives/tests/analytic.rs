//! Analytic derivatives (IFT through soft contact, analytic inverse-dynamics derivatives)
//! against exact dual-number Jacobians (same computation on `Dual64`) and against finite
//! differences, at random states (proptest) of project models with and without contacts.
//!
//! The constraint solver runs with `tolerance = 0` (all 100 iterations) so the dual
//! derivative of the solver iterates equals the IFT derivative at the optimum.
//! Errors are `max |a − b| / max(1, max |b|)`; the worst values are printed.

use moreau::integrator::step;
use moreau::model::{enable, Integrator};
use moreau::state::integrate_pos;
use moreau::{Data, Model};
use moreau_derivatives::contact::{forward_analytic, transition_analytic};
use moreau_derivatives::dual::{dual_forward_jacobian, dual_inverse_jacobian, dual_step_jacobian};
use moreau_derivatives::fd::{inverse_fd, transition_fd};
use moreau_derivatives::inverse::{inverse_analytic, unsupported};
use moreau_derivatives::pos::{d_pos_method, Method, Output};
use nalgebra::DMatrix;
use proptest::prelude::*;

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

fn model(name: &str, integ: Option<Integrator>) -> Model {
    let mut m = if name == "rows" {
        moreau::mjcf::load_from_str(ROWS_XML, &moreau::mjcf::Vfs::default()).unwrap()
    } else {
        let p = format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
        moreau::mjcf::load(&p).unwrap()
    };
    m.opt.tolerance = 0.0;
    m.opt.iterations = 100;
    m.opt.ls_iterations = 100;
    if let Some(i) = integ {
        m.opt.integrator = i;
    }
    m
}

/// A random state: `settle` steps from the initial state (contacts form), then random
/// position (tangent), velocity and control perturbations from a seed.
fn state(m: &Model, seed: u64, settle: usize) -> Data<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut rnd = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut d = Data::new(m);
    if m.nkey > 0 {
        d.reset_keyframe(m, 0).unwrap();
    }
    for u in 0..m.nu {
        d.ctrl[u] = if m.actuator_ctrllimited[u] {
            let r = m.actuator_ctrlrange[u];
            r[0] + (r[1] - r[0]) * 0.5 * (1.0 + 0.8 * rnd())
        } else {
            rnd()
        };
    }
    for _ in 0..settle {
        step(m, &mut d);
    }
    let dq: Vec<f64> = (0..m.nv).map(|_| 0.05 * rnd()).collect();
    integrate_pos(m, &mut d.qpos, &dq, 1.0);
    for v in d.qvel.iter_mut() {
        *v += 0.1 * rnd();
    }
    for a in d.act.iter_mut() {
        *a += 0.1 * rnd();
    }
    moreau::forward::forward(m, &mut d);
    d
}

/// Analytic vs dual (forward ∂qacc, A, B, inverse DfDv, DfDa) and dual vs centered FD (A, B).
/// Returns how `pos` obtained `∂g/∂q` at the state.
fn check(name: &str, integ: Option<Integrator>, seed: u64, settle: usize) -> Method {
    let m = model(name, integ);
    let d = state(&m, seed, settle);
    check_at(name, &m, d, integ, seed)
}

/// [`check`] at the given (forwarded) state.
fn check_at(
    name: &str,
    m: &Model,
    mut d: Data<f64>,
    integ: Option<Integrator>,
    seed: u64,
) -> Method {
    let m = m.clone();
    let nefc = d.nefc;
    let meth = d_pos_method(&m, &d, Output::Residual, &mut Default::default()).1;
    let cone = d.efc_state[..nefc]
        .iter()
        .filter(|s| **s == moreau::constraint::ConstraintState::Cone)
        .count();
    let d0 = d.clone();
    // forward dynamics by the IFT
    let fa = forward_analytic(&m, &mut d).unwrap();
    let fdl = dual_forward_jacobian(&m, &d0);
    let e_fwd = err(&fa, &fdl);
    // inverse dynamics at the forward qacc
    let mut di = d0.clone();
    let (iq, iv, ia, _) = inverse_analytic(&m, &mut di).unwrap();
    let (dq, dv, da, _) = dual_inverse_jacobian(&m, &d0);
    let e_inv = err(&ia, &da).max(err(&iv, &dv)).max(err(&iq, &dq));
    let mut dfi = d0.clone();
    let fi = inverse_fd(&m, &mut dfi, 1e-6, false, true);
    let e3 = [err(&iq, &fi.DfDq), err(&iv, &fi.DfDv), err(&ia, &fi.DfDa)];
    // DfDq vs FD: the soft-contact cost is piecewise quadratic; a position step of eps moves
    // jar by ~K eps (K the stiff reference stiffness), so rows with |jar| that small cross a
    // kink in the FD (not in the exact one-sided derivative). Compared, not asserted; the
    // smaller-step FD is printed too.
    let e_q_small = {
        let mut dfi = d0.clone();
        err(&iq, &inverse_fd(&m, &mut dfi, 1e-9, false, true).DfDq)
    };
    let e_inv_fd = e3[1].max(e3[2]);
    // transition
    let mut dt = d0.clone();
    let (e_a, e_b, e_fd) = match transition_analytic(&m, &mut dt) {
        Ok(t) => {
            let (a, b) = dual_step_jacobian(&m, &d0);
            let mut dfd = d0.clone();
            let f = transition_fd(&m, &mut dfd, 1e-6, true);
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
    assert!(e_fwd < 1e-10, "{name}: forward {e_fwd}");
    assert!(e_inv < 1e-10, "{name}: inverse {e_inv}");
    assert!(e_a < 1e-10 && e_b < 1e-10, "{name}: A {e_a} B {e_b}");
    assert!(e_fd < 1e-4, "{name}: dual vs FD {e_fd}");
    assert!(e_inv_fd < 1e-4, "{name}: inverse vs FD {e_inv_fd}");
    meth
}

/// `check`, asserting that `pos` took the analytic path (`Constraint` with rows, else `Smooth`).
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

/// Friction-loss rows in their linear (sliding) zones next to limits and contacts: the
/// analytic path against duals with `LinearPos`/`LinearNeg` rows present.
#[test]
fn friction_loss_linear_zone() {
    use moreau::constraint::ConstraintState::{LinearNeg, LinearPos};
    let m = model("rows", None);
    let mut d = state(&m, 3, 200);
    for (j, v) in [("h1", 3.0), ("t1", -2.0), ("t2", 1.5)] {
        let jn = m.joint_id(j).unwrap();
        d.qvel[m.jnt_dofadr[jn]] = v;
    }
    moreau::forward::forward(&m, &mut d);
    let lin = d.efc_state[..d.nefc]
        .iter()
        .filter(|s| matches!(s, LinearPos | LinearNeg))
        .count();
    assert!(lin >= 2, "rows: {lin} friction rows in the linear zone");
    assert_eq!(check_at("rows/sliding", &m, d, None, 3), Method::Constraint);
}

/// The explicit fallback: contacts of the f64-only convex colliders (mesh on plane) take the
/// restricted dual pass and agree with the dual Jacobian. (Not with FD: those colliders carry
/// no geometry derivative, in the dual reference either.)
#[test]
fn convex_contacts_fall_back() {
    let m = model("mesh_drop", None);
    let d = state(&m, 7, 300);
    assert!(d.nefc > 0, "mesh_drop: no contact after settling");
    let meth = d_pos_method(&m, &d, Output::Residual, &mut Default::default()).1;
    assert_eq!(meth, Method::Restricted);
    let t = transition_analytic(&m, &mut d.clone()).unwrap();
    let (a, _) = dual_step_jacobian(&m, &d);
    let e = err(&t.A, &a);
    eprintln!("mesh_drop: A vs dual {e:.1e}");
    assert!(e < 1e-10, "mesh_drop: A {e}");
}

/// `invdiscrete` (Euler with implicit damping, `ã = a + h M⁻¹ D a`): the analytic chain rule
/// against the dual pass through `mj_discreteAcc` (1e-10) and centered FD (1e-4; `DfDq` only
/// on contact-free models, see `check`). `qacc` is the forward acceleration, read as discrete.
fn check_invdiscrete(name: &str, seed: u64, settle: usize) {
    let mut m = model(name, None);
    m.opt.enableflags |= enable::INVDISCRETE;
    let d0 = state(&m, seed, settle);
    let mut di = d0.clone();
    let (iq, iv, ia, idm) = inverse_analytic(&m, &mut di).unwrap();
    assert_eq!(di.qacc, d0.qacc, "{name}: qacc restored");
    let (dq, dv, da, ddm) = dual_inverse_jacobian(&m, &d0);
    let e = [err(&iq, &dq), err(&iv, &dv), err(&ia, &da), err(&idm, &ddm)];
    // the chain rule is exercised: DfDa differs from the plain M + JᵀHJ
    let mut plain = m.clone();
    plain.opt.enableflags &= !enable::INVDISCRETE;
    let (_, _, pa, _) = inverse_analytic(&plain, &mut d0.clone()).unwrap();
    let shift = err(&pa, &ia);
    let mut dfi = d0.clone();
    let fi = inverse_fd(&m, &mut dfi, 1e-6, false, true);
    let ef = [err(&iq, &fi.DfDq), err(&iv, &fi.DfDv), err(&ia, &fi.DfDa)];
    eprintln!(
        "{name} invdiscrete seed {seed}: nefc {}, vs dual q {:.1e} v {:.1e} a {:.1e} DmDq {:.1e}, \
         vs FD q {:.1e} v {:.1e} a {:.1e}, DfDa shift by eulerdamp {shift:.1e}",
        d0.nefc, e[0], e[1], e[2], e[3], ef[0], ef[1], ef[2]
    );
    for x in e {
        assert!(x < 1e-10, "{name}: analytic vs dual {e:?}");
    }
    assert!(shift > 1e-6, "{name}: eulerdamp not exercised");
    assert!(ef[1] < 1e-4 && ef[2] < 1e-4, "{name}: vs FD {ef:?}");
    if d0.nefc == 0 {
        assert!(ef[0] < 1e-4, "{name}: DfDq vs FD {ef:?}");
    }
}

#[test]
fn invdiscrete_refused_for_implicit_integrators() {
    let mut m = model("cartpole", Some(Integrator::ImplicitFast));
    m.opt.enableflags |= enable::INVDISCRETE;
    assert!(unsupported(&m).is_some());
    let mut d = Data::new(&m);
    assert!(inverse_analytic(&m, &mut d).is_err());
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
        check_invdiscrete("cartpole", seed, 0);
        check_invdiscrete("tendon_springs", seed, 0);
        check_invdiscrete("hopper_leg", seed, 50);
    }

    #[test]
    fn quadruped(seed in any::<u64>()) {
        check_analytic("quadruped", None, seed, 200);
        check("quadruped", Some(Integrator::ImplicitFast), seed, 200);
    }
}
