//! Analytic derivatives with connect/weld equality constraints (their `aref` subtracts the
//! velocity-quadratic `J̇ qvel`) and with fluid forces (inertia-box and ellipsoid models), at
//! random states with contacts: the analytic inverse Jacobians (`DfDq`, `DfDv`, `DfDa`), the
//! IFT forward `∂qacc/∂x` and the analytic transition `A`, `B` (Euler and implicitfast) against
//! exact dual-number Jacobians (the same computation on `Dual64`, 1e-10) and against moreau's
//! finite differences (to FD accuracy); and at one state against MuJoCo 4.0.0's
//! `mjd_transitionFD` / `mjd_inverseFD` (tests/reference/eq_fluid_fd_cases.json from
//! tools/reference/gen_eq_fluid_fd_cases.py).
//!
//! The constraint solver runs to convergence (`tests/common::converged`) so the dual derivative
//! of the iterates is the IFT derivative. Errors are `max |a − b| / max(1, max |b|)`.

use moreau::data::ConstraintType;
use moreau::model::{EqType, Integrator};
use moreau::{Data, Model};
use moreau_derivatives::dual::{dual_forward_jacobian, dual_inverse_jacobian, dual_step_jacobian};
use moreau_derivatives::forward::forward_analytic;
use moreau_derivatives::{inverse, transition, InverseOptions, TransitionOptions};
use nalgebra::DMatrix;

use crate::common;

fn err(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    assert_eq!(a.shape(), b.shape());
    (a - b).amax() / b.amax().max(1.0)
}

/// Analytic against exact to round-off.
const EXACT: f64 = 1e-10;
/// Forward and transition Jacobians pass through the constraint solve, at converged-contact
/// tolerance. Since quaternions within 1e-15 of unit length keep their value (as
/// `mju_normalize4`), the islands model's free bodies reach seed 6's state with quaternions
/// that are unit only to ~1e-15, and there analytic and dual `qacc` differ by 4.6e-10, `A`, `B`
/// by 7.5e-9 (5e-15 and 4e-13 when every step normalized exactly). Where this is amplified
/// (stiff rows, 1/R ~ 1e6, are the suspect) is not located yet.
const EXACT_SOLVE: f64 = 1e-8;
/// Centered FD (eps 1e-6) through the converged solver: truncation ~eps² times third
/// derivatives and round-off ~1e-16/eps times the force scale (stiff soft constraints).
const FD: f64 = 1e-4;

/// Connect/weld rows and contacts at the state of `d`.
fn rows(m: &Model, d: &Data<f64>) -> (usize, usize) {
    let eq = (0..d.nefc)
        .filter(|&r| {
            d.efc_type[r] == ConstraintType::Equality
                && matches!(m.eq_type[d.efc_id[r]], EqType::Connect | EqType::Weld)
        })
        .count();
    (eq, d.contact.len())
}

