//! Contact parameters (the sliding friction and both solref numbers of the Go1's foot) by
//! simulation-error identification over several logs ([`sysid::fit_rollout_logs_with`]) on
//! MuJoCo 4.0.0's noisy drop, slide and tilted-push logs of the foot, written with
//! `mujoco.sysid`'s own estimate on the same data by `tools/robots/sysid_contact.py
//! --write-reference --quick` into `tests/reference/sysid_contact_log.json`.

use moreau_optim::sysid::{self, Param, StateLog};
use moreau_optim::threads::Threads;
use serde_json::Value;

fn root() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/..").to_string()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn rows(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().expect("array").iter().map(numbers).collect()
}

/// The reference: the model, the logs, the parameters (start at Menagerie's values, bounds),
/// the truth, `mujoco.sysid`'s estimate with its 95% half-widths and its cost at the truth.
#[allow(clippy::type_complexity)]
fn reference() -> (
    moreau::Model,
    Vec<StateLog>,
    Vec<Param>,
    Vec<f64>,
    Vec<[f64; 2]>,
    Vec<f64>,
    (Vec<f64>, Vec<f64>, f64),
) {
    let path = format!("{}/tests/reference/sysid_contact_log.json", root());
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("reference")).expect("json");
    let m = moreau::load(format!("{}/{}", root(), v["model"].as_str().unwrap())).expect("model");
    let logs = v["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| StateLog {
            qpos0: numbers(&l["qpos0"]),
            qvel0: numbers(&l["qvel0"]),
            ctrl: rows(&l["ctrl"]),
            measured: rows(&l["sensor_qpos"])
                .into_iter()
                .zip(rows(&l["sensor_qvel"]))
                .map(|(q, v)| q.into_iter().chain(v).collect())
                .collect(),
        })
        .collect();
    let foot = m.geom_name.iter().position(|g| g == "foot").unwrap();
    let (mut params, mut start, mut bounds) = (vec![], vec![], vec![]);
    for p in v["params"].as_array().unwrap() {
        params.push(match p["kind"].as_str().unwrap() {
            "friction" => Param::Friction { geom: foot },
            "solref_timeconst" => Param::SolrefTimeconst { geom: foot },
            "solref_dampratio" => Param::SolrefDampratio { geom: foot },
            k => panic!("kind {k}"),
        });
        start.push(p["start"].as_f64().unwrap());
        bounds.push([p["lo"].as_f64().unwrap(), p["hi"].as_f64().unwrap()]);
    }
    let mj = &v["mujoco_sysid"];
    (
        m,
        logs,
        params,
        start,
        bounds,
        numbers(&v["truth"]),
        (
            numbers(&mj["estimate"]),
            numbers(&mj["half_width"]),
            mj["truth_cost"].as_f64().unwrap(),
        ),
    )
}

