//! The optimizers on the shared thread mechanism (`moreau_optim::threads`): iLQR's per-knot
//! transition Jacobians, a whole iLQR solve, collocation's per-knot Jacobians, predictive
//! sampling's candidate rollouts and the rollout fit's Jacobian columns are bit-identical at 1, 2 and 3 threads, and equal to a
//! serial loop written here (one fresh `Data` per knot or candidate), which is what the
//! optimizers computed before they ran on threads.

use moreau::{Data, Model};
use moreau_optim::collocation::{Collocation, ParamSpec};
use moreau_optim::ilqr::{ilqr, Dynamics, IlqrOptions, QuadraticCost};
use moreau_optim::sampling::{Interp, PredictiveSampling, SamplingOptions};
use moreau_optim::sysid::{self, fit_rollout_on, Param};
use moreau_optim::system::{ControlOffset, MoreauSystem};
use moreau_optim::threads::Threads;
use moreau_problems::{ball_push, cartpole_sysid, contact_provider, swingup};
use nalgebra::{DMatrix, DVector};

fn model(name: &str) -> Model {
    let path = format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    moreau::load(&path).unwrap_or_else(|e| panic!("{path}: {e:?}"))
}

fn bits<'a>(xs: impl IntoIterator<Item = &'a f64>) -> Vec<u64> {
    xs.into_iter().map(|v| v.to_bits()).collect()
}

/// A humanoid trajectory falling onto the floor (contacts in the later knots) under
/// deterministic controls: `(xs, us)` with `xs.len() = us.len() + 1`.
fn humanoid_knots(m: &Model, n: usize) -> (Vec<DVector<f64>>, Vec<DVector<f64>>) {
    let mut d = Data::new(m);
    d.qvel[0] = 0.4;
    d.qvel[5] = 1.0;
    let (mut xs, mut us) = (Vec::new(), Vec::new());
    let state = |d: &Data| {
        DVector::from_iterator(
            m.nq + m.nv + m.na,
            d.qpos.iter().chain(&d.qvel).chain(&d.act).copied(),
        )
    };
    for t in 0..n {
        xs.push(state(&d));
        let u = DVector::from_fn(m.nu, |i, _| (0.37 * (t * m.nu + i) as f64).sin() * 0.4);
        d.ctrl.copy_from_slice(u.as_slice());
        for _ in 0..8 {
            moreau::step(m, &mut d);
        }
        us.push(u);
    }
    xs.push(state(&d));
    (xs, us)
}

fn knot_jacobians(sys: &mut impl Dynamics, xs: &[DVector<f64>], us: &[DVector<f64>]) -> Vec<u64> {
    let (ndx, nu) = (sys.ndx(), sys.nu());
    let mut a = vec![DMatrix::zeros(ndx, ndx); us.len()];
    let mut b = vec![DMatrix::zeros(ndx, nu); us.len()];
    sys.jacobians_all(xs, us, &mut a, &mut b).unwrap();
    a.iter()
        .chain(&b)
        .flat_map(|m| bits(m.as_slice()))
        .collect()
}

