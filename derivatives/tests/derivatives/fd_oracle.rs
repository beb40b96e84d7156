//! Finite-difference Jacobians against MuJoCo 4.0.0 (`mjd_transitionFD`, `mjd_inverseFD`;
//! tests/reference/fd_cases.json from tools/reference/gen_fd_cases.py), against the exact
//! discrete-time matrices of a linear system (the no-allocation check is in fd_no_alloc.rs).
//!
//! FD against FD of the same dynamics: the two sides difference (nearly) identical steps, so they
//! agree far better than the FD truncation error; the tolerance is 1e-6 on
//! `|a − b| / max(1, |b|)`, the worst errors reached are printed.

use common::{
    fd_case_model as load, fd_case_state as set_state, fd_cases as cases, fv, json_mat as mat,
};
use moreau::model::Integrator;
use moreau::{Data, Model};
use moreau_derivatives::fd::FdWorkspace;
use nalgebra::DMatrix;
use serde_json::Value;

use crate::common;

const TOL: f64 = 1e-6;
/// Contact cases difference steps through the iterative constraint solver (tolerance 1e-8):
/// tiny differences in the solver's path are amplified by 1/eps.
const TOL_CONTACT: f64 = 1e-4;

fn iv(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

/// Worst `|a − b| / max(1, |b|)`.
fn err(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    assert_eq!(a.shape(), b.shape());
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y).abs() / y.abs().max(1.0))
        .fold(0.0, f64::max)
}

/// `∂M/∂q_i` rows as dense `nv × nv` blocks from moreau's qM layout (`dof_Madr`, ancestors).
fn dense_from_qm(m: &Model, row: &[f64]) -> DMatrix<f64> {
    let mut out = DMatrix::zeros(m.nv, m.nv);
    for i in 0..m.nv {
        let mut adr = m.dof_Madr[i];
        let mut j = i as i32;
        while j >= 0 {
            let ju = j as usize;
            out[(i, ju)] = row[adr];
            out[(ju, i)] = row[adr];
            adr += 1;
            j = m.dof_parentid[ju];
        }
    }
    out
}

/// The same from MuJoCo 4.0.0's CSR `d.M` layout.
fn dense_from_csr(nv: usize, case: &Value, row: &[f64]) -> DMatrix<f64> {
    let (nnz, adr, col) = (
        iv(&case["M_rownnz"]),
        iv(&case["M_rowadr"]),
        iv(&case["M_colind"]),
    );
    let mut out = DMatrix::zeros(nv, nv);
    for i in 0..nv {
        for k in adr[i]..adr[i] + nnz[i] {
            out[(i, col[k])] = row[k];
            out[(col[k], i)] = row[k];
        }
    }
    out
}

#[derive(Default)]
struct Worst {
    transition_fwd: f64,
    transition_ctr: f64,
    contact: f64,
    python_rk4: f64,
    inverse: f64,
    dmdq: f64,
}