/// From Menagerie's values (friction 0.8, solref 0.02 1) the fit recovers the truth (0.5,
/// 0.03, 0.6): every true value inside its 95% interval, each interval narrower than 25% of the
/// value (on this short log: 4%, 13% and 19%), moreau's estimate inside `mujoco.sysid`'s
/// interval on the same data and its half-widths within 2% of `mujoco.sysid`'s. The cost at
/// the truth is `mujoco.sysid`'s own to 1e-3 relative (moreau's rollouts of the true foot are
/// MuJoCo's: a signal that is noise only costs 1 with σ = 1e-4, and a rollout mismatch of
/// 1e-5 m in it would add about 0.01). The rollout Jacobian's analytic contact columns agree
/// with whole-rollout differences to 1%.
#[test]
fn foot_friction_and_solref_from_drops_and_slides() {
    let (m, logs, params, start, bounds, truth, (mj_x, mj_half, mj_truth_cost)) = reference();
    let threads = Threads::new(2).unwrap();
    // the cost at the truth: the noise's, as MuJoCo's rollouts give it
    let at_truth: f64 = logs
        .iter()
        .map(|l| {
            0.5 * sysid::rollout_residual(&m, &params, l, &truth)
                .unwrap()
                .norm_squared()
        })
        .sum();
    assert!(
        (at_truth - mj_truth_cost).abs() <= 1e-3 * mj_truth_cost,
        "cost at the truth {at_truth}, mujoco.sysid's {mj_truth_cost}"
    );
    // the Jacobian at the start: sensitivities (analytic contact columns) vs whole rollouts
    let (_, js) = sysid::rollout_jacobian(
        &m,
        &params,
        &logs[0],
        &start,
        &bounds,
        sysid::RolloutJacobian::Sensitivity,
    )
    .unwrap();
    let (_, jf) = sysid::rollout_jacobian(
        &m,
        &params,
        &logs[0],
        &start,
        &bounds,
        sysid::RolloutJacobian::FiniteDifference,
    )
    .unwrap();
    for (j, p) in params.iter().enumerate() {
        let e = (js.column(j) - jf.column(j)).amax() / jf.column(j).amax();
        assert!(e < 1e-2, "{p:?}: column error {e:.2e}");
    }
    let fit = sysid::fit_rollout_logs_with(
        &threads,
        &m,
        &params,
        &logs,
        &start,
        &bounds,
        50,
        sysid::RolloutJacobian::Sensitivity,
        |_, _| {},
    )
    .unwrap();
    for i in 0..params.len() {
        let (e, h, t) = (fit.estimate[i], fit.half_width[i], truth[i]);
        assert!((e - t).abs() <= h, "{:?}: {e} ± {h}, truth {t}", params[i]);
        assert!(h < 0.25 * t, "{:?}: interval ±{h} for {t}", params[i]);
        assert!(
            (h - mj_half[i]).abs() <= 0.02 * mj_half[i],
            "{:?}: half-width {h}, mujoco.sysid's {}",
            params[i],
            mj_half[i]
        );
        assert!(
            (e - mj_x[i]).abs() <= mj_half[i],
            "{:?}: moreau {e}, mujoco.sysid {} ± {}",
            params[i],
            mj_x[i],
            mj_half[i]
        );
    }
    assert!(fit.cost_history.last().unwrap() <= &(at_truth + 1e-9));
}

/// Contact parameters are checked: a geom out of range, a negative friction or a zero solref
/// are errors, not panics.
#[test]
fn contact_params_reject_bad_values() {
    let (m, ..) = reference();
    assert!(sysid::check(&m, Param::Friction { geom: m.ngeom }).is_err());
    let mut mm = m.clone();
    assert!(sysid::set(&mut mm, Param::Friction { geom: 1 }, -0.1).is_err());
    assert!(sysid::set(&mut mm, Param::SolrefTimeconst { geom: 1 }, 0.0).is_err());
    assert!(sysid::set(&mut mm, Param::SolrefDampratio { geom: 1 }, f64::NAN).is_err());
    sysid::set(&mut mm, Param::SolrefDampratio { geom: 1 }, 0.5).unwrap();
    assert_eq!(mm.geom_solref[1][1], 0.5);
}