/// Analytic vs dual (inverse, forward, transition) and vs moreau's FD at the forwarded state
/// `d0`.
fn check_at(name: &str, m: &Model, d0: &Data<f64>) {
    let (eq, ncon) = rows(m, d0);
    // inverse dynamics at the forward qacc
    let mut di = d0.clone();
    let (iq, iv, ia, _) = inverse(m, &mut di, &InverseOptions::analytic())
        .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
        .unwrap();
    let (dq, dv, da, _) = dual_inverse_jacobian(m, d0);
    let e_inv = [err(&iq, &dq), err(&iv, &dv), err(&ia, &da)];
    let mut dfi = d0.clone();
    let fi = inverse(m, &mut dfi, &InverseOptions::fd(1e-6, false, true)).unwrap();
    let e_inv_fd = [err(&iq, &fi.DfDq), err(&iv, &fi.DfDv), err(&ia, &fi.DfDa)];
    // forward by the IFT
    let mut df = d0.clone();
    let e_fwd = err(
        &forward_analytic(m, &mut df).unwrap(),
        &dual_forward_jacobian(m, d0),
    );
    // transition
    let mut dt = d0.clone();
    let t = transition(
        m,
        &mut dt,
        &TransitionOptions::analytic().with_sensors(false),
    )
    .unwrap();
    let (a, b) = dual_step_jacobian(m, d0);
    let e_ab = err(&t.A, &a).max(err(&t.B, &b));
    let mut dfd = d0.clone();
    let f = transition(m, &mut dfd, &TransitionOptions::fd(1e-6, true)).unwrap();
    let e_ab_fd = err(&t.A, &f.A).max(err(&t.B, &f.B));
    eprintln!(
        "{name} {:?}: connect/weld rows {eq}, contacts {ncon}, nefc {}; analytic vs dual: \
         DfDq {:.1e} DfDv {:.1e} DfDa {:.1e} qacc {e_fwd:.1e} A,B {e_ab:.1e}; vs FD: DfDq {:.1e} \
         DfDv {:.1e} DfDa {:.1e} A,B {e_ab_fd:.1e}",
        m.opt.integrator,
        d0.nefc,
        e_inv[0],
        e_inv[1],
        e_inv[2],
        e_inv_fd[0],
        e_inv_fd[1],
        e_inv_fd[2]
    );
    for (what, e) in [("DfDq", e_inv[0]), ("DfDv", e_inv[1]), ("DfDa", e_inv[2])] {
        assert!(e < EXACT, "{name}: inverse {what} vs dual {e}");
    }
    assert!(e_fwd < EXACT_SOLVE, "{name}: forward vs dual {e_fwd}");
    assert!(e_ab < EXACT_SOLVE, "{name}: A, B vs dual {e_ab}");
    for (what, e) in [
        ("DfDq", e_inv_fd[0]),
        ("DfDv", e_inv_fd[1]),
        ("DfDa", e_inv_fd[2]),
    ] {
        assert!(e < FD, "{name}: inverse {what} vs FD {e}");
    }
    assert!(e_ab_fd < FD, "{name}: A, B vs FD {e_ab_fd}");
}

/// [`check_at`] at `seeds` random states of `models/NAME.xml` (`settle` steps from rest, then
/// random perturbations), asserting connect/weld rows (`eq`) and contacts (`contacts`) are
/// present.
fn check(
    name: &str,
    integ: Option<Integrator>,
    settle: usize,
    seeds: &[u64],
    eq: bool,
    contacts: bool,
) {
    let m = common::model(name, integ);
    for &seed in seeds {
        // tiny position perturbations: the bodies rest < 1 mm deep in the floor
        let d = common::state(&m, common::lcg(seed), settle, 5e-5, 0.2);
        let (neq, ncon) = rows(&m, &d);
        assert!(!eq || neq > 0, "{name} seed {seed}: no connect/weld rows");
        assert!(!contacts || ncon > 0, "{name} seed {seed}: no contacts");
        check_at(&format!("{name} seed {seed}"), &m, &d);
    }
}

#[test]
fn connect_weld_with_contacts() {
    check("eq_contact", None, 200, &[1, 2], true, true);
    check(
        "eq_contact",
        Some(Integrator::ImplicitFast),
        200,
        &[3],
        true,
        true,
    );
    check(
        "eq_contact",
        Some(Integrator::Implicit),
        200,
        &[12],
        true,
        true,
    );
}

/// Every equality type, ball and tendon limits (no contacts; the two welds are body welds, one
/// to the world with torquescale 3), from the violated keyframe.
#[test]
fn connect_weld_all_rows() {
    check("constraints", None, 0, &[4, 5], true, false);
}

/// A connect joining two trees beside contacts of free bodies (islands).
#[test]
fn connect_islands() {
    check("islands", None, 100, &[6], true, true);
}

#[test]
fn fluid_with_contacts() {
    check("fluid_swimmer", None, 300, &[7, 8], false, true);
    check(
        "fluid_swimmer",
        Some(Integrator::ImplicitFast),
        300,
        &[9, 10],
        false,
        true,
    );
    // the implicit integrator: He's fluid block differentiated by crate::step_matrix's dual passes
    check(
        "fluid_swimmer",
        Some(Integrator::Implicit),
        300,
        &[11],
        false,
        true,
    );
}

/// Rows of a JSON matrix.
fn json_mat(v: &serde_json::Value) -> DMatrix<f64> {
    let r: Vec<Vec<f64>> = serde_json::from_value(v.clone()).unwrap();
    let nc = r.first().map_or(0, |x| x.len());
    DMatrix::from_fn(r.len(), nc, |i, j| r[i][j])
}

