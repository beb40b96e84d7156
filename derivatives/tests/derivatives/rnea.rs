//! Analytic `∂(M a + c − springs − gravcomp − Jᵀ xfrc)/∂q` and `∂M/∂q` (`derivatives/src/rne.rs`) against
//! exact dual-number derivatives (the same pipeline on `Dual64`, one seeded tangent direction
//! per pass) at random states, velocities, accelerations, applied forces, joint springs
//! (random stiffness polynomials and spring positions) and gravity compensation, on the
//! project models (every joint type: hinge, slide, ball, free; bodies with several joints).
//! Error: `max |a − b| / max(1, max |b|)`, asserted ≤ 1e-10 (both sides are exact up to
//! round-off).

use moreau::model::disable;
use moreau::pipeline::{fwd_acceleration, fwd_actuation, fwd_position, fwd_velocity, rne};
use moreau::{integrate_pos, Data, Model};
use moreau_derivatives::dual::{lift, seed};
use moreau_derivatives::rne::{d_mass_pos, d_smooth_pos, Terms};
use moreau_derivatives::Work;
use nalgebra::DMatrix;
use proptest::prelude::*;

fn err(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    assert_eq!(a.shape(), b.shape());
    (a - b).amax() / b.amax().max(1.0)
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Model without contacts (the constraint terms are not part of [`d_smooth_pos`]), with random
/// joint springs and gravcomp.
fn model(name: &str, r: &mut Rng) -> Model {
    let p = format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    let mut m = moreau::load(&p).unwrap();
    m.opt.disableflags |= disable::CONSTRAINT;
    for j in 0..m.njnt {
        m.jnt_stiffness[j] = 2.0 + r.next();
        m.jnt_stiffnesspoly[j] = [0.5 * r.next(), 0.3 * r.next()];
    }
    for x in m.qpos_spring.iter_mut() {
        *x += 0.3 * r.next();
    }
    for b in 1..m.nbody {
        m.body_gravcomp[b] = if r.next() > 0.0 { r.next() } else { 0.0 };
    }
    m
}

fn state(m: &Model, r: &mut Rng) -> Data<f64> {
    let mut d = Data::new(m);
    if m.nkey > 0 {
        d.reset_keyframe(m, 0).unwrap();
    }
    let dq: Vec<f64> = (0..m.nv).map(|_| r.next()).collect();
    integrate_pos(m, &mut d.qpos, &dq, 1.0);
    for i in 0..m.nv {
        d.qvel[i] = 2.0 * r.next();
        d.qacc[i] = 3.0 * r.next();
    }
    for b in 1..m.nbody {
        for k in 0..6 {
            d.xfrc_applied[b][k] = r.next();
        }
    }
    fwd_position(m, &mut d);
    fwd_velocity(m, &mut d);
    d
}

/// Dual reference: `(∂τ/∂q rows outputs, ∂qM/∂q rows directions)`.
fn dual_ref(m: &Model, d: &Data<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
    let nv = m.nv;
    let mut jt = DMatrix::zeros(nv, nv);
    let mut jm = DMatrix::zeros(nv, m.nM);
    let mut tau = vec![num_dual::Dual64::from(0.0); nv];
    for j in 0..nv {
        let mut dd = lift(m, d);
        seed(m, &mut dd, j);
        fwd_position(m, &mut dd);
        fwd_velocity(m, &mut dd);
        fwd_actuation(m, &mut dd);
        fwd_acceleration(m, &mut dd);
        rne(m, &mut dd, true, &mut tau);
        for k in 0..nv {
            // xfrc map = smooth − passive + bias − applied − actuator
            let x = dd.qfrc_smooth[k] - dd.qfrc_passive[k] + dd.qfrc_bias[k]
                - dd.qfrc_applied[k]
                - dd.qfrc_actuator[k];
            let t = tau[k] - dd.qfrc_spring[k] - dd.qfrc_gravcomp[k] - x;
            jt[(k, j)] = t.eps;
        }
        for k in 0..m.nM {
            jm[(j, k)] = dd.qM[k].eps;
        }
    }
    (jt, jm)
}

fn check(name: &str, rseed: u64) {
    let mut r = Rng(rseed);
    let m = model(name, &mut r);
    assert!(m.jnt_actgravcomp.iter().all(|x| !x));
    let d = state(&m, &mut r);
    let (rt, rm) = dual_ref(&m, &d);
    let mut w = Work::default();
    let mut at = DMatrix::zeros(m.nv, m.nv);
    let terms = Terms {
        springs: true,
        gravcomp: true,
        xfrc: true,
    };
    d_smooth_pos(&m, &d, Some(&d.qacc), terms, &mut w, &mut at);
    let mut am = DMatrix::zeros(m.nv, m.nM);
    d_mass_pos(&m, &d, &mut w, &mut am);
    let (et, em) = (err(&at, &rt), err(&am, &rm));
    eprintln!(
        "{name} seed {rseed}: nv {} |dτ/dq| {:.1e} err {et:.1e}; |dM/dq| {:.1e} err {em:.1e}",
        m.nv,
        rt.amax(),
        rm.amax()
    );
    assert!(et < 1e-10, "{name}: dτ/dq {et}");
    assert!(em < 1e-10, "{name}: dM/dq {em}");
    // ∂(M x)/∂q against the dual ∂M/∂q contracted with x
    let x: Vec<f64> = (0..m.nv).map(|_| r.next()).collect();
    let mut amx = DMatrix::zeros(m.nv, m.nv);
    moreau_derivatives::rne::d_mass_vec_pos(&m, &d, &x, &mut w, &mut amx);
    let mut rmx = DMatrix::zeros(m.nv, m.nv);
    let mut dense = vec![0.0; m.nv * m.nv];
    for j in 0..m.nv {
        let row: Vec<f64> = rm.row(j).iter().copied().collect();
        moreau::full_m(&m, &row, &mut dense);
        for k in 0..m.nv {
            rmx[(k, j)] = (0..m.nv).map(|l| dense[k * m.nv + l] * x[l]).sum::<f64>();
        }
    }
    let emx = err(&amx, &rmx);
    assert!(emx < 1e-10, "{name}: d(Mx)/dq {emx}");
    // the fused sweep gives both against the same dual references
    let (mut ft, mut fmx) = (DMatrix::zeros(m.nv, m.nv), DMatrix::zeros(m.nv, m.nv));
    moreau_derivatives::rne::d_smooth_mass_pos(
        &m,
        &d,
        Some(&d.qacc),
        terms,
        &x,
        &mut w,
        &mut ft,
        &mut fmx,
    );
    let (eft, efmx) = (err(&ft, &rt), err(&fmx, &rmx));
    assert!(eft < 1e-10, "{name}: fused dτ/dq {eft}");
    assert!(efmx < 1e-10, "{name}: fused d(Mx)/dq {efmx}");
    // without qacc and the optional terms: the bias alone
    let mut bt = DMatrix::zeros(m.nv, m.nv);
    d_smooth_pos(&m, &d, None, Terms::default(), &mut w, &mut bt);
    let mut rb = DMatrix::zeros(m.nv, m.nv);
    for j in 0..m.nv {
        let mut dd = lift(&m, &d);
        seed(&m, &mut dd, j);
        fwd_position(&m, &mut dd);
        fwd_velocity(&m, &mut dd);
        for k in 0..m.nv {
            rb[(k, j)] = dd.qfrc_bias[k].eps;
        }
    }
    let eb = err(&bt, &rb);
    assert!(eb < 1e-10, "{name}: dbias/dq {eb}");
    // ∂qfrc_bias/∂qvel against duals
    let mut dvb = vec![0.0; m.nv * m.nv];
    moreau_derivatives::rne::d_bias_vel(&m, &d, &mut w, &mut dvb);
    let av = DMatrix::from_row_slice(m.nv, m.nv, &dvb);
    let mut rv = DMatrix::zeros(m.nv, m.nv);
    for j in 0..m.nv {
        let mut dd = lift(&m, &d);
        dd.qvel[j].eps = 1.0;
        fwd_position(&m, &mut dd);
        fwd_velocity(&m, &mut dd);
        for k in 0..m.nv {
            rv[(k, j)] = dd.qfrc_bias[k].eps;
        }
    }
    let ev = err(&av, &rv);
    assert!(ev < 1e-10, "{name}: dbias/dv {ev}");
}

const MODELS: &[&str] = &[
    "pendulum",
    "double_pendulum",
    "acrobot",
    "cartpole",
    "arm7",
    "ball_pendulum",
    "free_body",
    "capsule_chain",
    "hopper_leg",
    "quadruped",
    "humanoid",
    "zoo",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, failure_persistence: None, rng_seed: proptest::test_runner::RngSeed::Fixed(0x726e6561), ..ProptestConfig::default() })]
    #[test]
    fn rnea_pos_vs_dual(seed in any::<u64>()) {
        for name in MODELS {
            check(name, seed);
        }
    }
}