/// The analytic one-step columns `∂x'/∂θ` of the foot's friction and solref (the implicit
/// function theorem through the pyramidal contact rows, [`sysid::step_param_jacobian`]) agree
/// with central differences of a step under the perturbed model (δ = 1e-6 relative, the
/// solver converged to 1e-14 so the differences are of the optimum, not of the iterates) to
/// 1e-5 of the column's largest entry, on every step in contact of MuJoCo's drop, slide and
/// push logs, rolled out at the truth. Both drops and slides are in it: sticking and sliding
/// edges, rows in and out of their active set.
#[test]
fn analytic_contact_columns_match_central_differences() {
    let (mut m, logs, params, _, _, truth, _) = reference();
    m.opt.tolerance = 1e-14;
    m.opt.iterations = 200;
    let m = sysid::model_with(&m, &params, &truth).unwrap();
    let (nv, n) = (m.nv, params.len());
    let mut d = moreau::Data::new(&m);
    let mut dp = moreau::Data::new(&m);
    let (mut checked, mut worst) = (0, 0.0f64);
    for log in &logs {
        d.qpos.copy_from_slice(&log.qpos0);
        d.qvel.copy_from_slice(&log.qvel0);
        d.qacc_warmstart.fill(0.0);
        for ctrl in &log.ctrl {
            d.ctrl.copy_from_slice(ctrl);
            let g = sysid::step_param_jacobian(&m, &params, &mut d)
                .unwrap()
                .expect("analytic columns");
            let in_contact = d.efc_force.iter().any(|&f| f != 0.0);
            if in_contact {
                for j in 0..n {
                    let delta = 1e-6 * truth[j];
                    let mut ends = Vec::new();
                    for s in [1.0, -1.0] {
                        let mut tp = truth.clone();
                        tp[j] += s * delta;
                        let mp = sysid::model_with(&m, &params, &tp).unwrap();
                        dp.qpos.copy_from_slice(&d.qpos);
                        dp.qvel.copy_from_slice(&d.qvel);
                        dp.qacc_warmstart.copy_from_slice(&d.qacc_warmstart);
                        dp.ctrl.copy_from_slice(&d.ctrl);
                        moreau::step(&mp, &mut dp);
                        ends.push((dp.qpos.clone(), dp.qvel.clone()));
                    }
                    let mut fd = vec![0.0; 2 * nv];
                    moreau::differentiate_pos(
                        &m,
                        &mut fd[..nv],
                        2.0 * delta,
                        &ends[1].0,
                        &ends[0].0,
                    );
                    for i in 0..nv {
                        fd[nv + i] = (ends[0].1[i] - ends[1].1[i]) / (2.0 * delta);
                    }
                    let scale = fd.iter().fold(0.0f64, |a, v| a.max(v.abs()));
                    let err = (0..2 * nv).fold(0.0f64, |a, i| a.max((g[(i, j)] - fd[i]).abs()));
                    let rel = err / scale.max(1e-12);
                    assert!(
                        rel < 1e-5,
                        "{:?}: analytic column off by {rel:.2e} of {scale:.3e}\nanalytic {:?}\ncentral {fd:?}",
                        params[j],
                        g.column(j).as_slice()
                    );
                    worst = worst.max(rel);
                }
                checked += 1;
            }
            moreau::step(&m, &mut d);
        }
    }
    println!("{checked} steps in contact, worst relative column error {worst:.2e}");
    assert!(checked > 100, "only {checked} steps in contact");
}

