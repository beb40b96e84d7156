//! `invdiscrete` under the implicit integrators: `qacc` is the discrete acceleration `a`, the
//! inverse dynamics runs at `ã = M⁻¹ He a` (`He = M − h sym(qDeriv)` under implicitfast, with
//! the exact gyroscopic block of childless free bodies; `M − h qDeriv` under implicit; `qDeriv`
//! recomputed at the state as MuJoCo's `mj_discreteAcc`). The analytic inverse Jacobians
//! (`crate::inverse`'s chain rule through `crate::step_matrix`) against exact dual numbers through
//! the same inverse (1e-10), moreau's centered FD (1e-4), and MuJoCo 4.0.0's `mj_inverse` and
//! `mjd_inverseFD` (tests/reference/eq_fluid_fd_cases.json, `invdiscrete_cases`, from
//! tools/reference/gen_eq_fluid_fd_cases.py). RK4 is refused, as MuJoCo 4.0.0 refuses it.
//!
//! Errors are `max |a − b| / max(1, max |b|)`.

use moreau::model::{enable, Integrator};
use moreau::Data;
use moreau_derivatives::dual::dual_inverse_jacobian;
use moreau_derivatives::{inverse, InverseOptions};

use crate::common;
use common::{fv, rel_err as err};

/// Analytic against exact duals (round-off).
const EXACT: f64 = 1e-10;
/// Centered FD (eps 1e-6) through the soft constraints (as analytic_eq_fluid.rs).
const FD: f64 = 1e-4;

/// `models/NAME.xml` (solver converged) under `integ` with `invdiscrete`.
fn disc_model(name: &str, integ: Integrator) -> moreau::Model {
    let mut m = common::model(name, Some(integ));
    m.opt.enableflags |= enable::INVDISCRETE;
    m
}

/// Analytic vs dual and vs centered FD at a random settled state; also that the chain rule is
/// exercised (`DfDa` differs from the continuous one).
fn check(name: &str, integ: Integrator, seed: u64, settle: usize) {
    let m = disc_model(name, integ);
    let d0 = common::state(&m, common::lcg(seed), settle, 5e-5, 0.2);
    let mut di = d0.clone();
    let (iq, iv, ia, idm) = inverse(&m, &mut di, &InverseOptions::analytic())
        .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
        .unwrap();
    assert_eq!(di.qacc, d0.qacc, "{name}: qacc restored");
    let (dq, dv, da, ddm) = dual_inverse_jacobian(&m, &d0);
    let e = [err(&iq, &dq), err(&iv, &dv), err(&ia, &da), err(&idm, &ddm)];
    let fi = inverse(&m, &mut d0.clone(), &InverseOptions::fd(1e-6, false, true)).unwrap();
    let ef = [err(&iq, &fi.DfDq), err(&iv, &fi.DfDv), err(&ia, &fi.DfDa)];
    let mut plain = m.clone();
    plain.opt.enableflags &= !enable::INVDISCRETE;
    let (_, pv, pa, _) = inverse(&plain, &mut d0.clone(), &InverseOptions::analytic())
        .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
        .unwrap();
    let shift = [err(&pa, &ia), err(&pv, &iv)];
    eprintln!(
        "{name} {integ:?} seed {seed}: nefc {}; vs dual q {:.1e} v {:.1e} a {:.1e} DmDq {:.1e}; \
         vs FD q {:.1e} v {:.1e} a {:.1e}; shift from continuous a {:.1e} v {:.1e}",
        d0.nefc, e[0], e[1], e[2], e[3], ef[0], ef[1], ef[2], shift[0], shift[1]
    );
    assert!(
        e.iter().all(|&x| x < EXACT),
        "{name} {integ:?}: vs dual {e:?}"
    );
    assert!(ef.iter().all(|&x| x < FD), "{name} {integ:?}: vs FD {ef:?}");
    assert!(shift[0] > 1e-6, "{name} {integ:?}: He − M not exercised");
}

#[test]
fn eq_contact() {
    check("eq_contact", Integrator::ImplicitFast, 21, 200);
    check("eq_contact", Integrator::Implicit, 22, 200);
}

/// Fluid forces: `∂τ/∂q` by the full dual pass, the chain rule's `v` and `a` columns analytic.
#[test]
fn fluid_swimmer() {
    check("fluid_swimmer", Integrator::ImplicitFast, 23, 300);
    check("fluid_swimmer", Integrator::Implicit, 24, 300);
}

