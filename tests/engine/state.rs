//! Unit tests of `moreau::state` (API Reference: integratePos/differentiatePos, subQuat,
//! quatIntegrate and their derivatives, state get/set). Oracle numbers are from MuJoCo 4.0.0.

#![allow(clippy::needless_range_loop)]

use moreau::model::{JointType, Model};
use moreau::pipeline::{
    mjd_quat_integrate, mjd_sub_quat, quat_exp, quat_integrate, quat_log, quat_mul, quat_normalize,
    quat_sub,
};
use moreau::Data;
use moreau::{
    differentiate_pos, get_state, integrate_pos, set_state, state_bits as bits, state_size,
    StateError,
};
use num_dual::Dual64;

/// free (7/6) + ball (4/3) + hinge + slide: nq = 13, nv = 11.
fn joints_model() -> Model {
    Model {
        nq: 13,
        nv: 11,
        njnt: 4,
        jnt_type: vec![
            JointType::Free,
            JointType::Ball,
            JointType::Hinge,
            JointType::Slide,
        ],
        jnt_qposadr: vec![0, 7, 11, 12],
        jnt_dofadr: vec![0, 6, 9, 10],
        ..Default::default()
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

/// Deterministic pseudo-random numbers in [-1, 1).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

fn random_qpos(r: &mut Lcg) -> Vec<f64> {
    let mut q: Vec<f64> = (0..13).map(|_| r.next()).collect();
    for a in [3, 7] {
        let n = quat_normalize(&[q[a], q[a + 1], q[a + 2], q[a + 3]]);
        q[a..a + 4].copy_from_slice(&n);
    }
    q
}

#[test]
fn integrate_differentiate_round_trip() {
    let m = joints_model();
    let mut r = Lcg(7);
    for _ in 0..200 {
        let q1 = random_qpos(&mut r);
        let v: Vec<f64> = (0..11).map(|_| 3.0 * r.next()).collect();
        let h = 0.3 * (r.next() + 1.1);
        let mut q2 = q1.clone();
        integrate_pos(&m, &mut q2, &v, h);
        let mut v2 = vec![0.0; 11];
        differentiate_pos(&m, &mut v2, h, &q1, &q2);
        for k in 0..11 {
            assert!(close(v2[k], v[k], 1e-12), "dof {k}: {} vs {}", v2[k], v[k]);
        }
        // and back: integrate the difference reproduces q2
        let mut q3 = q1.clone();
        integrate_pos(&m, &mut q3, &v2, h);
        for k in 0..13 {
            assert!((q3[k] - q2[k]).abs() < 1e-13);
        }
    }
}

#[test]
fn quat_integrate_matches_mujoco() {
    let qa: [f64; 4] = [
        0.8295613557843402,
        0.3110855084191276,
        -0.20739033894608505,
        0.4147806778921701,
    ];
    let mut q = qa;
    quat_integrate(&mut q, &[0.3, -1.2, 2.0], 0.7);
    let want = [
        0.19873266827027147,
        0.31499562831861805,
        -0.6066056368060434,
        0.7023622157387681,
    ];
    for k in 0..4 {
        assert!((q[k] - want[k]).abs() < 1e-15);
    }
    // unnormalized input is normalized (MuJoCo does the same)
    let mut u = [2.0, 0.0, 0.0, 0.0];
    quat_integrate(&mut u, &[0.0; 3], 1.0);
    assert_eq!(u, [1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn derivatives_match_mujoco_and_finite_differences() {
    let qa: [f64; 4] = [
        0.8295613557843402,
        0.3110855084191276,
        -0.20739033894608505,
        0.4147806778921701,
    ];
    let qb: [f64; 4] = [
        0.7385489458759964,
        -0.12309149097933274,
        0.6154574548966637,
        0.24618298195866548,
    ];
    let r = quat_sub(&qa, &qb);
    let want_r = [0.060455000418591746, -1.8741050129763461, 0.634777504395214];
    for k in 0..3 {
        assert!((r[k] - want_r[k]).abs() < 1e-14);
    }
    let da_mj = [
        0.6502177723319909,
        -0.3275108049936007,
        -0.9336240692508204,
        0.3072666994016133,
        0.9636748911756676,
        -0.13650905456723003,
        0.9404809437255259,
        -0.07605405414863829,
        0.6858898454920654,
    ];
    let (da, db) = mjd_sub_quat(&qa, &qb);
    for i in 0..3 {
        for j in 0..3 {
            assert!((da[i][j] - da_mj[3 * i + j]).abs() < 1e-14);
            assert!((db[i][j] + da_mj[3 * j + i]).abs() < 1e-14);
        }
    }
    // finite differences in the tangent space: r(qa ⊗ exp(ε e_j)), r(qb ⊗ exp(ε e_j))
    let eps = 1e-6;
    for j in 0..3 {
        let mut e = [0.0; 3];
        e[j] = eps;
        let mut em = [0.0; 3];
        em[j] = -eps;
        let fa = |t: &[f64; 3]| quat_sub(&quat_mul(&qa, &quat_exp(t)), &qb);
        let fb = |t: &[f64; 3]| quat_sub(&qa, &quat_mul(&qb, &quat_exp(t)));
        let (ap, am, bp, bm) = (fa(&e), fa(&em), fb(&e), fb(&em));
        for i in 0..3 {
            assert!(((ap[i] - am[i]) / (2.0 * eps) - da[i][j]).abs() < 1e-8);
            assert!(((bp[i] - bm[i]) / (2.0 * eps) - db[i][j]).abs() < 1e-8);
        }
    }

    let v: [f64; 3] = [0.3, -1.2, 2.0];
    let h: f64 = 0.7;
    let (dq, dv, dh) = mjd_quat_integrate(&v, h);
    let dq_mj = [
        -0.057749584872733045,
        0.7780770483976808,
        0.6255086667695183,
        -0.9180733169837777,
        0.20474341872619883,
        -0.33944295121671403,
        -0.39218155245935665,
        -0.5938655060239328,
        0.7025079292545439,
    ];
    let dv_mj = [
        0.6121840601701843,
        0.5298764582217312,
        0.3760982659075111,
        -0.5812050384933245,
        0.7084251481794217,
        -0.08776415531834833,
        -0.2905506321215224,
        -0.2544263798256067,
        0.8909267669228643,
    ];
    for i in 0..3 {
        for j in 0..3 {
            assert!((dq[i][j] - dq_mj[3 * i + j]).abs() < 1e-14);
            assert!((dv[i][j] - dv_mj[3 * i + j]).abs() < 1e-14);
        }
        assert!((dh[i] - v[i]).abs() < 1e-15);
    }
    // finite differences: out(q ⊗ exp δ) and out(v + δ/h) in out's tangent space
    let out = |q: &[f64; 4], v: &[f64; 3], h: f64| {
        let mut q = *q;
        quat_integrate(&mut q, v, h);
        q
    };
    let base = out(&qa, &v, h);
    for j in 0..3 {
        let mut e = [0.0; 3];
        e[j] = eps;
        let qp = out(&quat_mul(&qa, &quat_exp(&e)), &v, h);
        let mut vp = v;
        vp[j] += eps / h; // MuJoCo's Dv is per unit of s = h v
        let vq = out(&qa, &vp, h);
        let rq = quat_sub(&qp, &base);
        let rv = quat_sub(&vq, &base);
        for i in 0..3 {
            assert!((rq[i] / eps - dq[i][j]).abs() < 1e-5);
            assert!((rv[i] / eps - dv[i][j]).abs() < 1e-5);
        }
    }
}

#[test]
fn exp_log_are_smooth_at_zero_for_duals() {
    // d/dt exp(t e_x) at t = 0 is (0, 1/2, 0, 0); d/dt log(exp(t w)) = w
    let t = [Dual64::new(0.0, 1.0), Dual64::from(0.0), Dual64::from(0.0)];
    let q = quat_exp(&t);
    assert!((q[1].eps - 0.5).abs() < 1e-15 && q[0].eps.abs() < 1e-15);
    let w = [0.3, -0.2, 0.7];
    let tw = [
        Dual64::new(0.0, w[0]),
        Dual64::new(0.0, w[1]),
        Dual64::new(0.0, w[2]),
    ];
    let l = quat_log(&quat_exp(&tw));
    for k in 0..3 {
        assert!((l[k].eps - w[k]).abs() < 1e-15 && !l[k].re.is_nan());
    }
}

/// Sizes from MuJoCo 4.0.0's mj_stateSize on a model with nq 12, nv 10, na 1, nu 2, nbody 5,
/// neq 1, nmocap 1.
#[test]
fn state_sizes_and_round_trip() {
    let m = Model {
        nq: 12,
        nv: 10,
        na: 1,
        nu: 2,
        nbody: 5,
        neq: 1,
        nmocap: 1,
        body_mocapid: vec![-1, 0, -1, -1, -1],
        body_pos: vec![[0.0; 3]; 5],
        body_quat: vec![[1.0, 0.0, 0.0, 0.0]; 5],
        qpos0: vec![0.0; 12],
        eq_active0: vec![true],
        ..Default::default()
    };
    let expect = [
        (bits::TIME, 1),
        (bits::QPOS, 12),
        (bits::QVEL, 10),
        (bits::ACT, 1),
        (bits::WARMSTART, 10),
        (bits::CTRL, 2),
        (bits::QFRC_APPLIED, 10),
        (bits::XFRC_APPLIED, 30),
        (bits::EQ_ACTIVE, 1),
        (bits::MOCAP_POS, 3),
        (bits::MOCAP_QUAT, 4),
        (bits::PHYSICS, 23),
        (bits::FULLPHYSICS, 24),
        (bits::USER, 50),
        (bits::INTEGRATION, 84),
    ];
    for (s, n) in expect {
        assert_eq!(state_size(&m, s), Ok(n), "spec {s}");
    }
    assert_eq!(bits::PHYSICS, 16414);
    assert_eq!(bits::FULLPHYSICS, 24607);
    assert_eq!(bits::USER, 8128);
    assert_eq!(bits::INTEGRATION, 32767);
    assert!(state_size(&m, 1 << 15).is_err());

    let mut d: Data<f64> = Data::new(&m);
    let n = 84;
    let s: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 + 1.0).collect();
    let mut s = s;
    s[76] = 0.0; // eq_active
    set_state(&m, &mut d, &s, bits::INTEGRATION).unwrap();
    assert!(!d.eq_active[0]);
    let mut out = vec![0.0; n];
    get_state(&m, &d, &mut out, bits::INTEGRATION).unwrap();
    assert_eq!(out, s);
    // a sub-signature reads the same entries in bit order
    let mut phys = vec![0.0; 23];
    get_state(&m, &d, &mut phys, bits::PHYSICS).unwrap();
    assert_eq!(phys[..], s[1..24]);
    assert!(get_state(&m, &d, &mut phys, bits::INTEGRATION).is_err());
}

/// `get_state`/`set_state` with a `Data` made for another model: an error naming the array,
/// not an out-of-bounds panic; a state element the two models share in size still works.
#[test]
fn state_rejects_data_of_another_model() {
    let load =
        |n: &str| moreau::load(format!("{}/models/{n}.xml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let (small, big) = (load("cartpole"), load("humanoid"));
    let mut d = Data::<f64>::new(&small);
    let n = state_size(&big, bits::PHYSICS).unwrap();
    let s = vec![0.0; n];
    let e = set_state(&big, &mut d, &s, bits::PHYSICS).unwrap_err();
    assert_eq!(
        e,
        StateError::DataMismatch {
            field: "qpos",
            expected: big.nq,
            got: small.nq
        }
    );
    assert!(e.to_string().contains("qpos"), "{e}");
    let mut out = vec![0.0; n];
    assert!(matches!(
        get_state(&big, &d, &mut out, bits::QVEL),
        Err(StateError::DataMismatch { field: "qvel", .. })
    ));
    // time has one entry in every model
    set_state(&big, &mut d, &[0.25], bits::TIME).unwrap();
    assert_eq!(d.time, 0.25);
}