/// One step of `m` from the state, controls and warm start of `d` on dual numbers, with the
/// contact parameter `p` carried as a dual number from the geoms through the engine's own
/// mixing rule ([`moreau::pipeline::mix_friction_solref`]: the geom's friction or solref entry
/// seeded with derivative 1) into the constraint rows, the solver and the integrator. With
/// `converge`, the solver's `qacc` is then taken to the exact optimum by [`newton_polish`]
/// before the integrator. Returns `∂(qpos', qvel')/∂θ_p` (`2nv`, positions in tangent
/// coordinates: local angular velocity for quaternions, as `mj_integratePos`) and the number of
/// contacts.
fn dual_step_column(
    m: &moreau::Model,
    d: &moreau::Data,
    p: Param,
    converge: bool,
) -> (Vec<f64>, usize) {
    use moreau::model::JointType;
    use moreau::pipeline::{self as pl, Skip};
    use num_dual::Dual64;
    let (pg, slot) = match p {
        Param::Friction { geom } => (geom, 0),
        Param::SolrefTimeconst { geom } => (geom, 1),
        Param::SolrefDampratio { geom } => (geom, 2),
        _ => panic!("not a contact parameter: {p:?}"),
    };
    let seeded = |g: usize, k: usize, v: f64| Dual64::new(v, (g == pg && k == slot) as u8 as f64);
    let mut dd = moreau_derivatives::dual::lift(m, d);
    pl::fwd_position(m, &mut dd);
    for c in dd.contact.iter_mut() {
        let [g1, g2] = c.geom;
        // `override` and explicit pairs set the contact's parameters themselves (constants)
        let paired = (0..m.npair).any(|k| {
            let p = [m.pair_geom1[k], m.pair_geom2[k]];
            p == [g1, g2] || p == [g2, g1]
        });
        if paired || m.opt.enabled(moreau::model::enable::OVERRIDE) {
            continue;
        }
        let (fr, sr) = pl::mix_friction_solref(
            pl::geom_mix(m, g1, g2),
            [g1, g2],
            |g| {
                let f = m.geom_friction[g];
                [seeded(g, 0, f[0]), Dual64::from(f[1]), Dual64::from(f[2])]
            },
            |g| {
                let r = m.geom_solref[g];
                [seeded(g, 1, r[0]), seeded(g, 2, r[1])]
            },
        );
        for (a, b) in fr.iter().zip(&c.friction).chain(sr.iter().zip(&c.solref)) {
            // the collision's own mixing (in its geom order) to the last bit or two
            assert!((a.re - b.re).abs() <= 1e-15 * b.re.abs(), "{a} vs {b}");
        }
        (c.friction, c.solref) = (fr, sr);
    }
    // the rows again, now from the seeded parameters; then velocity, acceleration, solver
    pl::make_constraint(m, &mut dd);
    pl::forward_skip(m, &mut dd, Skip::Pos, true);
    if converge {
        newton_polish(m, &mut dd);
    }
    pl::integrate(m, &mut dd);
    let nv = m.nv;
    let mut col = vec![0.0; 2 * nv];
    for j in 0..m.njnt {
        let (qa, va) = (m.jnt_qposadr[j], m.jnt_dofadr[j]);
        // ω = 2 Im(q̄ ⊗ ∂q) for q' = q ⊗ exp(ω/2)
        let omega = |q: &[Dual64], out: &mut [f64]| {
            let (w, x, y, z) = (q[0].re, q[1].re, q[2].re, q[3].re);
            let (dw, dx, dy, dz) = (q[0].eps, q[1].eps, q[2].eps, q[3].eps);
            out[0] = 2.0 * (w * dx - x * dw - y * dz + z * dy);
            out[1] = 2.0 * (w * dy - y * dw - z * dx + x * dz);
            out[2] = 2.0 * (w * dz - z * dw - x * dy + y * dx);
        };
        match m.jnt_type[j] {
            JointType::Hinge | JointType::Slide => col[va] = dd.qpos[qa].eps,
            JointType::Ball => omega(&dd.qpos[qa..qa + 4], &mut col[va..va + 3]),
            JointType::Free => {
                for k in 0..3 {
                    col[va + k] = dd.qpos[qa + k].eps;
                }
                omega(&dd.qpos[qa + 3..qa + 7], &mut col[va + 3..va + 6]);
            }
        }
    }
    for i in 0..nv {
        col[nv + i] = dd.qvel[i].eps;
    }
    (col, dd.contact.len())
}

