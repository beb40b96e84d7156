//! The analytic transition Jacobians through the noslip post-pass (`crate::noslip` of
//! moreau-derivatives: the implicit function theorem at noslip's converged friction forces,
//! chained with the main solve's) against centred finite differences of moreau's own step
//! (`eps` 1e-6), on `models/noslip.xml` (sliding, sticking on a ramp, rolling with spin, dof
//! friction loss; pyramidal and elliptic cones; Euler and implicitfast). Noslip runs to
//! convergence in these checks
//! (`noslip_tolerance` 0 and enough sweeps): the analytic matrix is the derivative of the converged
//! noslip solution, which the capped pass only approaches. Errors are relative to max |A|.

use crate::common;
use moreau::model::{Cone, Integrator};
use moreau::Model;
use moreau_derivatives::forward::forward_analytic;
use moreau_derivatives::{transition, Support, TransitionOptions};

/// Analytic A, B against centred FD at the forwarded state `d`; returns (rel A, rel B, max |A|).
fn check(m: &Model, d: &moreau::Data<f64>) -> (f64, f64, f64) {
    let an = transition(
        m,
        &mut d.clone(),
        &TransitionOptions::analytic().with_sensors(false),
    )
    .unwrap();
    let fd = transition(
        m,
        &mut d.clone(),
        &TransitionOptions::fd(1e-6, true).with_sensors(false),
    )
    .unwrap();
    let ea = (&an.A - &fd.A).amax() / fd.A.amax();
    let eb = if m.nu > 0 {
        (&an.B - &fd.B).amax() / fd.A.amax()
    } else {
        0.0
    };
    (ea, eb, fd.A.amax())
}

/// models/noslip.xml with noslip converged, at the keyframe's motion after `steps` steps.
fn noslip_state(cone: Cone, integ: Integrator, steps: usize) -> (Model, moreau::Data<f64>) {
    let mut m = common::model("noslip", Some(integ));
    m.opt.cone = cone;
    m.opt.noslip_iterations = 1000;
    m.opt.noslip_tolerance = 0.0;
    let mut d = moreau::Data::new(&m);
    d.reset_keyframe(&m, 0).unwrap();
    for _ in 0..steps {
        moreau::step(&m, &mut d);
    }
    moreau::forward(&m, &mut d);
    (m, d)
}

#[test]
fn noslip_model_against_centred_fd() {
    let mut worst: f64 = 0.0;
    for cone in [Cone::Pyramidal, Cone::Elliptic] {
        for integ in [Integrator::Euler, Integrator::ImplicitFast] {
            // step 400 (boxes resting on four corners, the friction rows nearly redundant: S's
            // smallest kept singular values ≈ 1e-8 of its largest) is left out: there the
            // analytic matrix is 3.2e-5 (pyramidal) and 4.1e-4 (elliptic) from FD, the capped
            // sweeps not converged along those directions (docs/derivatives.md)
            for steps in [20, 150] {
                let (m, d) = noslip_state(cone, integ, steps);
                assert!(!d.contact.is_empty(), "{} contacts", d.contact.len());
                assert_eq!(Support::transition_at(&m, &d), Support::Covered);
                let (ea, eb, amax) = check(&m, &d);
                eprintln!(
                    "noslip.xml {cone:?} {integ:?} step {steps}: A {ea:.2e} B {eb:.2e} (max |A| {amax:.1})"
                );
                worst = worst.max(ea).max(eb);
            }
        }
    }
    // measured: 6.9e-7 / 9.2e-8 at step 20, 2.4e-6 / 8.3e-6 at step 150 (pyramidal / elliptic):
    // centred FD's own error plus the sweeps' residual along the worst-conditioned directions
    assert!(worst < 2e-5, "worst {worst:.2e}");
}