#[test]
fn fd_matches_mujoco() {
    let all = cases();
    let mut worst = Worst::default();
    let mut skipped = Vec::new();
    let mut n = 0;
    for case in all["cases"].as_array().unwrap() {
        let m = load(case);
        let name = format!(
            "{} {} state {}",
            case["model"].as_str().unwrap(),
            case["integrator"].as_str().unwrap_or("(own)"),
            case["state_index"]
        );
        let mut d = Data::<f64>::new(&m);
        let eps = case["eps"].as_f64().unwrap();
        let st = &case["state"];
        if case["contact"].as_bool().unwrap() {
            set_state(&m, &mut d, st);
            moreau::forward(&m, &mut d);
            let want = case["nefc"].as_u64().unwrap() as usize;
            if d.nefc != want {
                skipped.push(format!(
                    "{name}: moreau's forward has {} constraint rows, MuJoCo {want} \
                     (the contact pipeline disagrees with the reference)",
                    d.nefc
                ));
                continue;
            }
        }
        let mut ws = FdWorkspace::new(&m);
        let (nx, nu, ns) = (2 * m.nv + m.na, m.nu, m.nsensordata);
        let python = case["method"].as_str() == Some("python_rk4");
        let contact = case["contact"].as_bool().unwrap();
        let tol = if contact { TOL_CONTACT } else { TOL };
        for (key, centered) in [("forward", false), ("centered", true)] {
            set_state(&m, &mut d, st);
            let t = ws.transition(&m, &mut d, eps, centered);
            let want = &case["transition"][key];
            for (k, got, nr, nc) in [
                ("A", &t.A, nx, nx),
                ("B", &t.B, nx, nu),
                ("C", &t.C, ns, nx),
                ("D", &t.D, ns, nu),
            ] {
                let e = err(got, &mat(&want[k], nr, nc));
                let w = if contact {
                    &mut worst.contact
                } else if python {
                    &mut worst.python_rk4
                } else if centered {
                    &mut worst.transition_ctr
                } else {
                    &mut worst.transition_fwd
                };
                *w = w.max(e);
                if e > tol {
                    let w = mat(&want[k], nr, nc);
                    let (mut bi, mut be) = ((0, 0), 0.0);
                    for i in 0..nr {
                        for j in 0..nc {
                            let x = (got[(i, j)] - w[(i, j)]).abs() / w[(i, j)].abs().max(1.0);
                            if x > be {
                                (bi, be) = ((i, j), x);
                            }
                        }
                    }
                    eprintln!(
                        "{name} {key} {k}: worst entry {bi:?}: {} vs {}",
                        got[bi], w[bi]
                    );
                }
                assert!(
                    e <= tol,
                    "{name} {key} {k}: rel err {e:.2e}\n got {got:.6}\n want {:.6}",
                    mat(&want[k], nr, nc)
                );
            }
            // the call restores the state
            assert_eq!(d.qpos, fv(&st["qpos"]), "{name}: qpos not restored");
            assert_eq!(d.ctrl, fv(&st["ctrl"]), "{name}: ctrl not restored");
        }
        if let Some(inv) = case.get("inverse") {
            let qacc = fv(&inv["qacc"]);
            for (key, flg) in [("flg0", false), ("flg1", true)] {
                set_state(&m, &mut d, st);
                moreau::forward(&m, &mut d);
                d.qacc.copy_from_slice(&qacc);
                let j = ws.inverse(&m, &mut d, eps, flg, false);
                let want = &inv[key];
                let nv = m.nv;
                for (k, got, nc) in [
                    ("DfDq", &j.DfDq, nv),
                    ("DfDv", &j.DfDv, nv),
                    ("DfDa", &j.DfDa, nv),
                    ("DsDq", &j.DsDq, ns),
                    ("DsDv", &j.DsDv, ns),
                    ("DsDa", &j.DsDa, ns),
                ] {
                    let e = err(got, &mat(&want[k], nv, nc));
                    if contact {
                        worst.contact = worst.contact.max(e);
                    } else {
                        worst.inverse = worst.inverse.max(e);
                    }
                    assert!(
                        e <= tol,
                        "{name} inverse {key} {k}: rel err {e:.2e}\n got {got:.6}\n want {:.6}",
                        mat(&want[k], nv, nc)
                    );
                }
                let dm = want["DmDq"].as_array().unwrap();
                for (i, dmi) in dm.iter().enumerate() {
                    let ours: Vec<f64> = j.DmDq.row(i).iter().copied().collect();
                    let e = err(
                        &dense_from_qm(&m, &ours),
                        &dense_from_csr(nv, case, &fv(dmi)),
                    );
                    worst.dmdq = worst.dmdq.max(e);
                    assert!(
                        e <= TOL,
                        "{name} inverse {key} DmDq row {i}: rel err {e:.2e}"
                    );
                }
            }
        }
        n += 1;
    }
    eprintln!(
        "fd_oracle: {n} cases; worst rel err: transition forward {:.1e}, centered {:.1e}, \
         RK4 (vs Python FD of mj_step) {:.1e}, inverse {:.1e}, DmDq {:.1e}, contact {:.1e}",
        worst.transition_fwd,
        worst.transition_ctr,
        worst.python_rk4,
        worst.inverse,
        worst.dmdq,
        worst.contact
    );
    for s in &skipped {
        eprintln!("fd_oracle: SKIPPED {s}");
    }
    assert!(n > 40, "only {n} cases ran");
}