/// FD (centered `mjd_transitionFD`) and analytic knot Jacobians of the humanoid with
/// contacts: threaded = serial = one fresh system per knot; through `ControlOffset` too.
#[test]
fn ilqr_knot_jacobians_are_bit_identical_at_any_thread_count() {
    let m = model("humanoid");
    let (xs, us) = humanoid_knots(&m, 12);
    assert!(
        {
            let mut d = Data::new(&m);
            d.qpos.copy_from_slice(&xs[11].as_slice()[..m.nq]);
            moreau::forward(&m, &mut d);
            !d.contact.is_empty()
        },
        "the last knots must touch the floor"
    );
    for analytic in [false, true] {
        let make = || {
            let s = MoreauSystem::new(m.clone()).unwrap();
            if analytic {
                s.analytic().unwrap()
            } else {
                s
            }
        };
        // the serial reference: one fresh system per knot, one knot at a time
        let mut reference = Vec::new();
        let (mut ra, mut rb) = (Vec::new(), Vec::new());
        for (x, u) in xs.iter().zip(&us) {
            let mut s = make();
            let mut a = DMatrix::zeros(s.ndx(), s.ndx());
            let mut b = DMatrix::zeros(s.ndx(), s.nu());
            s.jacobians(x.as_slice(), u.as_slice(), &mut a, &mut b)
                .unwrap();
            ra.push(a);
            rb.push(b);
        }
        reference.extend(ra.iter().chain(&rb).flat_map(|m| bits(m.as_slice())));
        assert!(ra.iter().all(|a| a.iter().all(|v| v.is_finite())));
        for nthread in [1, 2, 3] {
            let mut s = make();
            s.set_threads(nthread).unwrap();
            assert_eq!(
                knot_jacobians(&mut s, &xs, &us),
                reference,
                "analytic {analytic}, {nthread} threads"
            );
            // twice on the same system: the threads' Data keep nothing between calls
            assert_eq!(knot_jacobians(&mut s, &xs, &us), reference);
        }
        // control offsets: the inner system at u0 + du (rounded as ControlOffset rounds it)
        let u0 = vec![0.1; m.nu];
        let dus: Vec<DVector<f64>> = us.iter().map(|u| u.add_scalar(-0.1)).collect();
        let absolute: Vec<DVector<f64>> = dus.iter().map(|du| du.add_scalar(0.1)).collect();
        let offset_reference = knot_jacobians(&mut make(), &xs, &absolute);
        for nthread in [1, 3] {
            let mut s = make();
            s.set_threads(nthread).unwrap();
            let mut off = ControlOffset::new(s, u0.clone()).unwrap();
            assert_eq!(knot_jacobians(&mut off, &xs, &dus), offset_reference);
        }
    }
}

/// A knot whose step fails gives the error of the first failing knot at any thread count.
#[test]
fn a_failing_knot_fails_the_same_way_at_any_thread_count() {
    let m = model("cartpole");
    let n = 6;
    let xs: Vec<DVector<f64>> = (0..=n)
        .map(|t| {
            let mut x = DVector::from_vec(vec![0.0, 0.1 * t as f64, 0.0, 0.0]);
            if t >= 3 {
                x[2] = f64::NAN;
            }
            x
        })
        .collect();
    let us = vec![DVector::zeros(m.nu); n];
    let mut errors = Vec::new();
    for nthread in [1, 2, 3] {
        let mut s = MoreauSystem::new(m.clone()).unwrap();
        s.set_threads(nthread).unwrap();
        let mut a = vec![DMatrix::zeros(4, 4); n];
        let mut b = vec![DMatrix::zeros(4, 1); n];
        errors.push(s.jacobians_all(&xs, &us, &mut a, &mut b).unwrap_err());
    }
    assert!(errors[0].contains("bad state"), "{}", errors[0]);
    assert!(errors.iter().all(|e| e == &errors[0]), "{errors:?}");
}

/// A whole iLQR solve (cart-pole swing-up start) gives the same controls, gains and cost
/// history, bit for bit, with its knots linearized on 1, 2 or 3 threads.
#[test]
fn ilqr_is_bit_identical_at_any_thread_count() {
    let m = model("cartpole_swingup");
    let q = DMatrix::from_diagonal(&DVector::from_column_slice(&[1.0, 10.0, 0.1, 0.1]));
    let cost = QuadraticCost {
        q: q.clone(),
        r: DMatrix::from_element(1, 1, 0.01),
        qf: q * 10.0,
        xref: DVector::zeros(4),
        dt: m.opt.timestep,
    };
    let x0 = DVector::from_vec(vec![0.0, 0.3, 0.0, 0.0]);
    let opt = IlqrOptions {
        max_iter: 8,
        ..Default::default()
    };
    let run = |nthread: usize| {
        let mut s = MoreauSystem::new(m.clone()).unwrap();
        s.set_threads(nthread).unwrap();
        let r = ilqr(
            &mut s,
            &cost,
            &x0,
            vec![DVector::zeros(1); 40],
            &opt,
            |_, _| {},
        )
        .unwrap();
        let mut out = bits(&r.cost_history);
        out.extend(r.us.iter().flat_map(|u| bits(u.as_slice())));
        out.extend(r.gains.iter().flat_map(|k| bits(k.as_slice())));
        (out, r.iterations)
    };
    let one = run(1);
    assert!(one.1 > 1, "iLQR must iterate");
    assert_eq!(one, run(2), "2 threads");
    assert_eq!(one, run(3), "3 threads");
}

