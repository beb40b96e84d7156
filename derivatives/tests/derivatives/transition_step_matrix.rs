//! Analytic transition Jacobians `A`, `B` where the implicit step matrix `He` depends on the
//! state or the inputs (`moreau_derivatives::step_matrix`): polynomial dof and tendon damping
//! (Euler with eulerdamp, implicitfast, implicit), velocity-dependent actuator gains (muscle,
//! affine `gainprm[2]`), childless free bodies under implicitfast (exact gyroscopic block), and
//! the implicit integrator (full `qDeriv` with the RNE part, LU), and RK4 (the chain rule over
//! its four stages, `moreau_derivatives::transition_rk4`) — at random contact states of
//! `models/smooth_contact.xml` and `models/box_drop.xml`.
//!
//! Against the dual-number step (exact to round-off; the solver runs all 100 iterations,
//! `common::converged`, so the dual derivative of its iterates is the IFT one): 1e-10 relative.
//! The dual step against centred finite differences (step 1e-6): 1e-4 relative, FD's accuracy
//! at the contact's stiffness (the `analytic.rs` tolerance).

use moreau::model::Integrator;
use moreau::Model;
use moreau_derivatives::dual::dual_step_jacobian;
use moreau_derivatives::{transition, Support, TransitionOptions, Workspace};

use crate::common;

/// Analytic vs dual and dual vs FD at a random settled state (`settle` steps, then position
/// perturbations of scale `dq` (small enough that the contacts stay) and velocity 0.3);
/// returns the two errors.
fn check_dq(name: &str, m: &Model, seed: u64, settle: usize, dq: f64) -> (f64, f64) {
    assert_eq!(Support::transition(m), Support::Covered, "{name}");
    let d0 = common::state(m, common::lcg(seed), settle, dq, 0.3);
    // contact rows that carry force at the state (a lifted body's rows would not)
    let active = (0..d0.nefc)
        .filter(|&r| d0.efc_type[r].is_contact() && d0.efc_force[r] != 0.0)
        .count();
    assert!(active > 0, "{name}: no active contact at the test state");
    let mut d = d0.clone();
    let t = transition(
        m,
        &mut d,
        &TransitionOptions::analytic().with_sensors(false),
    )
    .unwrap();
    let (a, b) = dual_step_jacobian(m, &d0);
    let mut dfd = d0.clone();
    let f = transition(m, &mut dfd, &TransitionOptions::fd(1e-6, true)).unwrap();
    let e = common::rel_err(&t.A, &a).max(common::rel_err(&t.B, &b));
    let e_fd = common::rel_err(&f.A, &a).max(common::rel_err(&f.B, &b));
    eprintln!(
        "{name} {:?} seed {seed}: ncon {}, contact rows with force {active}, analytic vs dual \
         {e:.1e}, FD vs dual {e_fd:.1e}",
        m.opt.integrator,
        d0.contact.len()
    );
    assert!(e < 1e-10, "{name}: analytic vs dual {e}");
    assert!(e_fd < 1e-4, "{name}: FD vs dual {e_fd}");
    (e, e_fd)
}

/// [`check_dq`] with position perturbations of 1e-5 (the bodies rest on the floor with
/// ~3e-5 penetration: larger ones lift some off).
fn check(name: &str, m: &Model, seed: u64, settle: usize) -> (f64, f64) {
    check_dq(name, m, seed, settle, 1e-5)
}

fn smooth_contact(integ: Integrator) -> Model {
    common::model("smooth_contact", Some(integ))
}

#[test]
fn euler_polynomial_damping() {
    let m = smooth_contact(Integrator::Euler);
    assert!(m.dof_dampingpoly.iter().any(|p| p[0] != 0.0));
    for seed in [1, 2] {
        check("smooth_contact", &m, seed, 200);
    }
}