/// A damped, sprung slide joint without gravity driven by a motor is linear:
/// `m a = −k q − b v + g u`. Euler with implicit damping steps
/// `a = (−k q − b v + g u)/(m + h b)`, `v' = v + h a`, `q' = q + h v'`; RK4 steps
/// `x' = P(hF) x + h Q(hF) G u` with the Taylor polynomials `P = Σ_{k≤4} (hF)^k/k!`,
/// `Q = Σ_{k≤3} (hF)^k/(k+1)!`. Implicit(fast) equal Euler here (`D = −b`).
#[test]
fn linear_system_matches_discrete_matrices() {
    let (mass, k, b, g, h) = (2.0, 3.0, 0.5, 1.5, 0.01);
    let xml = format!(
        r#"<mujoco><option timestep="{h}" gravity="0 0 0"/>
        <worldbody><body><joint name="s" type="slide" axis="1 0 0" stiffness="{k}" damping="{b}"/>
        <inertial pos="0 0 0" mass="{mass}" diaginertia="1 1 1"/></body></worldbody>
        <actuator><motor joint="s" gear="{g}"/></actuator></mujoco>"#
    );
    let mut m = moreau::load_from_str(&xml, &moreau::Vfs::default()).unwrap();
    let mut ws = FdWorkspace::new(&m);
    for integ in [
        Integrator::Euler,
        Integrator::ImplicitFast,
        Integrator::Implicit,
        Integrator::Rk4,
    ] {
        m.opt.integrator = integ;
        let mut d = Data::<f64>::new(&m);
        d.qpos[0] = 0.3;
        d.qvel[0] = -0.7;
        d.ctrl[0] = 0.2;
        let (a_want, b_want) = if integ == Integrator::Rk4 {
            let f = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -k / mass, -b / mass]);
            let gm = DMatrix::from_row_slice(2, 1, &[0.0, g / mass]);
            let hf = &f * h;
            let i2 = DMatrix::<f64>::identity(2, 2);
            let hf2 = &hf * &hf;
            let hf3 = &hf2 * &hf;
            let hf4 = &hf3 * &hf;
            let p = &i2 + &hf + &hf2 / 2.0 + &hf3 / 6.0 + &hf4 / 24.0;
            let q = &i2 + &hf / 2.0 + &hf2 / 6.0 + &hf3 / 24.0;
            (p, q * gm * h)
        } else {
            let den = mass + h * b;
            let (aq, av, au) = (-k / den, -b / den, g / den);
            let a = DMatrix::from_row_slice(
                2,
                2,
                &[1.0 + h * h * aq, h * (1.0 + h * av), h * aq, 1.0 + h * av],
            );
            (a, DMatrix::from_row_slice(2, 1, &[h * h * au, h * au]))
        };
        for centered in [false, true] {
            let t = ws.transition(&m, &mut d, 1e-6, centered);
            let ea = (&t.A - &a_want).abs().max();
            let eb = (&t.B - &b_want).abs().max();
            eprintln!("linear {integ:?} centered {centered}: |ΔA| {ea:.1e} |ΔB| {eb:.1e}");
            assert!(ea < 1e-8 && eb < 1e-8, "{integ:?}: A {} B {}", t.A, t.B);
        }
    }
}
