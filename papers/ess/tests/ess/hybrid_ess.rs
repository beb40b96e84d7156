//! Seed-002 experiments as tests: the Table 1 order test (§4), the 1D hopper against its
//! closed form (§5.1), the B-derivative against finite differences, and error values.

use moreau_ess::models::{Hopper, Plate, Table1, Table1Exact};
use moreau_ess::{
    integrate, integrate_with_derivative, ClosureSystem, Dopri5Options, EssOptions,
    EventSelectedSystem, HybridError, Rearm,
};
use nalgebra::{DMatrix, DVector, Vector3};

fn tight(eps: f64) -> EssOptions {
    EssOptions {
        eps,
        ode: Dopri5Options {
            rtol: 1e-12,
            atol: 1e-12,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// RMS over the logged trajectory of the distance to the exact solution (§4).
fn table1_rms(eps: f64, exact: &Table1Exact) -> f64 {
    let x0 = DVector::from_vec(vec![-0.4, -0.15, 0.3]);
    let tr = integrate(&Table1, 0.0, &x0, 0.5, &tight(eps)).unwrap();
    assert_eq!(tr.events.len(), 3, "eps {eps}: all three guards crossed");
    let s: f64 =
        tr.t.iter()
            .zip(&tr.x)
            .map(|(t, x)| (Vector3::new(x[0], x[1], x[2]) - exact.at(*t)).norm_squared())
            .sum();
    (s / tr.t.len() as f64).sqrt()
}

fn ls_slope(xs: &[f64], ys: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let num: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    num / den
}

#[test]
fn table1_exact_solution_crosses_all_guards() {
    let exact = Table1Exact::new(Vector3::new(-0.4, -0.15, 0.3), 0.5);
    let ts = exact.crossing_times();
    assert_eq!(ts.len(), 3);
    assert!(ts.iter().all(|&t| t > 0.0 && t < 0.5));
    let xf = exact.at(0.5);
    assert!(xf[0] > 0.0 && xf[1] > 0.0 && xf[2] < 0.0);
}

/// §4 order test: least-squares slope of log RMS against log 1/ε is at least 1.8.
#[test]
fn table1_order_is_two() {
    let exact = Table1Exact::new(Vector3::new(-0.4, -0.15, 0.3), 0.5);
    let (mut lx, mut ly) = (vec![], vec![]);
    for i in 0..=12 {
        let inv_eps = 10f64.powf(1.5 + 0.25 * i as f64); // 1/ε from 10^1.5 to 10^4.5
        lx.push(inv_eps.ln());
        ly.push(table1_rms(1.0 / inv_eps, &exact).ln());
    }
    // RMS ~ K ε^p: the order p is minus the slope against log(1/ε).
    let slope = -ls_slope(&lx, &ly);
    println!("Table 1 fitted order {slope:.3}");
    assert!(slope >= 1.8, "fitted order {slope}");
    assert!(slope <= 2.6, "fitted order {slope} implausibly high");
}

/// §5.1: the hopper against its closed form over several hops.
#[test]
fn hopper_matches_closed_form() {
    let hop = Hopper::default();
    let x0 = DVector::from_vec(vec![2.0, 0.0]);
    let mut last = 10.0;
    for eps in [1e-2, 1e-3, 1e-4] {
        let tr = integrate(&hop, 0.0, &x0, 2.0, &tight(eps)).unwrap();
        // Two hops in two seconds: touch-down, lift-off, touch-down, lift-off.
        let guards: Vec<usize> = tr.events.iter().map(|e| e.guard).collect();
        assert_eq!(guards, vec![1, 0, 1, 0], "eps {eps}");
        let mut s = 0.0;
        for (t, x) in tr.t.iter().zip(&tr.x) {
            let (z, v) = hop.exact(2.0, *t);
            s += (x[0] - z).powi(2) + (x[1] - v).powi(2);
        }
        let rms = (s / tr.t.len() as f64).sqrt();
        println!("hopper eps {eps:e}: RMS {rms:.3e}");
        // Second order in ε (the stiff stance amplifies the constant: ~600 ε² measured).
        assert!(rms < 1e3 * eps * eps, "eps {eps}: rms {rms}");
        assert!(rms < last / 50.0, "eps {eps}: rms {rms} vs {last} at 10 ε");
        last = rms;
    }
}

fn fd_jacobian_of_flow<S: EventSelectedSystem>(
    sys: &S,
    x0: &DVector<f64>,
    tf: f64,
    opts: &EssOptions,
    step: f64,
) -> (DMatrix<f64>, Vec<usize>) {
    let n = x0.len();
    let mut jac = DMatrix::zeros(n, n);
    let mut order = None;
    for i in 0..n {
        let (mut xp, mut xm) = (x0.clone(), x0.clone());
        xp[i] += step;
        xm[i] -= step;
        let tp = integrate(sys, 0.0, &xp, tf, opts).unwrap();
        let tm = integrate(sys, 0.0, &xm, tf, opts).unwrap();
        let op: Vec<usize> = tp.events.iter().map(|e| e.guard).collect();
        let om: Vec<usize> = tm.events.iter().map(|e| e.guard).collect();
        assert_eq!(op, om, "perturbation changed the event order");
        order.get_or_insert(op);
        jac.set_column(i, &((tp.final_state() - tm.final_state()) / (2.0 * step)));
    }
    (jac, order.unwrap())
}

/// B-derivative against central finite differences through all three Table 1 guards.
#[test]
fn bderiv_matches_fd_table1() {
    let x0 = DVector::from_vec(vec![-0.4, -0.15, 0.3]);
    let opts = tight(1e-6);
    let (tr, d) = integrate_with_derivative(&Table1, 0.0, &x0, 0.5, &opts).unwrap();
    assert_eq!(d.event_order, vec![1, 2, 0]);
    assert_eq!(&d.x, tr.final_state());
    let (fd, order) = fd_jacobian_of_flow(&Table1, &x0, 0.5, &opts, 1e-5);
    assert_eq!(order, d.event_order);
    let err = (&d.jacobian - &fd).abs().max() / fd.abs().max();
    println!(
        "Table 1: events {:?}, max |B - FD| / max |FD| = {err:.2e}",
        d.event_order
    );
    assert!(
        err < 1e-6,
        "relative error {err:e}\nB {}\nFD {}",
        d.jacobian,
        fd
    );
    // Evaluating the selected piece on a direction.
    let v = DVector::from_vec(vec![1.0, -2.0, 0.5]);
    let dv = d.apply(&v).unwrap();
    assert!((dv - &fd * &v).norm() < 1e-3 * (&fd * &v).norm());
}

/// B-derivative against finite differences on the damped plate on 3 springs: touch-downs
/// and lift-offs (discontinuous damping force) with analytic-free `D f` (finite differences).
#[test]
fn bderiv_matches_fd_plate() {
    let plate = Plate::new(3);
    let x0 = DVector::from_vec(vec![0.0, 1.3, 0.05, 0.0, 0.0, 0.0]);
    let mut opts = tight(1e-6);
    opts.rearm = Rearm::AfterEachSegment;
    let tf = 0.5;
    let (_, d) = integrate_with_derivative(&plate, 0.0, &x0, tf, &opts).unwrap();
    assert!(d.event_order.len() >= 4, "events {:?}", d.event_order);
    let (fd, order) = fd_jacobian_of_flow(&plate, &x0, tf, &opts, 1e-6);
    assert_eq!(order, d.event_order);
    let err = (&d.jacobian - &fd).abs().max() / fd.abs().max();
    println!(
        "plate: events {:?}, max |B - FD| / max |FD| = {err:.2e}",
        d.event_order
    );
    assert!(
        err < 1e-6,
        "relative error {err:e}\nB {}\nFD {}",
        d.jacobian,
        fd
    );
}

/// Closures, no model: a 1D system with two guards crossed in sequence.
#[test]
fn closure_system_and_errors() {
    let sys = ClosureSystem::new(
        1,
        2,
        |_x, s: &[bool], dx: &mut DVector<f64>| {
            dx[0] = 1.0 + s[0] as u8 as f64 + s[1] as u8 as f64;
        },
        |x, h: &mut DVector<f64>| {
            h[0] = x[0];
            h[1] = x[0] - 1.0;
        },
        |_x, dh: &mut DMatrix<f64>| dh.fill(1.0),
    );
    let x0 = DVector::from_element(1, -1.0);
    // Exact: x = −1 + t until t = 1, then slope 2 until x = 1 at t = 1.5, then slope 3.
    let (tr, d) = integrate_with_derivative(&sys, 0.0, &x0, 2.0, &tight(1e-8)).unwrap();
    assert!((tr.final_state()[0] - 2.5).abs() < 1e-7);
    // dΦ/dx0 = (2/1)(3/2) = 3 through both saltations.
    assert!((d.jacobian[(0, 0)] - 3.0).abs() < 1e-6, "{}", d.jacobian);

    let o = tight(1e-3);
    let nan = DVector::from_element(1, f64::NAN);
    assert_eq!(
        integrate(&sys, 0.0, &nan, 1.0, &o).unwrap_err(),
        HybridError::NonFiniteInput
    );
    assert!(matches!(
        integrate(&sys, 0.0, &DVector::zeros(2), 1.0, &o),
        Err(HybridError::DimensionMismatch { .. })
    ));
    let bad = EssOptions {
        eps: 0.0,
        ..o.clone()
    };
    assert!(matches!(
        integrate(&sys, 0.0, &x0, 1.0, &bad),
        Err(HybridError::InvalidOptions(_))
    ));
    let few = EssOptions {
        ode: Dopri5Options {
            max_steps: 2,
            h_max: 1e-3,
            ..Default::default()
        },
        ..o.clone()
    };
    assert!(matches!(
        integrate(&sys, 0.0, &x0, 1.0, &few),
        Err(HybridError::MaxStepsExceeded { .. })
    ));
    let one = EssOptions {
        max_events: 1,
        ..o.clone()
    };
    assert!(matches!(
        integrate(&sys, 0.0, &x0, 2.0, &one),
        Err(HybridError::MaxEventsExceeded { .. })
    ));
    // A vector field that produces NaN is reported, not propagated.
    let nan_sys = ClosureSystem::new(
        1,
        1,
        |x, _s: &[bool], dx: &mut DVector<f64>| dx[0] = if x[0] > 0.5 { f64::NAN } else { 1.0 },
        |x, h: &mut DVector<f64>| h[0] = x[0] - 10.0,
        |_x, dh: &mut DMatrix<f64>| dh.fill(1.0),
    );
    assert!(matches!(
        integrate(&nan_sys, 0.0, &DVector::zeros(1), 1.0, &o),
        Err(HybridError::NonFiniteValue { .. }) | Err(HybridError::StepSizeUnderflow { .. })
    ));
}