/// Three Newton steps on the reduced primal problem's optimality condition `g(qacc) = M qacc −
/// qfrc_smooth − Jᵀ f(J qacc − aref) = 0` (Computation "Reduced primal problem"; `f` the
/// engine's own force of each row and cone, [`moreau::pipeline::evaluate`], with its exact
/// Hessian `H = −∂f/∂jar`), `qacc −= (M + Jᵀ H J)⁻¹ g` on the value and the derivative part
/// alike (the matrix at the value part). The engine's Newton solver, like MuJoCo's, stops when
/// its exact line search no longer lowers the cost in floating point: on an elliptic cone's
/// middle zone that leaves `g` at about 1e-10 of `qacc`, a remainder that varies smoothly with
/// the parameters, so dual numbers (and central differences) of the engine's step carry its
/// derivative too. After these steps the derivative part satisfies `(M + JᵀHJ) ∂qacc = −∂g/∂θ`:
/// the derivative of the optimum, which the implicit function theorem gives.
fn newton_polish(m: &moreau::Model, dd: &mut moreau::Data<num_dual::Dual64>) {
    use moreau::data::{ConstraintState, ConstraintType};
    use moreau::pipeline as pl;
    use nalgebra::DMatrix;
    use num_dual::Dual64;
    let (nv, n) = (m.nv, dd.nefc);
    let z = Dual64::from(0.0);
    let mut mfull = vec![z; nv * nv];
    moreau::full_m(m, &dd.qM, &mut mfull);
    let mut jd = vec![z; n * nv];
    for r in 0..n {
        dd.efc_J_row(r, nv).expand(&mut jd[r * nv..(r + 1) * nv]);
    }
    let (mut jar, mut f) = (vec![z; n], vec![z; n]);
    let mut state = vec![ConstraintState::Satisfied; n];
    let mut cone_h = vec![z; dd.efc_cone.len() * pl::CONE_H];
    for _ in 0..3 {
        pl::efc_jar(nv, dd, &mut jar);
        pl::evaluate(
            &pl::Rows::of_data(dd),
            &jar,
            &mut f,
            &mut state,
            Some(&mut cone_h),
        );
        // g, and H of the rows (scalar rows in their quadratic zone, cones in theirs)
        let mut g = DMatrix::<f64>::zeros(nv, 2);
        for i in 0..nv {
            let mut gi = -dd.qfrc_smooth[i];
            for k in 0..nv {
                gi += mfull[i * nv + k] * dd.qacc[k];
            }
            for r in 0..n {
                gi -= jd[r * nv + i] * f[r];
            }
            (g[(i, 0)], g[(i, 1)]) = (gi.re, gi.eps);
        }
        let mut h = DMatrix::<f64>::zeros(n, n);
        let mut cones = dd.efc_cone.iter().enumerate().peekable();
        let mut r = 0;
        while r < n {
            while cones.peek().is_some_and(|(_, c)| c.adr < r) {
                cones.next();
            }
            let cone = cones
                .peek()
                .filter(|(_, c)| c.adr == r)
                .map(|&(ci, c)| (ci, c.dim));
            match cone {
                Some((ci, dim)) if dd.efc_type[r] == ConstraintType::ContactElliptic => {
                    for a in 0..dim {
                        for b in 0..dim {
                            h[(r + a, r + b)] = match state[r] {
                                ConstraintState::Cone => cone_h[ci * pl::CONE_H + a * dim + b].re,
                                ConstraintState::Quadratic if a == b => dd.efc_D[r + a].re,
                                _ => 0.0,
                            };
                        }
                    }
                    r += dim;
                }
                _ => {
                    if state[r] == ConstraintState::Quadratic {
                        h[(r, r)] = dd.efc_D[r].re;
                    }
                    r += 1;
                }
            }
        }
        let re = |v: &[Dual64], rows: usize, cols: usize| {
            DMatrix::from_row_slice(rows, cols, &v.iter().map(|x| x.re).collect::<Vec<_>>())
        };
        let j = re(&jd, n, nv);
        let hess = re(&mfull, nv, nv) + j.transpose() * h * &j;
        let step = hess.lu().solve(&g).expect("M + JᵀHJ is positive definite");
        for k in 0..nv {
            dd.qacc[k] -= Dual64::new(step[(k, 0)], step[(k, 1)]);
        }
    }
}