/// The linear spline of a knot plan at offset `s` (the planner's interpolation, written
/// again here).
fn linear(plan: &[f64], nu: usize, knot_dt: f64, s: f64, i: usize) -> f64 {
    let nk = plan.len() / nu;
    let x = (s / knot_dt).max(0.0);
    let k = (x.floor() as usize).min(nk - 1);
    if k + 1 >= nk {
        return plan[k * nu + i];
    }
    let w = x - k as f64;
    (1.0 - w) * plan[k * nu + i] + w * plan[(k + 1) * nu + i]
}

/// Predictive sampling: costs and plan bit-identical at 1, 2, 3 threads and on a rerun, and
/// every candidate's cost equal to a serial rollout of it on a fresh `Data`.
#[test]
fn sampling_candidates_equal_a_serial_loop_at_any_thread_count() {
    let m = model("humanoid");
    let opt = SamplingOptions {
        rollouts: 7,
        steps: 30,
        knots: 4,
        sigma: 0.5,
        seed: 3,
        interp: Interp::Linear,
        ..Default::default()
    };
    let mut d = Data::new(&m);
    d.qvel[0] = 0.5;
    let stage = |_: &Model, d: &Data| d.qpos[2].powi(2) + d.qvel[0].powi(2);
    let plan = |nthread: usize| {
        let mut ps = PredictiveSampling::new(m.clone(), opt.clone()).unwrap();
        ps.set_threads(nthread).unwrap();
        assert_eq!(ps.nthread(), nthread);
        ps.plan(&d, &stage);
        ps.plan(&d, &stage);
        let mut u = vec![0.0; m.nu];
        ps.action(0.01, &mut u);
        (
            bits(ps.costs()),
            bits(&u),
            ps.candidates().to_vec(),
            ps.knot_dt,
        )
    };
    let one = plan(1);
    for nthread in [2, 3, 1] {
        let other = plan(nthread);
        assert_eq!((&one.0, &one.1), (&other.0, &other.1), "{nthread} threads");
    }
    let (costs, _, candidates, knot_dt) = one;
    let h = m.opt.timestep;
    for (r, cand) in candidates.iter().enumerate() {
        let mut e = Data::new(&m);
        e.qvel.copy_from_slice(&d.qvel);
        let mut total = 0.0;
        for k in 0..opt.steps {
            for i in 0..m.nu {
                let u = linear(cand, m.nu, knot_dt, k as f64 * h, i);
                let rg = m.actuator_ctrlrange[i];
                e.ctrl[i] = if m.actuator_ctrllimited[i] {
                    u.clamp(rg[0], rg[1])
                } else {
                    u
                };
            }
            moreau::step(&m, &mut e);
            total += h * stage(&m, &e);
        }
        assert!(total.is_finite());
        assert_eq!(total.to_bits(), costs[r], "candidate {r}");
    }
}