#[test]
fn implicitfast_all_cases() {
    // polynomial dof + tendon damping, muscle and affine velocity gain, two childless free bodies
    let m = smooth_contact(Integrator::ImplicitFast);
    for seed in [3, 4] {
        check("smooth_contact", &m, seed, 200);
    }
}

#[test]
fn implicitfast_each_case_alone() {
    let base = smooth_contact(Integrator::ImplicitFast);
    // velocity-dependent gains only: no polynomial damping
    let mut m = base.clone();
    m.dof_dampingpoly.iter_mut().for_each(|p| *p = [0.0; 2]);
    m.tendon_dampingpoly.iter_mut().for_each(|p| *p = [0.0; 2]);
    check("gains only", &m, 5, 150);
    // polynomial damping only: the velocity gain and the muscle's made velocity-independent
    // (a motor-like affine gain; muscle FV flat by a zero-velocity range is not available, so
    // the muscle's gain becomes fixed)
    let mut m = base.clone();
    let u = m.actuator_gaintype.len();
    for i in 0..u {
        m.actuator_gaintype[i] = moreau::model::GainType::Fixed;
        m.actuator_gainprm[i][2] = 0.0;
    }
    check("polynomial damping only", &m, 6, 150);
    // childless free bodies only: box_drop (four free boxes on a plane, linear damping none)
    let m = common::model("box_drop", Some(Integrator::ImplicitFast));
    check("box_drop", &m, 7, 300);
}

/// A spinning free body whose COM is off its frame origin (two offset geoms: `ipos ≠ 0`,
/// `iquat ≠ 1`), so the gyroscopic block's position columns (`R (e_k × Dg)`, zero for the
/// centred bodies of smooth_contact and box_drop) and its translation rows are exercised
/// (step_matrix's closed-form block under implicitfast, the RNE pass under implicit).
#[test]
fn offset_com_free_body() {
    let xml = r#"<mujoco model="lopsided">
      <option timestep="0.002"/>
      <worldbody>
        <geom type="plane" size="2 2 0.1"/>
        <body name="lump" pos="0 0 0.15">
          <freejoint/>
          <geom type="box" size="0.08 0.05 0.04" pos="0.03 -0.02 0.01" euler="10 20 30"/>
          <geom type="sphere" size="0.03" pos="-0.05 0.04 -0.01" density="3000"/>
        </body>
      </worldbody>
      <keyframe><key qpos="0 0 0.15 1 0 0 0" qvel="0.2 -0.1 0 4 -3 12"/></keyframe>
    </mujoco>"#;
    let m = moreau::load_from_str(xml, &Default::default()).unwrap();
    assert!(m.body_ipos[1].iter().any(|x| x.abs() > 1e-3));
    for (integ, seed) in [(Integrator::ImplicitFast, 14), (Integrator::Implicit, 15)] {
        let m = common::converged(m.clone(), Some(integ));
        check("offset_com", &m, seed, 100);
    }
}

#[test]
fn implicit_integrator() {
    let m = smooth_contact(Integrator::Implicit);
    for seed in [8, 9] {
        check("smooth_contact", &m, seed, 200);
    }
    let m = common::model("box_drop", Some(Integrator::Implicit));
    check("box_drop", &m, 10, 300);
}

#[test]
fn rk4() {
    // four stages, each through contact; free rotations through dexp⁻¹
    let m = smooth_contact(Integrator::Rk4);
    for seed in [11, 12] {
        check("smooth_contact", &m, seed, 200);
    }
    let m = common::model("box_drop", Some(Integrator::Rk4));
    check("box_drop", &m, 13, 300);
}

