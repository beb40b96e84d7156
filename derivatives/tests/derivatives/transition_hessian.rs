//! The two factorizations of `M + JᵀHJ` in the analytic transition Jacobians: the tree-sparse LᵀDL (every
//! contact on one dof chain: the humanoid on the floor) and the dense Cholesky fallback
//! (contacts between two free bodies: a box stack), each against the dual-number step Jacobian
//! to 1e-10 (relative to the largest entry).

use moreau::{step, Data, Model};
use moreau_derivatives::dual::dual_step_jacobian;
use moreau_derivatives::forward::hessian_tree_sparse;
use moreau_derivatives::{TransitionOptions, Workspace};
use nalgebra::DMatrix;

fn err(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    let s = b.amax().max(1.0);
    (a - b).amax() / s
}

fn load(name: &str) -> Model {
    let p = format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    moreau::load(&p).unwrap()
}

/// Steps `n` times from keyframe 0 (or the default state), or with `first` until constraint
/// rows appear (as `moreau bench`), and forwards.
fn settled(m: &Model, n: usize, first: bool) -> Data<f64> {
    let mut d = Data::new(m);
    if m.nkey > 0 {
        d.reset_keyframe(m, 0).unwrap();
    }
    for _ in 0..n {
        step(m, &mut d);
        if first && d.nefc > 0 {
            break;
        }
    }
    moreau::forward(m, &mut d);
    d
}

/// Analytic vs dual `A`, `B`; the workspace is reused for a second call (same result).
fn check(m: &Model, d: &Data<f64>) -> f64 {
    let mut w = Workspace::default();
    let t = w
        .transition(
            m,
            &mut d.clone(),
            &TransitionOptions::analytic().with_sensors(false),
        )
        .cloned()
        .unwrap();
    let again = w
        .transition(
            m,
            &mut d.clone(),
            &TransitionOptions::analytic().with_sensors(false),
        )
        .cloned()
        .unwrap();
    assert_eq!(t.A, again.A, "workspace reuse changed A");
    assert_eq!(t.B, again.B, "workspace reuse changed B");
    // on an already forwarded state, skipping the forward changes nothing
    let fw = w
        .transition(
            m,
            &mut d.clone(),
            &TransitionOptions::analytic()
                .with_sensors(false)
                .forwarded(),
        )
        .cloned()
        .unwrap();
    assert_eq!(t.A, fw.A, "forwarded variant: A");
    assert_eq!(t.B, fw.B, "forwarded variant: B");
    let (a, b) = dual_step_jacobian(m, d);
    err(&t.A, &a).max(if m.nu > 0 { err(&t.B, &b) } else { 0.0 })
}

/// The humanoid settled on the floor, with the model as compiled: its lower arms' `body_iquat`
/// (two equal principal moments) are MuJoCo 4.0.0's (`zoo_regressions::degenerate_inertia_frames`
/// in the engine tests).
#[test]
fn humanoid_tree_sparse() {
    let m = load("humanoid");
    for (name, q) in MJ_LOWER_ARM_IQUAT {
        let b = m.body_id(name).expect(name);
        let d = (0..4).fold(0.0f64, |e, k| e.max((m.body_iquat[b][k] - q[k]).abs()));
        assert!(
            d < 1e-13,
            "{name}: body_iquat {:?}, MuJoCo {q:?}",
            m.body_iquat[b]
        );
    }
    let d = settled(&m, 3000, true);
    assert!(d.nefc > 0, "humanoid: no contact rows");
    assert!(
        hessian_tree_sparse(&m, &d),
        "humanoid: foot contacts lie on chains"
    );
    let e = check(&m, &d);
    eprintln!("humanoid (nefc {}): A, B vs dual {e:.1e}", d.nefc);
    assert!(e < 1e-10, "humanoid: {e}");
}

/// MuJoCo 4.0.0's `body_iquat` of the humanoid's lower arms (capsule and hand sphere on one
/// axis: any frame turned about that axis is principal).
const MJ_LOWER_ARM_IQUAT: [(&str, [f64; 4]); 2] = [
    (
        "right_lower_arm",
        [
            0.8804762392171492,
            -0.36470519963100084,
            0.27984814233312133,
            -0.11591689595929514,
        ],
    ),
    (
        "left_lower_arm",
        [
            0.8804762392171499,
            0.36470519963100095,
            0.2798481423331215,
            0.1159168959592952,
        ],
    ),
];

/// The same state with the lower arms' inertial frames turned 90° about the arm axis (equally
/// principal). With these frames some entries that the solver's factorizations and products
/// skip when zero are zero in value but not in derivative; num-dual's `==` compares values
/// only, so the skips check `math::exact_zero` (value and derivative parts), else the dual
/// step's `A` is 1.4e-3 off the analytic one and MuJoCo 4.0.0's `mjd_transitionFD`.
#[test]
fn humanoid_turned_frames_dual_step() {
    let mut m = load("humanoid");
    let h = std::f64::consts::FRAC_1_SQRT_2;
    for (name, q) in MJ_LOWER_ARM_IQUAT {
        let b = m.body_id(name).expect(name);
        // q * (90° about the inertial z axis, the arm axis)
        m.body_iquat[b] = [
            h * (q[0] - q[3]),
            h * (q[1] + q[2]),
            h * (q[2] - q[1]),
            h * (q[3] + q[0]),
        ];
    }
    let d = settled(&m, 3000, true);
    let e = check(&m, &d);
    eprintln!(
        "humanoid, turned frames (nefc {}): A, B vs dual {e:.1e}",
        d.nefc
    );
    assert!(e < 1e-10, "humanoid: {e}");
}

#[test]
fn box_stack_dense_fallback() {
    let m = load("box_stack");
    let d = settled(&m, 20, false);
    assert!(
        !hessian_tree_sparse(&m, &d),
        "box_stack: box-box contacts couple two trees"
    );
    let e = check(&m, &d);
    eprintln!("box_stack (nefc {}): A vs dual {e:.1e}", d.nefc);
    assert!(e < 1e-10, "box_stack: {e}");
}