/// The rollout fit (Jacobian columns on threads) is bit-identical at 1, 2 and 3 threads.
#[test]
fn rollout_fit_is_bit_identical_at_any_thread_count() {
    let p = cartpole_sysid().expect("model loads");
    let log = p.rollout_log(vec![0.0, 0.4], vec![0.0, 0.0], 120);
    let start: Vec<f64> = p
        .params
        .iter()
        .map(|q| sysid::get(&p.nominal, *q))
        .collect();
    let bounds = vec![[0.0, 10.0]; start.len()];
    let fit = |nthread: usize| {
        let threads = Threads::new(nthread).unwrap();
        let f = fit_rollout_on(
            &threads,
            &p.nominal,
            &p.params,
            &log,
            &start,
            &bounds,
            6,
            |_, _| {},
        )
        .unwrap();
        let mut out = bits(&f.estimate);
        out.extend(bits(&f.half_width));
        out
    };
    let one = fit(1);
    assert_eq!(one, fit(2), "2 threads");
    assert_eq!(one, fit(3), "3 threads");
}

/// The rollout fit over several logs is bit-identical at 1, 2 and 3 threads.
#[test]
fn rollout_fit_over_several_logs_is_bit_identical_at_any_thread_count() {
    let p = cartpole_sysid().expect("model loads");
    let logs = [
        p.rollout_log(vec![0.0, 0.4], vec![0.0, 0.0], 80),
        p.rollout_log(vec![0.2, -0.3], vec![0.1, 0.5], 60),
    ];
    let start: Vec<f64> = p
        .params
        .iter()
        .map(|q| sysid::get(&p.nominal, *q))
        .collect();
    let bounds = vec![[0.0, 10.0]; start.len()];
    let fit = |nthread: usize| {
        let threads = Threads::new(nthread).unwrap();
        let f = sysid::fit_rollout_logs_with(
            &threads,
            &p.nominal,
            &p.params,
            &logs,
            &start,
            &bounds,
            6,
            sysid::RolloutJacobian::Sensitivity,
            |_, _| {},
        )
        .unwrap();
        let mut out = bits(&f.estimate);
        out.extend(bits(&f.half_width));
        out.extend(bits(&f.cost_history));
        out
    };
    let one = fit(1);
    assert_eq!(one, fit(2), "2 threads");
    assert_eq!(one, fit(3), "3 threads");
}

/// Collocation's per-knot Jacobian blocks (inverse-dynamics Jacobians on the threads): the
/// ball push (contacts) with the analytic and the finite-difference providers, and the
/// cart-pole with a model parameter as a decision variable, bit-identical at 1, 2 and 3
/// threads (one thread is the serial loop over the knots on one `Data`).
#[test]
fn collocation_knot_jacobians_are_bit_identical_at_any_thread_count() {
    let blocks = |c: &Collocation, z: &[f64]| -> Vec<u64> {
        let (_, b) = c.jacobian(z);
        b.iter()
            .flat_map(|k| {
                let mut v = vec![k.row as u64];
                v.extend(bits(k.mat.as_slice()));
                v.extend(bits(k.par.as_slice()));
                v
            })
            .collect()
    };
    for fd in [false, true] {
        let p = ball_push(30, 0.3).unwrap();
        let mut c = p.collocation;
        if fd {
            c.set_jacobian_provider(contact_provider());
        }
        let z = &p.z0;
        let one = blocks(&c, z);
        let name = c.provider_name();
        for nthread in [2, 3, 1] {
            c.set_threads(nthread).unwrap();
            assert_eq!(blocks(&c, z), one, "fd {fd}, {nthread} threads");
            // and again on the same forks
            assert_eq!(blocks(&c, z), one, "fd {fd}, {nthread} threads, rerun");
            assert_eq!(c.provider_name(), name);
        }
    }
    let sw = swingup("cartpole").unwrap();
    let mut c = sw.collocation(3.0).unwrap();
    c.set_params(vec![ParamSpec::new(Param::Mass { body: 2 }, 0.9)])
        .unwrap();
    let z = c.initial_guess();
    let one = blocks(&c, &z);
    assert!(one.iter().any(|&b| b != 0));
    for nthread in [2, 3] {
        c.set_threads(nthread).unwrap();
        assert_eq!(blocks(&c, &z), one, "parameters, {nthread} threads");
    }
}