/// Childless free bodies (implicitfast's exact gyroscopic blocks) with contacts.
#[test]
fn free_bodies() {
    check("box_drop", Integrator::ImplicitFast, 25, 300);
    check("box_drop", Integrator::Implicit, 26, 300);
    check("hopper_leg", Integrator::ImplicitFast, 27, 50);
    check("hopper_leg", Integrator::Implicit, 28, 50);
}

/// RK4 with `invdiscrete`: refused with MuJoCo 4.0.0's reason (its `mj_inverse` raises; the
/// recorded message).
#[test]
fn rk4_refused() {
    let refs = common::eq_fluid_cases();
    let msg = refs["invdiscrete_rk4_error"].as_str().unwrap();
    assert!(msg.contains("not supported by RK4"), "{msg}");
    let m = disc_model("hopper_leg", Integrator::Rk4);
    let e = moreau_derivatives::Support::inverse(&m)
        .check()
        .expect_err("refused");
    assert!(e.message().contains("RK4"), "{e}");
    assert!(inverse(&m, &mut Data::new(&m), &InverseOptions::analytic()).is_err());
}

/// At MuJoCo's states and discrete `qacc`: moreau's `qfrc_inverse` against `mj_inverse`, the
/// analytic Jacobians against `mjd_inverseFD` (forward differences, default solver tolerance
/// as MuJoCo's), and moreau's own forward-difference Jacobians against MuJoCo's.
#[test]
fn matches_mujoco() {
    let refs = common::eq_fluid_cases();
    for c in refs["invdiscrete_cases"].as_array().unwrap() {
        let (m, mut d) = common::eq_fluid_case(c, |m| m.opt.enableflags |= enable::INVDISCRETE);
        let name = c["model"].as_str().unwrap();
        assert_eq!(d.nefc as u64, c["nefc"].as_u64().unwrap(), "{name}: nefc");
        d.qacc.copy_from_slice(&fv(&c["qacc"]));
        // qfrc_inverse with and without the flag against mj_inverse's
        let tau_err = |m: &moreau::Model, key: &str| {
            let want = fv(&c[key]);
            let mut dq = d.clone();
            moreau::inverse(m, &mut dq);
            let scale = want.iter().fold(1.0f64, |s, x| s.max(x.abs()));
            dq.qfrc_inverse
                .iter()
                .zip(&want)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max)
                / scale
        };
        let e_tau = tau_err(&m, "qfrc_inverse");
        let mut mc = m.clone();
        mc.opt.enableflags &= !enable::INVDISCRETE;
        let e_cont = tau_err(&mc, "qfrc_inverse_continuous");
        let nv = m.nv;
        let mat = |k: &str| common::json_mat(&c[k], nv, nv);
        let (iq, iv, ia, _) = inverse(&m, &mut d.clone(), &InverseOptions::analytic())
            .map(|j| (j.DfDq, j.DfDv, j.DfDa, j.DmDq))
            .unwrap();
        let e = [
            err(&iq, &mat("DfDq")),
            err(&iv, &mat("DfDv")),
            err(&ia, &mat("DfDa")),
        ];
        let f = inverse(&m, &mut d.clone(), &InverseOptions::fd(1e-6, false, false)).unwrap();
        let ef = [
            err(&f.DfDq, &mat("DfDq")),
            err(&f.DfDv, &mat("DfDv")),
            err(&f.DfDa, &mat("DfDa")),
        ];
        eprintln!(
            "{name} {:?}: nefc {}; qfrc_inverse vs MuJoCo {e_tau:.1e} (continuous {e_cont:.1e}); analytic vs MuJoCo FD: \
             DfDq {:.1e} DfDv {:.1e} DfDa {:.1e}; moreau FD vs MuJoCo FD {:.1e} {:.1e} {:.1e}",
            m.opt.integrator, d.nefc, e[0], e[1], e[2], ef[0], ef[1], ef[2]
        );
        // the continuous inverse at the same state differs as much (fluid_swimmer 2.1e-9: the
        // fluid and contact forces' round-off at these speeds and depths; eq_contact 1.4e-11),
        // so the invdiscrete conversion adds nothing measurable
        assert!(
            e_tau < 1e-8 && e_cont < 1e-8,
            "{name}: qfrc_inverse vs MuJoCo {e_tau} (continuous {e_cont})"
        );
        assert!(
            ef.iter().all(|&x| x < 1e-6),
            "{name}: moreau FD vs MuJoCo FD {ef:?}"
        );
        assert!(e[1] < 1e-6 && e[2] < 1e-6, "{name}: DfDv, DfDa {e:?}");
        assert!(e[0] < 2e-3, "{name}: DfDq {}", e[0]);
    }
}