/// RK4's stages run in a `Data` the workspace keeps between calls: a workspace used before
/// (another state of the model, then another model) gives bit-identical `A`, `B` to a fresh one.
#[test]
fn rk4_reused_workspace_is_bit_identical() {
    let m = smooth_contact(Integrator::Rk4);
    let other = common::model("box_drop", Some(Integrator::Rk4));
    let opts = TransitionOptions::analytic().with_sensors(false);
    let states = [
        common::state(&m, common::lcg(21), 200, 1e-5, 0.3),
        common::state(&m, common::lcg(22), 200, 1e-5, 0.3),
    ];
    let d_other = common::state(&other, common::lcg(23), 300, 1e-5, 0.3);
    let mut w = Workspace::default();
    for d0 in &states {
        let fresh = Workspace::default()
            .transition(&m, &mut d0.clone(), &opts)
            .cloned()
            .unwrap();
        let reused = w.transition(&m, &mut d0.clone(), &opts).cloned().unwrap();
        assert_eq!(fresh.A.as_slice(), reused.A.as_slice());
        assert_eq!(fresh.B.as_slice(), reused.B.as_slice());
        // the same workspace through another model in between
        w.transition(&other, &mut d_other.clone(), &opts).unwrap();
    }
}

/// Analytic `A`, `B` (and `C`, `D` where the case has sensors) against MuJoCo 4.0.0's centred
/// finite differences (tests/reference/
/// fd_cases.json: `mjd_transitionFD`, and for RK4 central differences of `mj_step` in Python)
/// on every case: Euler with polynomial dof and tendon damping (tendon_springs), implicit,
/// implicitfast (free body: a childless free body; the inline actuated model: affine velocity
/// gains), RK4 (cartpole, ball pendulum, zoo2, the inline model). Tolerance 1e-6 relative (FD's
/// truncation error at MuJoCo's step; contact cases 1e-4: MuJoCo's solver tolerance 1e-8 makes
/// its differenced steps noisy, as in fd_oracle.rs).
#[test]
fn analytic_vs_mujoco_fd_cases() {
    let all = common::fd_cases();
    let (mut n, mut worst) = (0, [0.0f64; 2]);
    for case in all["cases"].as_array().unwrap() {
        let method = case["method"].as_str().unwrap_or("");
        if method != "mjd_transitionFD" && method != "python_rk4" {
            continue;
        }
        let m = common::fd_case_model(case);
        let mut d = moreau::Data::new(&m);
        common::fd_case_state(&m, &mut d, &case["state"]);
        // with the sensor Jacobians C, D where the case has sensors the analytic pass supports
        let sensors = m.nsensordata > 0 && {
            moreau::forward(&m, &mut d);
            Support::sensors(&m, &d).is_covered()
        };
        let t = Workspace::default()
            .transition(
                &m,
                &mut d,
                &TransitionOptions::analytic().with_sensors(sensors),
            )
            .cloned()
            .unwrap();
        let want = &case["transition"]["centered"];
        let (nx, nu, ns) = (2 * m.nv + m.na, m.nu, m.nsensordata);
        let mut e = common::rel_err(&t.A, &common::json_mat(&want["A"], nx, nx))
            .max(common::rel_err(&t.B, &common::json_mat(&want["B"], nx, nu)));
        if sensors {
            e = e
                .max(common::rel_err(&t.C, &common::json_mat(&want["C"], ns, nx)))
                .max(common::rel_err(&t.D, &common::json_mat(&want["D"], ns, nu)));
        }
        let contact = case["contact"].as_bool().unwrap();
        let name = format!(
            "{} {} state {}",
            case["model"].as_str().unwrap(),
            case["integrator"].as_str().unwrap_or("(own)"),
            case["state_index"]
        );
        eprintln!(
            "{name}: A, B{} vs MuJoCo {e:.1e}",
            if sensors { ", C, D" } else { "" }
        );
        let w = &mut worst[usize::from(contact)];
        *w = w.max(e);
        assert!(e < if contact { 1e-4 } else { 1e-6 }, "{name}: {e:.2e}");
        n += 1;
    }
    eprintln!(
        "{n} cases, worst smooth {:.1e}, contact {:.1e}",
        worst[0], worst[1]
    );
    assert!(n > 60, "only {n} cases");
}
