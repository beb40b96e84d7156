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
