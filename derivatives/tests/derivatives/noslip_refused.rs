//! The analytic transition (and forward) Jacobians refuse the noslip post-pass: at a sliding and
//! sticking contact state of models/noslip.xml they would be the IFT derivative of the main
//! solver's force, which noslip replaces. The refusal is justified here by moreau's centered
//! FD of full steps: the noslip pass changes `A` far beyond FD accuracy, and without noslip the
//! analytic `A` matches FD at the same state (so the matrix the refusal withholds would be
//! wrong, not merely unverified).

use crate::common;
use moreau_derivatives::forward::forward_analytic;
use moreau_derivatives::{transition, Support, TransitionOptions};

#[test]
fn noslip_is_refused_not_wrong() {
    let mut m = common::model("noslip", None);
    m.opt.noslip_tolerance = 0.0;
    assert!(m.opt.noslip_iterations > 0);
    let mut d = moreau::Data::new(&m);
    d.reset_keyframe(&m, 0).unwrap();
    for _ in 0..150 {
        moreau::step(&m, &mut d);
    }
    moreau::forward(&m, &mut d);
    assert!(d.contact.len() >= 4, "{} contacts", d.contact.len());
    let e = Support::transition(&m).check().expect_err("noslip refused");
    assert_eq!(e, Support::Noslip);
    assert!(e.message().contains("noslip"), "{e}");
    assert!(transition(
        &m,
        &mut d.clone(),
        &TransitionOptions::analytic().with_sensors(false)
    )
    .is_err());
    assert!(forward_analytic(&m, &mut d.clone()).is_err());
    let with = transition(&m, &mut d.clone(), &TransitionOptions::fd(1e-6, true)).unwrap();
    // the same state without the post-pass
    let mut m0 = m.clone();
    m0.opt.noslip_iterations = 0;
    let mut d0 = d.clone();
    let without = transition(&m0, &mut d0.clone(), &TransitionOptions::fd(1e-6, true)).unwrap();
    let an = transition(
        &m0,
        &mut d0,
        &TransitionOptions::analytic().with_sensors(false),
    )
    .unwrap();
    let moved = common::rel_err(&with.A, &without.A);
    let fd_err = common::rel_err(&an.A, &without.A);
    eprintln!("noslip moves A by {moved:.2e}; analytic vs FD without noslip {fd_err:.2e}");
    // centered FD through the converged solver (measured 7.8e-8)
    assert!(fd_err < 1e-5, "analytic vs FD without noslip {fd_err}");
    // measured 9.3e-3 (0.23 absolute, max |A| ≈ 25): what ignoring noslip would get wrong,
    // 1e5 times the FD agreement above
    assert!(moved > 1e-3, "noslip moved A by only {moved}");
}