/// Steps `d` along `ctrl` under `m` and, at every step in contact, compares the analytic
/// one-step contact columns ([`sysid::step_param_jacobian`]) with the dual-number columns of
/// [`dual_step_column`], of the solve taken to its optimum (to 1e-10 of the column's largest
/// entry) and of the engine's solve as it stops; returns (steps checked, worst relative error
/// against each, each parameter's largest dual-column entry).
fn columns_against_duals(
    m: &moreau::Model,
    params: &[Param],
    d: &mut moreau::Data,
    ctrl: &[Vec<f64>],
) -> (usize, [f64; 2], Vec<f64>) {
    // the engine's solve stops short of the optimum by a remainder whose derivative reaches a
    // few 1e-6 of a column on elliptic cones' middle zones ([`newton_polish`]; measured, see
    // docs/optimization.md); on pyramidal cones the solve is piecewise quadratic and exact
    let (tol, tol_engine) = if m.opt.cone == moreau::model::Cone::Elliptic {
        (2e-9, 5e-6)
    } else {
        (1e-12, 1e-10)
    };
    let (mut checked, mut worst) = (0, [0.0f64; 2]);
    let mut largest = vec![0.0f64; params.len()];
    for u in ctrl {
        d.ctrl.copy_from_slice(u);
        let start = d.clone();
        let g = sysid::step_param_jacobian(m, params, d)
            .unwrap()
            .expect("analytic columns");
        if d.efc_force.iter().any(|&f| f != 0.0) {
            for (j, &p) in params.iter().enumerate() {
                for (k, tol) in [(0, tol), (1, tol_engine)] {
                    let (dual, ncon) = dual_step_column(m, &start, p, k == 0);
                    assert!(ncon > 0);
                    let scale = dual.iter().fold(0.0f64, |a, v| a.max(v.abs()));
                    let err =
                        (0..dual.len()).fold(0.0f64, |a, i| a.max((g[(i, j)] - dual[i]).abs()));
                    // a column that is zero (a parameter the contact does not take, or one the
                    // step does not feel: round-off on both sides) must be zero
                    let rel = if scale <= 1e-12 { err } else { err / scale };
                    assert!(
                        rel < tol,
                        "{p:?} ({}): analytic column off by {rel:.2e} of {scale:.3e}\nanalytic \
                         {:?}\ndual {dual:?}",
                        ["converged solve", "engine's solve"][k],
                        g.column(j).as_slice()
                    );
                    worst[k] = worst[k].max(rel);
                    if k == 0 {
                        largest[j] = largest[j].max(scale);
                    }
                }
            }
            checked += 1;
        }
        moreau::step(m, d);
    }
    (checked, worst, largest)
}

/// The analytic one-step contact columns against dual numbers, which carry the foot's friction
/// and solref from the geom through the engine's mixing, constraint rows, Newton solver and
/// integrator (the solver at `tolerance = 0`, all its iterations, then taken to the optimum
/// by [`newton_polish`]): equal to 1e-12 of the column's largest entry on every step in
/// contact of MuJoCo's drop, slide and push logs of the foot (condim 6, pyramidal, the foot's
/// `priority` wins the mixing), rolled out at the truth; to 1e-10 without the polish.
#[test]
fn analytic_contact_columns_match_dual_numbers() {
    let (checked, worst, largest) = foot_columns(|_| {});
    println!("{checked} steps in contact, worst relative column error {:.2e} (converged solve), {:.2e} (engine's solve)", worst[0], worst[1]);
    assert!(checked > 100, "only {checked} steps in contact");
    for l in &largest {
        assert!(l.iter().all(|&x| x > 0.0), "a zero column: {l:?}");
    }
}