/// Forward-dynamics `∂qacc/∂x` (analytic, IFT) against duals on models without contacts whose
/// actuators are position servos (force `kp (u − L)` depends on `q` through the length), with
/// joint springs and gravcomp: exercises [`moreau_derivatives::inverse_pos`] without the residual
/// pass, and the closed-form step maps of the transition Jacobians.
#[test]
fn forward_servo_no_contact() {
    use moreau::model::{BiasType, GainType};
    use moreau_derivatives::dual::{dual_forward_jacobian, dual_step_jacobian};
    use moreau_derivatives::forward::forward_analytic;
    use moreau_derivatives::{transition, TransitionOptions};
    for (name, seed) in [
        ("arm7", 3u64),
        ("cartpole", 5),
        ("humanoid", 7),
        ("quadruped", 11),
    ] {
        let mut r = Rng(seed);
        let mut m = model(name, &mut r);
        for i in 0..m.nu {
            let kp = 3.0 + r.next();
            m.actuator_gaintype[i] = GainType::Fixed;
            m.actuator_gainprm[i][0] = kp;
            m.actuator_biastype[i] = BiasType::Affine;
            m.actuator_biasprm[i][0] = 0.1 * r.next();
            m.actuator_biasprm[i][1] = -kp;
            m.actuator_biasprm[i][2] = -0.5;
        }
        let mut d = state(&m, &mut r);
        for u in d.ctrl.iter_mut() {
            *u = r.next();
        }
        moreau::forward(&m, &mut d);
        let d0 = d.clone();
        let fa = forward_analytic(&m, &mut d).unwrap();
        let fd = dual_forward_jacobian(&m, &d0);
        let e = err(&fa, &fd);
        let mut dt = d0.clone();
        let t = transition(
            &m,
            &mut dt,
            &TransitionOptions::analytic().with_sensors(false),
        )
        .unwrap();
        let (a, b) = dual_step_jacobian(&m, &d0);
        let (ea, eb) = (err(&t.A, &a), err(&t.B, &b));
        eprintln!("{name}: forward {e:.1e} A {ea:.1e} B {eb:.1e}");
        assert!(
            e < 1e-10 && ea < 1e-10 && eb < 1e-10,
            "{name}: {e} {ea} {eb}"
        );
    }
}
