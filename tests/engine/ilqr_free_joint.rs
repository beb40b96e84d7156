//! iLQR on models with free joints: `MoreauSystem`'s tangent space `(dq, qvel, act)`
//! of size `2nv + na`, its transition Jacobians against MuJoCo 4.0.0's `mjd_transitionFD`
//! (free_body, tests/reference/fd_cases.json from tools/reference/gen_fd_cases.py) and, on the
//! quadruped at a contact state, against the analytic Jacobians and against central
//! differences of full steps taken through `x ⊕ δ`; and iLQR converging with a tangent-space
//! cost on both models.

use crate::oracle_util;

use moreau::model::Integrator;
use moreau_optim::ilqr::{
    central_jacobians, ilqr, Dynamics, IlqrOptions, IlqrResult, QuadraticCost,
};
use moreau_optim::mpc::{ctrl_bounds, state_of};
use moreau_optim::system::{Linearization, MoreauSystem};
use nalgebra::{DMatrix, DVector};
use oracle_util::{cmp, fv, model, reference};

/// A deterministic pseudo-random sequence in [-1, 1].
fn lcg(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// The quadruped at a contact state with a tilted, turning torso: 60 steps from the stance under
/// a torque and a force on the torso and non-zero controls.
fn quadruped_state() -> (moreau::Model, DVector<f64>, Vec<f64>) {
    let m = model("quadruped");
    let mut d = moreau::Data::new(&m);
    d.reset_keyframe(&m, m.key_id("stand").unwrap()).unwrap();
    let torso = m.body_id("torso").unwrap();
    let u: Vec<f64> = (0..m.nu).map(|i| 0.2 * ((i as f64) * 1.3).sin()).collect();
    d.ctrl.copy_from_slice(&u);
    for _ in 0..60 {
        d.xfrc_applied[torso] = nalgebra::Vector6::new(3.0, -2.0, 0.0, 1.5, 2.0, 0.8);
        moreau::step(&m, &mut d);
    }
    d.xfrc_applied[torso].fill(0.0);
    assert!(
        d.contact.len() >= 3,
        "contact state expected, {} contacts",
        d.contact.len()
    );
    (m, state_of(&d), u)
}

/// An iLQR problem: diagonal tangent-space state weights `w` (`2nv + na`), terminal weights
/// `qf · w`, control weight `r · I`, `horizon` steps of `dt` from zero controls within
/// `ctrlrange`, tolerance `tol`.
struct Plan {
    xref: DVector<f64>,
    w: Vec<f64>,
    qf: f64,
    r: f64,
    horizon: usize,
    tol: f64,
    dt: f64,
}

/// Solves `p` from `x0` (at most 60 iterations); asserts that iLQR converged with a
/// monotonically decreasing cost. Returns the result and the tangent errors `x ⊖ xref` of the
/// initial and the final state.
fn solve(
    sys: &mut MoreauSystem,
    m: &moreau::Model,
    x0: &DVector<f64>,
    p: Plan,
) -> (IlqrResult, Vec<f64>, Vec<f64>) {
    let q = DMatrix::from_diagonal(&DVector::from_vec(p.w));
    let cost = QuadraticCost {
        qf: &q * p.qf,
        q,
        r: DMatrix::identity(m.nu, m.nu) * p.r,
        xref: p.xref.clone(),
        dt: p.dt,
    };
    let opt = IlqrOptions {
        max_iter: 60,
        tol: p.tol,
        bounds: Some(ctrl_bounds(m)),
        ..IlqrOptions::default()
    };
    let u0 = vec![DVector::zeros(m.nu); p.horizon];
    let res = ilqr(sys, &cost, x0, u0, &opt, |_, _| {}).unwrap();
    let h = &res.cost_history;
    assert!(
        res.converged,
        "iLQR did not converge in {} iterations",
        res.iterations
    );
    assert!(h.windows(2).all(|p| p[1] <= p[0]), "cost increased: {h:?}");
    let mut e0 = vec![0.0; sys.ndx()];
    sys.diff(p.xref.as_slice(), x0.as_slice(), &mut e0);
    let mut e = vec![0.0; sys.ndx()];
    let xt = res.xs.last().unwrap();
    sys.diff(p.xref.as_slice(), xt.as_slice(), &mut e);
    (res, e0, e)
}

/// `integrate(x, diff(x, y)) = y` and `diff(x, integrate(x, δ)) = δ` on the free-joint models
/// (the quaternion parts by `mj_integratePos`/`mj_differentiatePos`), to round-off.
#[test]
fn tangent_space_is_consistent() {
    let mut seed = 7u64;
    for name in ["quadruped", "free_body"] {
        let m = model(name);
        let sys = MoreauSystem::new(m.clone()).unwrap();
        assert_eq!((sys.nx(), sys.ndx()), (m.nq + m.nv + m.na, 2 * m.nv + m.na));
        let mut d = moreau::Data::new(&m);
        d.reset_keyframe(&m, 0).unwrap();
        let x = state_of(&d);
        for _ in 0..10 {
            let dx: Vec<f64> = (0..sys.ndx()).map(|_| 0.7 * lcg(&mut seed)).collect();
            let mut y = vec![0.0; sys.nx()];
            sys.integrate(x.as_slice(), &dx, &mut y);
            // the quaternions stay unit
            for j in 0..m.njnt {
                if m.jnt_type[j] == moreau::model::JointType::Free {
                    let a = m.jnt_qposadr[j] + 3;
                    let n: f64 = y[a..a + 4].iter().map(|v| v * v).sum();
                    assert!((n - 1.0).abs() < 1e-14, "{name}: |q|² = {n}");
                }
            }
            let mut back = vec![0.0; sys.ndx()];
            sys.diff(x.as_slice(), &y, &mut back);
            let mut w = 0.0;
            cmp(
                &format!("{name} diff(integrate)"),
                &back,
                &dx,
                1e-13,
                &mut w,
            );
            let mut z = vec![0.0; sys.nx()];
            sys.integrate(x.as_slice(), &back, &mut z);
            cmp(&format!("{name} integrate(diff)"), &z, &y, 1e-14, &mut w);
        }
    }
}

/// The system's `A`, `B` at free_body's reference states equal MuJoCo 4.0.0's centered
/// `mjd_transitionFD` (eps 1e-6). FD against FD of the same dynamics: the tolerance 1e-6 on
/// `|a − b| / max(1, |b|)` is that of derivatives/tests/derivatives/fd_oracle.rs (far below the truncation
/// error, the two difference nearly identical steps).
#[test]
fn system_jacobians_match_mujoco_transition_fd_on_free_body() {
    let r = reference("fd_cases.json");
    let mut n = 0;
    for c in r["cases"].as_array().unwrap() {
        if c["model"] != "models/free_body.xml" {
            continue;
        }
        let mut m = model("free_body");
        if c["integrator"] == "implicitfast" {
            m.opt.integrator = Integrator::ImplicitFast;
        }
        let st = &c["state"];
        let x: Vec<f64> = [fv(&st["qpos"]), fv(&st["qvel"]), fv(&st["act"])].concat();
        let u = fv(&st["ctrl"]);
        let mut sys = MoreauSystem::new(m.clone()).unwrap();
        let nd = sys.ndx();
        let (mut a, mut b) = (DMatrix::zeros(nd, nd), DMatrix::zeros(nd, m.nu));
        sys.jacobians(&x, &u, &mut a, &mut b).unwrap();
        let ta = &c["transition"]["centered"];
        let want_a: Vec<f64> = fv(&ta["A"]);
        let want_b: Vec<f64> = fv(&ta["B"]);
        // JSON rows are outputs: compare row-major
        let got_a: Vec<f64> = (0..nd)
            .flat_map(|i| (0..nd).map(move |j| (i, j)))
            .map(|(i, j)| a[(i, j)])
            .collect();
        let got_b: Vec<f64> = (0..nd)
            .flat_map(|i| (0..m.nu).map(move |j| (i, j)))
            .map(|(i, j)| b[(i, j)])
            .collect();
        let mut w = 0.0;
        cmp("A", &got_a, &want_a, 1e-6, &mut w);
        cmp("B", &got_b, &want_b, 1e-6, &mut w);
        n += 1;
    }
    assert_eq!(n, 6, "free_body cases in fd_cases.json");
}

/// Quadruped at a contact state (free joint, 4 soft foot contacts): the system's FD Jacobians
/// (`mjd_transitionFD`), its analytic ones (IFT, `moreau_derivatives::transition`) and central differences
/// of whole steps through `x ⊕ ±ε e_j` agree. Tolerances: FD against FD 1e-4 relative
/// (contacts: the iterative solver's 1e-8 tolerance amplified by 1/eps, as in
/// derivatives/tests/derivatives/fd_oracle.rs); analytic against centered FD 1e-4 relative (FD truncation
/// O(eps²) and the solver noise above).
#[test]
fn quadruped_jacobians_three_ways() {
    let (m, x, u) = quadruped_state();
    let nd = 2 * m.nv + m.na;
    let jac = |sys: &mut MoreauSystem| {
        let (mut a, mut b) = (DMatrix::zeros(nd, nd), DMatrix::zeros(nd, m.nu));
        sys.jacobians(x.as_slice(), &u, &mut a, &mut b).unwrap();
        (a, b)
    };
    let mut fd = MoreauSystem::new(m.clone()).unwrap();
    assert_eq!(fd.linearization(), Linearization::Fd);
    let (a_fd, b_fd) = jac(&mut fd);
    let mut an = MoreauSystem::new(m.clone()).unwrap().analytic().unwrap();
    assert_eq!(an.linearization(), Linearization::Analytic);
    let (a_an, b_an) = jac(&mut an);
    let mut gen = MoreauSystem::new(m.clone()).unwrap();
    let (mut a_gen, mut b_gen) = (DMatrix::zeros(nd, nd), DMatrix::zeros(nd, m.nu));
    central_jacobians(&mut gen, x.as_slice(), &u, &mut a_gen, &mut b_gen, 1e-6).unwrap();
    let flat = |a: &DMatrix<f64>| a.iter().copied().collect::<Vec<_>>();
    let mut w = 0.0;
    cmp("A generic vs FD", &flat(&a_gen), &flat(&a_fd), 1e-5, &mut w);
    cmp("B generic vs FD", &flat(&b_gen), &flat(&b_fd), 1e-5, &mut w);
    cmp("A analytic vs FD", &flat(&a_an), &flat(&a_fd), 1e-5, &mut w);
    cmp("B analytic vs FD", &flat(&b_an), &flat(&b_fd), 1e-5, &mut w);
    println!("quadruped: worst relative difference {w:.2e}");
    // the orientation block is not the identity-free Euclidean one: rotations couple
    let rot = a_fd.view((3, 3), (3, 3)).clone_owned();
    assert!((rot - DMatrix::identity(3, 3)).amax() > 1e-6);
}

/// iLQR with a tangent-space cost turns free_body's floating `base` about y by swinging its
/// hinged flap (angular momentum is conserved, only the flap's reaction turns the base): the
/// cost decreases monotonically, iLQR converges, and the final orientation is within 2% of the
/// requested 0.3 rad turn.
#[test]
fn ilqr_turns_a_floating_base() {
    let m = model("free_body");
    let mut d = moreau::Data::new(&m);
    d.qpos.copy_from_slice(&m.qpos0);
    let x0 = state_of(&d);
    let mut sys = MoreauSystem::new(m.clone()).unwrap();
    let (nq, nv) = (m.nq, m.nv);
    let base = m.jnt_qposadr[m.joint_id("base").unwrap()];
    let bdof = m.jnt_dofadr[m.joint_id("base").unwrap()];
    // target: base turned by 0.3 rad about its y axis
    let mut xref = x0.clone();
    let (s, c) = (0.15f64.sin(), 0.15f64.cos());
    let q = [x0[base + 3], x0[base + 4], x0[base + 5], x0[base + 6]];
    let t = moreau::pipeline::quat_mul(&q, &[c, 0.0, s, 0.0]);
    xref.rows_mut(base + 3, 4).copy_from_slice(&t);
    let mut w = vec![0.0; 2 * nv];
    for k in 3..6 {
        w[bdof + k] = 10.0;
        w[nv + bdof + k] = 1.0;
    }
    w[nv - 1] = 0.01; // flap angle
    w[2 * nv - 1] = 0.01;
    let plan = Plan {
        xref,
        w,
        qf: 50.0,
        r: 1e-3,
        horizon: 300,
        tol: 1e-8,
        dt: m.opt.timestep,
    };
    let (res, e0, e) = solve(&mut sys, &m, &x0, plan);
    let h = &res.cost_history;
    let err = (e[bdof + 3].powi(2) + e[bdof + 4].powi(2) + e[bdof + 5].powi(2)).sqrt();
    let err0 = (e0[bdof + 3].powi(2) + e0[bdof + 4].powi(2) + e0[bdof + 5].powi(2)).sqrt();
    println!(
        "free_body: {} iterations, cost {:.4e} -> {:.4e}, orientation error {err0:.3} -> {err:.2e} rad",
        res.iterations, h[0], h[h.len() - 1]
    );
    assert!((err0 - 0.3).abs() < 1e-12);
    assert!(err < 0.02 * err0, "orientation error {err} of {err0}");
    let _ = nq;
}

/// iLQR with analytic transition Jacobians on the quadruped (free torso, contacts) brings a
/// tilted, moving torso back towards the stance over a 0.2 s horizon: it converges (no descent
/// left at maximal regularization or a relative decrease below 1e-6), the cost decreases
/// monotonically by more than half, and the final tilt is below its initial value.
#[test]
fn ilqr_converges_on_quadruped() {
    let (m, x0, _) = quadruped_state();
    let mut pm = m.clone();
    pm.opt.timestep = 0.01;
    let mut sys = MoreauSystem::new(pm.clone()).unwrap().analytic().unwrap();
    let mut d = moreau::Data::new(&m);
    d.reset_keyframe(&m, m.key_id("stand").unwrap()).unwrap();
    d.qvel.fill(0.0);
    let xref = state_of(&d);
    let nv = m.nv;
    let mut w = vec![0.01; 2 * nv];
    w[..6].copy_from_slice(&[0.0, 0.0, 100.0, 30.0, 30.0, 10.0]);
    for v in &mut w[nv..nv + 6] {
        *v = 1.0;
    }
    let plan = Plan {
        xref,
        w,
        qf: 0.05,
        r: 0.1,
        horizon: 20,
        tol: 1e-6,
        dt: pm.opt.timestep,
    };
    let (res, e0, e) = solve(&mut sys, &m, &x0, plan);
    let h = &res.cost_history;
    println!("quadruped iLQR: {} iterations, cost {h:?}", res.iterations);
    assert!(h[h.len() - 1] < 0.5 * h[0], "cost {h:?}");
    let tilt = |e: &[f64]| (e[3] * e[3] + e[4] * e[4]).sqrt();
    assert!(tilt(&e) < tilt(&e0), "tilt {} -> {}", tilt(&e0), tilt(&e));
}

/// `DiagonalCost` gives both planners the same objective: its allocation-free stage cost on a
/// `Data` (per-joint `mju_subQuat`) equals the iLQR `QuadraticCost` it builds (through
/// `mj_differentiatePos` on `MoreauSystem`'s tangent space) on random quadruped states.
#[test]
fn diagonal_cost_is_the_same_for_both_planners() {
    use moreau_optim::sampling::RolloutCost;
    use moreau_optim::statecost::DiagonalCost;
    let (m, x0, _) = quadruped_state();
    let sys = MoreauSystem::new(m.clone()).unwrap();
    let mut seed = 3u64;
    let mut c = DiagonalCost::new(&m, x0.as_slice().to_vec()).unwrap();
    c.q.iter_mut().for_each(|w| *w = 1.0 + lcg(&mut seed).abs());
    c.r.iter_mut().for_each(|w| *w = 0.1 + lcg(&mut seed).abs());
    assert!(DiagonalCost::new(&m, vec![0.0; 3]).is_err());
    let dt = 0.01;
    let quad = c.quadratic(dt);
    let mut d = moreau::Data::new(&m);
    for _ in 0..5 {
        let dx: Vec<f64> = (0..sys.ndx()).map(|_| 0.5 * lcg(&mut seed)).collect();
        let mut x = vec![0.0; sys.nx()];
        sys.integrate(x0.as_slice(), &dx, &mut x);
        let u: Vec<f64> = (0..m.nu).map(|_| lcg(&mut seed)).collect();
        d.qpos.copy_from_slice(&x[..m.nq]);
        d.qvel.copy_from_slice(&x[m.nq..m.nq + m.nv]);
        d.ctrl.copy_from_slice(&u);
        let xs = [DVector::from_vec(x.clone()), DVector::from_vec(x)];
        let us = [DVector::from_vec(u)];
        // total = dt · stage + terminal (zero here)
        let want = quad.total_on(&sys, &xs, &us) / dt;
        let got = c.stage(&m, &d);
        assert!((got - want).abs() <= 1e-12 * want, "{got} vs {want}");
    }
}