/// [`columns_against_duals`] on the foot's three logs under the reference model changed by
/// `change`, at the truth: steps checked, worst error, each log's largest column entries.
fn foot_columns(change: impl Fn(&mut moreau::Model)) -> (usize, [f64; 2], Vec<Vec<f64>>) {
    let (mut m, logs, params, _, _, truth, _) = reference();
    m.opt.tolerance = 0.0;
    change(&mut m);
    let m = sysid::model_with(&m, &params, &truth).unwrap();
    let (mut checked, mut worst, mut all) = (0, [0.0f64; 2], Vec::new());
    for log in &logs {
        let mut d = moreau::Data::new(&m);
        d.qpos.copy_from_slice(&log.qpos0);
        d.qvel.copy_from_slice(&log.qvel0);
        let (c, w, largest) = columns_against_duals(&m, &params, &mut d, &log.ctrl);
        checked += c;
        worst = [worst[0].max(w[0]), worst[1].max(w[1])];
        all.push(largest);
    }
    (checked, worst, all)
}

/// The same check where the contact's parameters are mixed, not taken from one geom: a
/// sphere and a capsule (condim 3 and 4, pyramidal) sliding and rolling on a floor of equal
/// priority, `solmix` 3 against 1, so the solref columns carry the weights 3/4 (sphere) and
/// 1/4 (floor), and the sliding friction is the larger one's (the sphere's column is the
/// derivative, the floor's is zero).
#[test]
fn mixed_contact_columns_match_dual_numbers() {
    let (checked, worst, largest) = mixed_columns("", "", "");
    println!("{checked} steps in contact, worst relative column error {:.2e} (converged solve), {:.2e} (engine's solve), largest entries \
         {largest:?}", worst[0], worst[1]
    );
    // the floor's friction is the smaller: its column is zero; every other one moves the step
    assert_zero_columns(checked, &largest, &[3]);
}

/// At least 100 steps checked, and exactly the parameters `zero` of [`MIXED_PARAMS`] have
/// zero columns.
fn assert_zero_columns(checked: usize, largest: &[f64], zero: &[usize]) {
    assert!(checked > 100, "only {checked} steps in contact");
    for (j, p) in MIXED_PARAMS.iter().enumerate() {
        assert_eq!(
            largest[j] == 0.0,
            zero.contains(&j),
            "{p:?}: largest entry {}",
            largest[j]
        );
    }
}

/// The parameters of [`mixed_columns`] (by geom name).
const MIXED_PARAMS: [(&str, usize); 6] = [
    ("ball", 0),
    ("ball", 1),
    ("ball", 2),
    ("floor", 0),
    ("floor", 1),
    ("rod", 2),
];

/// The model of [`mixed_contact_columns_match_dual_numbers`] with `option` added to its
/// `<option>`'s attributes, `flag` as its content and `contact` as its `<contact>` section, checked by [`columns_against_duals`].
fn mixed_columns(option: &str, flag: &str, contact: &str) -> (usize, [f64; 2], Vec<f64>) {
    let xml = format!(
        r#"<mujoco>
      <option timestep="0.002" tolerance="0" iterations="100" {option}>{flag}</option>
      <worldbody>
        <geom name="floor" type="plane" size="0 0 0.05" friction="0.4 0.005 0.0001"
          solref="0.03 0.9" solmix="1"/>
        <body name="ball" pos="0 0 0.049">
          <freejoint name="ball"/>
          <geom name="ball" type="sphere" size="0.05" mass="0.3" friction="0.7 0.01 0.001"
            solref="0.02 1.2" solmix="3"/>
        </body>
        <body name="rod" pos="0.5 0 0.029" euler="0 90 10">
          <freejoint/>
          <geom name="rod" type="capsule" size="0.03 0.1" mass="0.5" condim="4"
            friction="0.6 0.02 0.001" solref="0.025 1" solmix="3"/>
        </body>
      </worldbody>
      <actuator>
        <motor joint="ball" gear="1 0.3 0 0 0 0"/>
      </actuator>
      <contact>{contact}</contact>
    </mujoco>"#
    );
    let m = moreau::load_from_str(&xml, &moreau::Vfs::new()).unwrap();
    let g = |n: &str| m.geom_name.iter().position(|x| x == n).unwrap();
    let params: Vec<Param> = MIXED_PARAMS
        .iter()
        .map(|&(name, kind)| match kind {
            0 => Param::Friction { geom: g(name) },
            1 => Param::SolrefTimeconst { geom: g(name) },
            _ => Param::SolrefDampratio { geom: g(name) },
        })
        .collect();
    let mut d = moreau::Data::new(&m);
    d.qvel[0] = 0.8; // the ball slides, then rolls
    d.qvel[6] = -0.5; // the rod slides sideways
    d.qvel[11] = 3.0; // and spins about the vertical
    let ctrl: Vec<Vec<f64>> = (0..150)
        .map(|t| vec![if t < 75 { 0.4 } else { -0.6 }])
        .collect();
    columns_against_duals(&m, &params, &mut d, &ctrl)
}

