//! Repeated finite-difference calls with one [`FdWorkspace`] allocate nothing (counting global
//! allocator; alone in its test binary so no other test thread allocates meanwhile).

use crate::alloc_counter;
use alloc_counter::allocations;
use moreau::model::Integrator;
use moreau::Data;
use moreau_derivatives::fd::FdWorkspace;
use moreau_derivatives::{transition, TransitionOptions};

fn root() -> String {
    format!("{}/..", env!("CARGO_MANIFEST_DIR"))
}

/// Repeated calls with one workspace allocate nothing (every integrator, with activations,
/// sensors and quaternions).
#[test]
fn workspace_calls_do_not_allocate() {
    for name in ["arm7", "zoo2", "free_body"] {
        let path = format!("{}/models/{name}.xml", root());
        let mut m = moreau::load(&path).unwrap();
        for integ in [
            Integrator::Euler,
            Integrator::ImplicitFast,
            Integrator::Implicit,
            Integrator::Rk4,
        ] {
            m.opt.integrator = integ;
            let mut d = Data::<f64>::new(&m);
            d.reset_keyframe(&m, 0).unwrap();
            d.ctrl.iter_mut().for_each(|c| *c = 0.1);
            let mut ws = FdWorkspace::new(&m);
            ws.transition(&m, &mut d, 1e-6, true);
            ws.inverse(&m, &mut d, 1e-6, true, true);
            let before = allocations();
            for _ in 0..2 {
                ws.transition(&m, &mut d, 1e-6, false);
                ws.transition(&m, &mut d, 1e-6, true);
                ws.inverse(&m, &mut d, 1e-6, false, false);
                ws.inverse(&m, &mut d, 1e-6, true, true);
            }
            let n = allocations() - before;
            assert_eq!(n, 0, "{name} {integ:?}: {n} allocations");
        }
    }
    // the convenience function agrees with the workspace
    let m = moreau::load(format!("{}/models/cartpole.xml", root())).unwrap();
    let mut d = Data::<f64>::new(&m);
    let a = transition(&m, &mut d, &TransitionOptions::fd(1e-6, false))
        .unwrap()
        .A;
    let mut ws = FdWorkspace::new(&m);
    assert_eq!(a, ws.transition(&m, &mut d, 1e-6, false).A);
}

/// The derivative of the clamped tendon actuator forces (`d_tendon_actfrc_vel`, part of the
/// analytic transition) works in the scratch its caller keeps: a second call allocates
/// nothing. The clamped state of `tendon_actfrc_clamp` (three actuators on a fixed tendon,
/// two on a spatial one, all clamped), whose derivative is nonzero.
#[test]
fn clamped_tendon_derivative_keeps_its_scratch() {
    let path = format!("{}/tests/reference/tendon_actfrc_cases.json", root());
    let refs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let m = moreau::load_from_str(refs["xml"].as_str().unwrap(), &moreau::Vfs::default()).unwrap();
    let mut d = Data::new(&m);
    d.qpos.copy_from_slice(&[0.2, -0.3, 0.05]);
    d.qvel.copy_from_slice(&[0.2, -0.1, 0.02]);
    d.act.copy_from_slice(&[0.6]);
    for (c, x) in d
        .ctrl
        .iter_mut()
        .zip([1.0, 0.5, -0.4, 0.7, -0.6, 0.2, 1.0, 0.3])
    {
        *c = 2.0 * x;
    }
    moreau::forward(&m, &mut d);
    let nv = m.nv;
    let (mut out, mut scratch) = (vec![0.0; nv * nv], Vec::new());
    moreau::pipeline::d_tendon_actfrc_vel(&m, &d, &mut out, &mut scratch);
    let first = out.clone();
    assert!(first.iter().any(|&x| x != 0.0));
    out.iter_mut().for_each(|x| *x = 0.0);
    let before = allocations();
    moreau::pipeline::d_tendon_actfrc_vel(&m, &d, &mut out, &mut scratch);
    let n = allocations() - before;
    assert_eq!(n, 0, "{n} allocations");
    assert_eq!(out, first);
}
