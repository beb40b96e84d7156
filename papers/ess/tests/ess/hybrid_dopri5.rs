//! dopri5 alone against analytic ODE solutions (Anderson & Revzen §3.1 integration step).

use moreau_ess::{dopri5_solve, Dopri5Options, HybridError};
use nalgebra::DVector;

/// Harmonic oscillator y'' = −y, y(0) = (0, 1): y = (sin t, cos t).
fn osc(_t: f64, y: &DVector<f64>, dy: &mut DVector<f64>) {
    dy[0] = y[1];
    dy[1] = -y[0];
}

fn fixed_step_error(h: f64) -> f64 {
    let opts = Dopri5Options {
        rtol: 1e6,
        atol: 1e6,
        h_init: Some(h),
        h_max: h,
        ..Default::default()
    };
    let y0 = DVector::from_vec(vec![0.0, 1.0]);
    let sol = dopri5_solve(osc, 0.0, &y0, 2.0, &opts).unwrap();
    let y = sol.y.last().unwrap();
    ((y[0] - 2f64.sin()).powi(2) + (y[1] - 2f64.cos()).powi(2)).sqrt()
}

#[test]
fn dopri5_fixed_step_order_is_five() {
    let hs = [0.2, 0.1, 0.05, 0.025];
    let errs: Vec<f64> = hs.iter().map(|&h| fixed_step_error(h)).collect();
    // Least-squares slope of log error vs log h.
    let xs: Vec<f64> = hs.iter().map(|h| h.ln()).collect();
    let ys: Vec<f64> = errs.iter().map(|e| e.ln()).collect();
    let (mx, my) = (xs.iter().sum::<f64>() / 4.0, ys.iter().sum::<f64>() / 4.0);
    let num: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let slope = num / den;
    assert!(
        (4.6..=5.6).contains(&slope),
        "slope {slope}, errors {errs:?}"
    );
}

#[test]
fn dopri5_adaptive_meets_tolerance() {
    // y' = −2 t y², y(0) = 1: y = 1/(1 + t²).
    let f = |t: f64, y: &DVector<f64>, dy: &mut DVector<f64>| dy[0] = -2.0 * t * y[0] * y[0];
    let opts = Dopri5Options {
        rtol: 1e-10,
        atol: 1e-12,
        ..Default::default()
    };
    let sol = dopri5_solve(f, 0.0, &DVector::from_element(1, 1.0), 5.0, &opts).unwrap();
    for (t, y) in sol.t.iter().zip(&sol.y) {
        assert!((y[0] - 1.0 / (1.0 + t * t)).abs() < 1e-8, "t {t}");
    }
    assert_eq!(*sol.t.last().unwrap(), 5.0);
    assert!(sol.accepted < 500, "{} steps", sol.accepted);
}

#[test]
fn dopri5_reports_errors_as_values() {
    let y0 = DVector::from_element(1, f64::NAN);
    let e = dopri5_solve(
        |_, _, dy: &mut DVector<f64>| dy[0] = 1.0,
        0.0,
        &y0,
        1.0,
        &Default::default(),
    );
    assert_eq!(e.unwrap_err(), HybridError::NonFiniteInput);
    // Blow-up y' = y² from y(0) = 1 at t = 1: step size underflow or non-finite value.
    let blow = |_t: f64, y: &DVector<f64>, dy: &mut DVector<f64>| dy[0] = y[0] * y[0];
    let e = dopri5_solve(
        blow,
        0.0,
        &DVector::from_element(1, 1.0),
        2.0,
        &Default::default(),
    );
    assert!(matches!(
        e,
        Err(HybridError::StepSizeUnderflow { .. })
            | Err(HybridError::NonFiniteValue { .. })
            | Err(HybridError::MaxStepsExceeded { .. })
    ));
    let opts = Dopri5Options {
        max_steps: 3,
        ..Default::default()
    };
    let e = dopri5_solve(osc, 0.0, &DVector::from_vec(vec![0.0, 1.0]), 100.0, &opts);
    assert!(matches!(e, Err(HybridError::MaxStepsExceeded { .. })));
    let bad = Dopri5Options {
        rtol: -1.0,
        ..Default::default()
    };
    let e = dopri5_solve(osc, 0.0, &DVector::from_vec(vec![0.0, 1.0]), 1.0, &bad);
    assert!(matches!(e, Err(HybridError::InvalidOptions(_))));
}