/// Without the derivative of the post-pass (the main solve's IFT alone) the matrix is far
/// off: what the derivative corrects, and that the check above can tell the two apart.
#[test]
fn the_correction_matters() {
    let (m, d) = noslip_state(Cone::Pyramidal, Integrator::Euler, 150);
    let mut m0 = m.clone();
    m0.opt.noslip_iterations = 0;
    let main = transition(
        &m0,
        &mut d.clone(),
        &TransitionOptions::analytic().with_sensors(false),
    )
    .unwrap();
    let fd = transition(
        &m,
        &mut d.clone(),
        &TransitionOptions::fd(1e-6, true).with_sensors(false),
    )
    .unwrap();
    let moved = (&main.A - &fd.A).amax() / fd.A.amax();
    eprintln!("main-solve IFT alone vs noslip FD: {moved:.2e}");
    assert!(moved > 1e-3, "{moved}");
    // forward_analytic takes the same path
    let fa = forward_analytic(&m, &mut d.clone()).unwrap();
    let t = transition(
        &m,
        &mut d.clone(),
        &TransitionOptions::analytic().with_sensors(false),
    )
    .unwrap();
    let h = m.opt.timestep;
    let nv = m.nv;
    for i in 0..nv {
        for j in 0..nv {
            let v = t.A[(nv + i, nv + j)] - if i == j { 1.0 } else { 0.0 };
            assert!((v - h * fa[(i, nv + j)]).abs() <= 1e-12 * (1.0 + v.abs()));
        }
    }
}

#[test]
fn noslip_refusals_are_precise() {
    let mut m = common::model("noslip", Some(Integrator::Rk4));
    m.opt.noslip_iterations = 5;
    assert_eq!(Support::transition(&m), Support::NoslipRk4);
    let mut d = moreau::Data::new(&m);
    let e = transition(&m, &mut d, &TransitionOptions::analytic()).unwrap_err();
    assert!(e.to_string().contains("noslip"), "{e}");
    let vfs = moreau::Vfs::new();
    let xml = r#"<mujoco><option noslip_iterations="3"/><worldbody>
        <body name="a"><freejoint/><geom size=".1"/></body>
        <body name="b" pos="0 0 1"><freejoint/><geom size=".1"/></body></worldbody>
        <equality><connect body1="a" body2="b" anchor="0 0 .5"/></equality></mujoco>"#;
    let m = moreau::load_from_str(xml, &vfs).unwrap();
    assert_eq!(Support::transition(&m), Support::NoslipRows);
}

/// The zoo's cache (`$MOREAU_ZOO`, else `${XDG_CACHE_HOME:-~/.cache}/moreau/zoo`, as
/// tools/zoo/fetch.py, which CI and tools/test.sh run first).
fn zoo_model(rel: &str) -> Model {
    let dir = std::env::var_os("MOREAU_ZOO")
        .filter(|p| !p.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("XDG_CACHE_HOME")
                .filter(|p| !p.is_empty())
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| {
                    std::path::PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache")
                })
                .join("moreau/zoo")
        });
    let p = dir.join(rel);
    assert!(
        p.is_file(),
        "{} missing: run python3 tools/zoo/fetch.py",
        p.display()
    );
    moreau::load(p.to_str().unwrap()).unwrap()
}

/// dm_control's dog (nv 85, condim-6 pyramidal foot contacts, noslip_iterations 4 in the
/// model): with the solvers converged, analytic A, B against centred FD at settled states.
#[test]
fn dog_against_centred_fd() {
    let mut m = zoo_model("dm_control/suite/dog.xml");
    common::converged_ccd(&mut m);
    m.opt.tolerance = 0.0;
    m.opt.iterations = 100;
    m.opt.ls_iterations = 100;
    m.opt.noslip_iterations = 2000;
    m.opt.noslip_tolerance = 0.0;
    // (seed, settle steps, limit): centred FD is itself the error bound here. Seed 2: FD at
    // eps 1e-6 agrees to 9.8e-9. Seed 3: 8.8e-6 at eps 1e-6, but FD moves by 6e-5–1e-4 between
    // eps 1e-5, 1e-6 and 1e-7 (a stiff foot contact), so its limit is FD's spread. Seed 1
    // (max |A| ≈ 4100) is left out: FD's results there differ by 1 relative between eps 1e-5 and
    // 1e-7, so FD is no reference.
    for (seed, settle, limit) in [(2u64, 250usize, 1e-7), (3, 350, 2e-5)] {
        let d = common::state(&m, common::lcg(seed), settle, 0.0, 0.0);
        assert!(d.nefc > 0, "no contact");
        assert_eq!(Support::transition_at(&m, &d), Support::Covered);
        let (ea, eb, amax) = check(&m, &d);
        eprintln!(
            "dog seed {seed}: ncon {} nefc {}: A {ea:.2e} B {eb:.2e} (max |A| {amax:.1})",
            d.contact.len(),
            d.nefc
        );
        assert!(ea.max(eb) < limit, "seed {seed}: {ea:.2e} {eb:.2e}");
    }
}