/// Analytic A, B and inverse Jacobians against MuJoCo 4.0.0's `mjd_transitionFD` (centered)
/// and `mjd_inverseFD` (forward differences) at one contact state per model and integrator
/// (the solver at its default tolerance, as MuJoCo's).
#[test]
fn matches_mujoco_fd() {
    let refs = common::eq_fluid_cases();
    for c in refs["cases"].as_array().unwrap() {
        let (m, d) = common::eq_fluid_case(c, |_| {});
        let name = c["model"].as_str().unwrap();
        let qacc: Vec<f64> = serde_json::from_value(c["qacc"].clone()).unwrap();
        let e_qacc = d
            .qacc
            .iter()
            .zip(&qacc)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
            / qacc.iter().fold(1.0, |s, x| f64::max(s, x.abs()));
        let mut dt = d.clone();
        let t = transition(
            &m,
            &mut dt,
            &TransitionOptions::analytic().with_sensors(false),
        )
        .unwrap();
        let e_a = err(&t.A, &json_mat(&c["A"]));
        let e_b = err(&t.B, &json_mat(&c["B"]));
        let mut di = d.clone();
        let (iq, iv, ia, _) = inverse(&m, &mut di, &InverseOptions::analytic())
            .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
            .unwrap();
        let e_inv = [
            err(&iq, &json_mat(&c["DfDq"])),
            err(&iv, &json_mat(&c["DfDv"])),
            err(&ia, &json_mat(&c["DfDa"])),
        ];
        // moreau's own forward-difference DfDq (MuJoCo's scheme) against MuJoCo's: the same
        // differences, so what separates the analytic DfDq from MuJoCo's is FD truncation
        let mut df = d.clone();
        let e_fdq = err(
            &inverse(&m, &mut df, &InverseOptions::fd(1e-6, false, false))
                .unwrap()
                .DfDq,
            &json_mat(&c["DfDq"]),
        );
        eprintln!(
            "{name} {:?}: nefc {} (MuJoCo {}); qacc vs MuJoCo {e_qacc:.1e}; analytic vs MuJoCo FD: \
             A {e_a:.1e} B {e_b:.1e} DfDq {:.1e} DfDv {:.1e} DfDa {:.1e}; moreau FD DfDq vs \
             MuJoCo's {e_fdq:.1e}",
            m.opt.integrator, d.nefc, c["nefc"], e_inv[0], e_inv[1], e_inv[2]
        );
        assert_eq!(d.nefc as u64, c["nefc"].as_u64().unwrap(), "{name}: nefc");
        // the solver stops at tolerance 1e-8 on both sides
        assert!(e_qacc < 1e-6, "{name}: qacc vs MuJoCo {e_qacc}");
        // centered differences through the stiff contacts (measured ≤ 1.2e-6)
        assert!(e_a < 1e-5 && e_b < 1e-5, "{name}: A {e_a} B {e_b}");
        assert!(
            e_inv[1] < 1e-7 && e_inv[2] < 1e-7,
            "{name}: DfDv, DfDa {e_inv:?}"
        );
        // forward differences in q cross the soft contacts' stiff reference (measured ≤ 6.5e-4,
        // equal to moreau's own forward FD's distance to the exact one)
        assert!(e_inv[0] < 2e-3, "{name}: DfDq {}", e_inv[0]);
        assert!(e_fdq < 1e-6, "{name}: moreau FD DfDq vs MuJoCo's {e_fdq}");
    }
}

/// `invdiscrete` with Euler (implicit joint damping on both models): the analytic inverse
/// Jacobians through the discrete-acceleration chain rule against duals.
#[test]
fn invdiscrete_euler() {
    for (name, seed, settle) in [("eq_contact", 11, 200), ("fluid_swimmer", 12, 300)] {
        let mut m = common::model(name, None);
        m.opt.enableflags |= moreau::model::enable::INVDISCRETE;
        let d0 = common::state(&m, common::lcg(seed), settle, 5e-5, 0.2);
        let mut di = d0.clone();
        let (iq, iv, ia, _) = inverse(&m, &mut di, &InverseOptions::analytic())
            .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
            .unwrap();
        let (dq, dv, da, _) = dual_inverse_jacobian(&m, &d0);
        let e = [err(&iq, &dq), err(&iv, &dv), err(&ia, &da)];
        eprintln!(
            "{name} invdiscrete: DfDq {:.1e} DfDv {:.1e} DfDa {:.1e} vs dual",
            e[0], e[1], e[2]
        );
        assert!(e.iter().all(|&x| x < EXACT), "{name} invdiscrete: {e:?}");
    }
}
