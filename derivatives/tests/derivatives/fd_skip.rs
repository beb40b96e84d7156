//! The stage skipping of [`FdWorkspace::transition`] changes no bit of the result: at contact
//! states, every column of `A`, `B` (and `C`, `D` with sensors) equals the forward difference of
//! full steps (`step_skip(…, Skip::None)`, nothing reused: position stage, velocity stage and
//! Euler's damped-mass factor recomputed) from the restored state and warm start. Covers Euler's
//! factor reuse on velocity perturbations (dof damping) and its absence under polynomial damping,
//! where the factor depends on `qvel`, and the solver's islands and position-only problem data
//! kept across skipped position stages (`moreau::pipeline::solve_skip`), with one island and with
//! several.

use crate::common::contact_state;
use moreau::pipeline::{step_skip, Skip};
use moreau::{differentiate_pos, integrate_pos, Data, Model, Vfs};
use moreau_derivatives::fd::FdWorkspace;
use nalgebra::DMatrix;

const EPS: f64 = 1e-6;

fn root() -> String {
    format!("{}/..", env!("CARGO_MANIFEST_DIR"))
}

/// Forward-difference transition Jacobians from full steps only (MuJoCo's perturbations and
/// input ordering, ctrl inside its range assumed), each from the restored state and warm start.
#[allow(non_snake_case)]
fn full_step_jacobians(m: &Model, d0: &Data<f64>) -> [DMatrix<f64>; 4] {
    let (nq, nv, na, nu, ns) = (m.nq, m.nv, m.na, m.nu, m.nsensordata);
    let nx = 2 * nv + na;
    let run = |prep: &dyn Fn(&mut Data<f64>)| -> (Vec<f64>, Vec<f64>) {
        let mut d = d0.clone();
        prep(&mut d);
        step_skip(m, &mut d, Skip::None, false);
        let y = [&d.qpos[..], &d.qvel[..], &d.act[..]].concat();
        (y, d.sensordata.clone())
    };
    let (y0, s0) = run(&|_| {});
    let mut out = [
        DMatrix::zeros(nx, nx),
        DMatrix::zeros(nx, nu),
        DMatrix::zeros(ns, nx),
        DMatrix::zeros(ns, nu),
    ];
    let ih = 1.0 / EPS;
    let mut column = |x: usize, ucol: bool, (y, s): (Vec<f64>, Vec<f64>)| {
        let mut col = vec![0.0; nx];
        differentiate_pos(m, &mut col[..nv], EPS, &y0[..nq], &y[..nq]);
        for k in 0..nv + na {
            col[nv + k] = (y[nq + k] - y0[nq + k]) * ih;
        }
        let sc: Vec<f64> = s.iter().zip(&s0).map(|(b, a)| (b - a) * ih).collect();
        let (a, c) = out.split_at_mut(2);
        let (st, se) = if ucol {
            (&mut a[1], &mut c[1])
        } else {
            (&mut a[0], &mut c[0])
        };
        st.column_mut(x).copy_from_slice(&col);
        se.column_mut(x).copy_from_slice(&sc);
    };
    for i in 0..nu {
        column(i, true, run(&|d| d.ctrl[i] += EPS));
    }
    for i in 0..na {
        column(2 * nv + i, false, run(&|d| d.act[i] += EPS));
    }
    for i in 0..nv {
        column(nv + i, false, run(&|d| d.qvel[i] += EPS));
    }
    for i in 0..nv {
        let mut dq = vec![0.0; nv];
        dq[i] = 1.0;
        column(i, false, run(&|d| integrate_pos(m, &mut d.qpos, &dq, EPS)));
    }
    out
}

fn check(name: &str, m: &Model, d0: &Data<f64>) {
    let mut d = d0.clone();
    let mut ws = FdWorkspace::new(m);
    let j = ws.transition(m, &mut d, EPS, false);
    let [a, b, c, dd] = full_step_jacobians(m, d0);
    // bit for bit: the reused stage results are the ones the full step recomputes
    assert_eq!(j.A, a, "{name}: A");
    assert_eq!(j.B, b, "{name}: B");
    assert_eq!(j.C, c, "{name}: C");
    assert_eq!(j.D, dd, "{name}: D");
    assert!(a.iter().any(|x| *x != 0.0) && (b.is_empty() || b.iter().any(|x| *x != 0.0)));
}

#[test]
fn skipped_stages_equal_full_steps_at_contact() {
    // planar hopper: dof damping (Euler's factor reused on velocity perturbations), touch
    // sensors (C, D)
    let path = format!("{}/models/hopper.xml", root());
    let m = moreau::load(&path).unwrap();
    assert!(m.nsensordata > 0 && (0..m.nv).any(|i| m.dof_damping_eff(i).0 > 0.0));
    check("hopper", &m, &contact_state(&m, 0.2));

    // the same with polynomial dof damping: the factor depends on qvel and is recomputed
    let xml = std::fs::read_to_string(&path)
        .unwrap()
        .replace("damping=\".05\"", "damping=\".05 .03 .02\"");
    let m = moreau::load_from_str(&xml, &Vfs::default()).unwrap();
    assert!((0..m.nv).any(|i| m.dof_damping_eff(i).1 != [0.0; 2]));
    check("hopper, dampingpoly", &m, &contact_state(&m, 0.2));

    // humanoid: free joint (tangent perturbations), contacts, 21 actuators
    let m = moreau::load(format!("{}/models/humanoid.xml", root())).unwrap();
    check("humanoid", &m, &contact_state(&m, 0.0));

    // several constraint islands (the solver keeps the islands, not the global problem, across
    // skipped position stages): two humanoids; islands.xml (contacts, a limit with friction
    // loss, a connect equality, dofs in no island)
    let m = moreau::load(format!("{}/models/humanoids.xml", root())).unwrap();
    check("humanoids", &m, &contact_state(&m, 0.0));
    let m = moreau::load(format!("{}/models/islands.xml", root())).unwrap();
    let d = contact_state(&m, 0.0);
    let mut d1 = d.clone();
    moreau::forward(&m, &mut d1);
    assert!(d1.nisland >= 3);
    check("islands", &m, &d);
}