/// Elliptic cones (`impratio` 10: the regularized cone's `μ = friction[0]/√impratio`, the
/// tangential rows' `R` scaled by it and, on the capsule's torsional row, by
/// `friction[0]²/friction[2]²`): the analytic columns (bottom and middle zones) against dual
/// numbers on the mixed model, and on the Go1 foot (condim 6) over MuJoCo's three logs: to
/// 2e-9 of each column's largest entry with the solve taken to its optimum (measured: 8.7e-10),
/// to 5e-6 against the engine's solve as it stops (measured: 2.4e-6; [`newton_polish`]).
#[test]
fn elliptic_contact_columns_match_dual_numbers() {
    let (checked, worst, largest) = mixed_columns(r#"cone="elliptic" impratio="10""#, "", "");
    println!("mixed: {checked} steps in contact, worst relative column error {:.2e} (converged solve), {:.2e} (engine's solve), largest \
         entries {largest:?}", worst[0], worst[1]
    );
    assert_zero_columns(checked, &largest, &[3]);
    let (checked, worst, largest) = foot_columns(|m| {
        m.opt.cone = moreau::model::Cone::Elliptic;
        m.opt.impratio = 10.0;
    });
    // a drop does not slide: the friction moves the step only in the slides and the push
    let all: Vec<f64> = (0..largest[0].len())
        .map(|j| largest.iter().map(|l| l[j]).fold(0.0, f64::max))
        .collect();
    assert!(all.iter().all(|&x| x > 0.0), "a zero column: {all:?}");
    println!("foot: {checked} steps in contact, worst relative column error {:.2e} (converged solve), {:.2e} (engine's solve), largest entries {all:?}", worst[0], worst[1]);
    assert!(checked > 100, "only {checked} steps in contact");
}

/// Contacts whose parameters do not come from the geoms: the rod's contacts from an explicit
/// `pair` (its own friction and solref), so the rod's solref column is zero while the ball's
/// mixed contact keeps its columns; and under `override` every column is zero. Analytic columns
/// (no one-step differences) against dual numbers.
#[test]
fn pair_and_override_contact_columns_match_dual_numbers() {
    let pair = r#"<pair geom1="rod" geom2="floor" condim="4" friction="0.5 0.5 0.01 0.001 0.001"
        solref="0.04 1.1"/>"#;
    let (checked, worst, largest) = mixed_columns("", "", pair);
    println!("pair: {checked} steps in contact, worst relative column error {:.2e} (converged solve), {:.2e} (engine's solve), largest \
         entries {largest:?}", worst[0], worst[1]
    );
    assert_zero_columns(checked, &largest, &[3, 5]);
    let (checked, worst, largest) = mixed_columns(
        r#"o_solref="0.03 1" o_friction="0.5 0.5 0.01 0.001 0.001""#,
        r#"<flag override="enable"/>"#,
        "",
    );
    println!(
        "override: {checked} steps in contact, worst {:.2e}, {:.2e}, largest {largest:?}",
        worst[0], worst[1]
    );
    assert!(checked > 100, "only {checked} steps in contact");
    assert!(largest.iter().all(|&x| x == 0.0), "{largest:?}");
}
