//! Collocation with MuJoCo's affine-bias actuators and `forcerange` (documentation, "Actuation
//! model": force `gain·u + biasprm[0] + biasprm[1]·length + biasprm[2]·velocity`, clamped to
//! `forcerange` when `forcelimited`):
//! - on an engine rollout (position servo with kp and kv, a general affine-bias actuator with a
//!   gear, a force-limited motor, one unactuated joint) the dynamics residual vanishes and the
//!   controls and forces are the engine's;
//! - the same on the unchanged Menagerie Go1 (position servos, `forcerange`, soft contacts,
//!   friction loss, a free base) standing from its `home` keyframe;
//! - the residual Jacobian (with `∂bias/∂q`, `∂bias/∂v` and the force-range rows active) against
//!   central differences of the residuals, and the Newton gradient and Hessian against central
//!   differences of the objective and of the gradient;
//! - models outside the supported actuators are refused with an error.

use moreau::Data;
use moreau_optim::collocation::{Collocation, Evaluation, StateTracking, Weights};

/// Four hinges in a vertical plane with damping and armature (Euler's implicit damping, so
/// `invdiscrete` matters); `j4` is unactuated.
const ARM: &str = r#"
<mujoco>
  <option timestep="0.01"/>
  <default>
    <joint type="hinge" axis="0 1 0" damping="0.3" armature="0.02"/>
    <geom type="capsule" size="0.03" density="800"/>
  </default>
  <worldbody>
    <body pos="0 0 1">
      <joint name="j1"/>
      <geom fromto="0 0 0 0.3 0 0"/>
      <body pos="0.3 0 0">
        <joint name="j2"/>
        <geom fromto="0 0 0 0.25 0 0"/>
        <body pos="0.25 0 0">
          <joint name="j3"/>
          <geom fromto="0 0 0 0.2 0 0"/>
          <body pos="0.2 0 0">
            <joint name="j4" damping="0.05"/>
            <geom fromto="0 0 0 0.15 0 0"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position name="servo" joint="j1" kp="40" kv="1.5" ctrlrange="-1.5 1.5" forcerange="-30 30"/>
    <general name="affine" joint="j2" gear="2" gainprm="3" biastype="affine"
             biasprm="0.4 -5 -0.3" ctrlrange="-2 2"/>
    <motor name="motor" joint="j3" gear="-1.5" ctrlrange="-4 4" forcerange="-5 5"/>
  </actuator>
</mujoco>"#;

fn arm() -> moreau::Model {
    moreau::load_from_str(ARM, &moreau::Vfs::default()).expect("model")
}

fn problem(m: moreau::Model, horizon: usize, q0: Vec<f64>, v0: Vec<f64>) -> Collocation {
    build(m, horizon, q0, v0).expect("problem")
}

/// Tracking of `q0` at rest (`qf` 10 at the end), control weight 0.1, dynamics 5, limits 30.
fn build(
    m: moreau::Model,
    horizon: usize,
    q0: Vec<f64>,
    v0: Vec<f64>,
) -> Result<Collocation, String> {
    let (nv, nu) = (m.nv, m.nu);
    let task = StateTracking {
        qref: q0.clone(),
        vref: vec![0.0; nv],
        q: vec![1.0; 2 * nv],
        qf: vec![10.0; 2 * nv],
        dt: m.opt.timestep,
    };
    let weights = Weights {
        control: vec![0.1; nu],
        dynamics: 5.0,
        limits: 30.0,
    };
    Collocation::new(m, horizon, q0, v0, Box::new(task), weights)
}

/// Rolls out the engine for `horizon` steps under `ctrl(t)`: the configurations `q₁ … q_T`
/// (flat), the controls and the engine's `actuator_force` of each step.
fn rollout(
    m: &moreau::Model,
    d: &mut Data,
    horizon: usize,
    ctrl: impl Fn(usize) -> Vec<f64>,
) -> (Vec<f64>, Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let (mut z, mut us, mut fs) = (vec![], vec![], vec![]);
    for t in 0..horizon {
        d.ctrl.copy_from_slice(&ctrl(t));
        moreau::step(m, d);
        us.push(d.ctrl.clone());
        fs.push(d.actuator_force.clone());
        z.extend_from_slice(&d.qpos);
    }
    (z, us, fs)
}

/// Largest differences of the evaluated controls and forces from the engine's, and the largest
/// engine force.
fn against_engine(ev: &Evaluation, us: &[Vec<f64>], fs: &[Vec<f64>]) -> (f64, f64, f64) {
    let (mut du, mut df, mut fmax): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for t in 0..us.len() {
        for k in 0..us[t].len() {
            du = du.max((ev.u[t][k] - us[t][k]).abs());
            df = df.max((ev.force[t][k] - fs[t][k]).abs());
            fmax = fmax.max(fs[t][k].abs());
        }
    }
    (du, df, fmax)
}

#[test]
fn affine_bias_residual_vanishes_on_an_engine_rollout() {
    let m = arm();
    let mut d = Data::new(&m);
    let q0 = vec![0.3, -0.4, 0.5, 0.2];
    let v0 = vec![0.5, -0.3, 0.2, 0.1];
    d.qpos.copy_from_slice(&q0);
    d.qvel.copy_from_slice(&v0);
    let horizon = 60;
    let ctrl = |t: usize| {
        let s = t as f64 * 0.01;
        vec![
            0.8 * (3.0 * s).sin(),
            1.2 * (2.0 * s).cos(),
            2.5 * (5.0 * s).sin(),
        ]
    };
    let (z, us, fs) = rollout(&m, &mut d, horizon, ctrl);
    let c = problem(m, horizon, q0, v0);
    assert_eq!(c.nr(), 1, "j4 is the only unactuated direction");
    let ev = c.evaluate(&z);
    let (du, df, fmax) = against_engine(&ev, &us, &fs);
    println!(
        "defect {:e}, control error {du:e}, force error {df:e} (forces up to {fmax})",
        ev.max_defect()
    );
    // forces inside forcerange on this rollout: the clamp is inactive, nothing is penalized
    assert!(fmax > 5.0, "the servo works: forces up to {fmax}");
    assert_eq!(ev.limit_cost, 0.0);
    // round-off of v = Δq/h and a = Δv/h (h = 0.01) at forces of order 10
    assert!(ev.max_defect() < 1e-9, "defect {:e}", ev.max_defect());
    assert!(du < 1e-9, "controls differ from the engine's by {du:e}");
    assert!(df < 1e-9, "forces differ from the engine's by {df:e}");
}

#[test]
fn go1_standing_rollout_has_zero_residual() {
    let mut m = moreau_optim::zoo::load(moreau_optim::zoo::GO1).expect("public zoo's Go1");
    let key = m.key_name.iter().position(|k| k == "home").expect("home");
    let q0 = m.key_qpos[key].clone();
    // The forward solve to convergence (the model's `tolerance` 1e-8 stops Newton early on
    // this robot, cone elliptic with impratio 100: MuJoCo 4.0.0's own `mj_inverse` then leaves
    // a 2.3 N base residual on this rollout, 1e-11 N with tolerance 0 and 10⁴ iterations). The
    // inverse dynamics does not iterate: only the rollout is affected.
    m.opt.tolerance = 0.0;
    m.opt.iterations = 1000;
    let mut d = Data::new(&m);
    d.qpos.copy_from_slice(&q0);
    let home: Vec<f64> = q0[7..].to_vec();
    let horizon = 100;
    // a squat and back: servo targets 0.15 rad off home on the hips and knees
    let ctrl = |t: usize| {
        let s = (std::f64::consts::PI * t as f64 / horizon as f64).sin();
        let mut u = home.clone();
        for leg in 0..4 {
            u[3 * leg + 1] += 0.15 * s;
            u[3 * leg + 2] -= 0.15 * s;
        }
        u
    };
    let (z, us, fs) = rollout(&m, &mut d, horizon, ctrl);
    let ncon = d.contact.len();
    let c = problem(m, horizon, q0, vec![0.0; 18]);
    assert_eq!(c.nr(), 6, "the free base is unactuated");
    let ev = c.evaluate(&z);
    let (du, df, fmax) = against_engine(&ev, &us, &fs);
    println!(
        "Go1: {ncon} contacts at the end, defect {:e}, control error {du:e}, force error {df:e} \
         (forces up to {fmax} N·m)",
        ev.max_defect()
    );
    assert!(ncon >= 4, "standing on its feet");
    // what the forward solve leaves after 1000 iterations (5.3e-7 N; 1.6e-7 N at 10⁴), against
    // a weight of 118 N; the controls are force/kp
    assert!(ev.max_defect() < 2e-6, "defect {:e}", ev.max_defect());
    assert!(df < 2e-6, "forces differ from the engine's by {df:e}");
    assert!(du < 2e-8, "controls differ from the engine's by {du:e}");
}

/// A point off the rollout where the servo's and the motor's forces exceed their ranges and
/// the affine actuator's control exceeds its ctrlrange, with non-zero multipliers.
fn saturated_point(horizon: usize) -> (Collocation, Vec<f64>) {
    perturbed_point(horizon, 1.0)
}

/// [`saturated_point`] with the perturbation of the configurations scaled by `amp`.
fn perturbed_point(horizon: usize, amp: f64) -> (Collocation, Vec<f64>) {
    let m = arm();
    let q0 = vec![0.3, -0.4, 0.5, 0.2];
    let c = problem(m, horizon, q0.clone(), vec![0.5, -0.3, 0.2, 0.1]);
    let n = c.n_vars();
    let x: Vec<f64> = (0..n)
        .map(|i| amp * (0.4 * ((i as f64) * 1.3).sin() + 0.02 * i as f64))
        .collect();
    let z = c.retract(&c.initial_guess(), &x, 1.0);
    for (i, l) in c.multipliers.borrow_mut().iter_mut().enumerate() {
        *l = (i as f64 * 0.7).cos();
    }
    (c, z)
}

#[test]
fn residual_jacobian_with_bias_and_force_range_matches_central_differences() {
    let (c, z) = saturated_point(8);
    let ev = c.evaluate(&z);
    let (mut over_f, mut over_u) = (0, 0);
    for t in 0..c.horizon {
        over_f += (ev.force[t][0].abs() > 30.0) as usize + (ev.force[t][2].abs() > 5.0) as usize;
        over_u += (ev.u[t][1].abs() > 2.0) as usize;
    }
    assert!(
        over_f > 0 && over_u > 0,
        "force {over_f} and control {over_u} rows active"
    );
    let j = c.dense_jacobian(&z);
    let fd = c.fd_jacobian(&z, 1e-6);
    let scale = j.amax();
    let err = (&j - &fd).amax();
    println!(
        "{over_f} force-range and {over_u} ctrlrange rows active; |J − J_fd| {err:e} of {scale:e}"
    );
    // Can fail: without ∂bias/∂q the affine actuator's control rows would be off by
    // √(h·0.1)·5·2/3 = 0.105 (and its ctrlrange rows by √30·5·2/3 = 18), the tolerance is 7.4e-4.
    assert!(err < 1e-8 * scale, "Jacobian error {err:e} of {scale:e}");
}

/// LM's model of the limit rows past their kinks ([`Collocation::hinge_model_correction`])
/// needs each one-sided row's argument derivative `∂x/∂δ` also where the row is inactive (its
/// Jacobian row is 0 there). Checked against the residual Jacobian of the same arm with every
/// range shrunk to ±1e-9 (all rows active, so each row is `√w_lim · ∂x/∂δ`; that Jacobian is
/// checked against central differences above), at a point off the rollout where some rows are
/// active and some are not (the saturated point scaled down until both kinds occur); and the
/// rows' indices and arguments against the residual (`r = √w_lim · excess(x)`). The correction
/// is zero at the zero step and, for a small step that moves no row across its kink, zero too.
#[test]
fn limit_rows_keep_their_argument_derivatives_where_inactive() {
    let horizon = 6;
    let mixed = |(c, z): &(Collocation, Vec<f64>)| {
        let ev = c.evaluate(z);
        let (mut a, mut i) = (0, 0);
        for t in 0..horizon {
            for (k, lim) in [(0, 30.0), (2, 5.0)] {
                if ev.force[t][k].abs() > lim {
                    a += 1;
                } else {
                    i += 1;
                }
            }
        }
        a > 0 && i > 0
    };
    let (c, z) = [1.0, 0.5, 0.3, 0.2, 0.1, 0.05, 0.02]
        .into_iter()
        .map(|amp| perturbed_point(horizon, amp))
        .find(mixed)
        .expect("a point with active and inactive force-range rows");
    let (ev, blocks) = c.jacobian(&z);
    let mut tight = arm();
    for k in 0..tight.nu {
        tight.actuator_forcerange[k] = [-1e-9, 1e-9];
        tight.actuator_ctrlrange[k] = [-1e-9, 1e-9];
    }
    let q0 = vec![0.3, -0.4, 0.5, 0.2];
    let ct = problem(tight, horizon, q0, vec![0.5, -0.3, 0.2, 0.1]);
    ct.multipliers
        .borrow_mut()
        .copy_from_slice(&c.multipliers.borrow());
    let (_, bt) = ct.jacobian(&z);
    let sl = c.weights.limits.sqrt();
    let (mut active, mut inactive, mut err, mut scale) = (0, 0, 0.0f64, 0.0f64);
    for (b, btt) in blocks.iter().zip(&bt) {
        // per knot: the ctrllimited controls (3), then the forcelimited forces (2); no limited
        // joints
        assert_eq!(b.hinge.len(), btt.hinge.len());
        for (i, h) in b.hinge.iter().enumerate() {
            let outside = h.x < h.range[0] || h.x > h.range[1];
            let excess = if outside {
                h.x - h.x.clamp(h.range[0], h.range[1])
            } else {
                0.0
            };
            assert_eq!(ev.r[h.row], h.scale * excess, "row {}", h.row);
            assert_eq!(btt.hinge[i].x, h.x);
            let local = h.row - b.row;
            if outside {
                active += 1;
            } else {
                inactive += 1;
            }
            for col in 0..b.hinge_mat.ncols() {
                let a = b.hinge_mat[(i, col)];
                let want = btt.mat[(local, col)] / sl;
                err = err.max((a - want).abs());
                scale = scale.max(want.abs());
                if outside {
                    // active: the row's own Jacobian entry is √w_lim times the argument's
                    // (to the last bit: the products are associated differently)
                    let j = b.mat[(local, col)];
                    assert!(
                        (j - sl * a).abs() <= 4.0 * f64::EPSILON * j.abs(),
                        "{j} {a}"
                    );
                } else {
                    assert_eq!(b.mat[(local, col)], 0.0);
                }
            }
        }
    }
    println!(
        "{active} active and {inactive} inactive limit rows; |a − a_tight| {err:e} of {scale:e}"
    );
    assert!(active > 0 && inactive > 0);
    assert!(err <= 1e-12 * scale, "{err:e} of {scale:e}");
    let n = c.n_vars();
    let delta: Vec<f64> = (0..n).map(|i| ((i as f64) * 0.37).cos()).collect();
    assert_eq!(c.hinge_model_correction(&ev, &blocks, &delta, 0.0), 0.0);
    // far from every kink (all rows inside, or all outside: the tight model), a small step
    // crosses none and the model is the plain one
    let et = ct.evaluate(&z);
    assert_eq!(ct.hinge_model_correction(&et, &bt, &delta, 1e-12), 0.0);
    assert_eq!(c.hinge_model_correction(&ev, &blocks, &delta, 1e-12), 0.0);
    // a step that takes rows across their kinks: the correction is what the rows' own
    // penalties give, ½(√w_lim·excess(x + s·aδ))² − ½(r + s·Jδ)² summed by hand here
    let s = 1e-1;
    let n = c.n_config_vars();
    let nv = c.model.nv;
    let (mut want, mut crossed) = (0.0, 0);
    for (t, b) in blocks.iter().enumerate() {
        for (i, h) in b.hinge.iter().enumerate() {
            let local = h.row - b.row;
            let (mut ad, mut jd) = (0.0, 0.0);
            for col in 0..3 * nv {
                let gi = (t * nv + col) as isize - 2 * nv as isize;
                if gi >= 0 && (gi as usize) < n {
                    ad += s * b.hinge_mat[(i, col)] * delta[gi as usize];
                    jd += s * b.mat[(local, col)] * delta[gi as usize];
                }
            }
            let x1 = h.x + ad;
            let e1 = x1 - x1.clamp(h.range[0], h.range[1]);
            let was = h.x < h.range[0] || h.x > h.range[1];
            let is = x1 < h.range[0] || x1 > h.range[1];
            crossed += (was != is) as usize;
            want += 0.5 * ((h.scale * e1).powi(2) - (ev.r[h.row] + jd).powi(2));
        }
    }
    let got = c.hinge_model_correction(&ev, &blocks, &delta, s);
    println!("{crossed} rows cross their kink: correction {got:e}, by hand {want:e}");
    assert!(crossed > 0);
    assert!((got - want).abs() <= 1e-9 * want.abs(), "{got:e} {want:e}");
}

#[test]
fn newton_gradient_and_hessian_with_bias_and_force_range_match_finite_differences() {
    let (c, z) = saturated_point(5);
    c.second_order.set(true);
    let e = crate::common::newton_errors(&c, &z, 1e-5);
    let (gerr, gmax, herr, hmax) = (e.grad, e.grad_max, e.hess, e.hess_max);
    println!("gradient err {gerr:e} of {gmax:e}, Hessian err {herr:e} of {hmax:e}");
    // measured 9e-12 and 3.2e-11 relative
    assert!(gerr < 1e-9 * gmax);
    assert!(herr < 1e-9 * hmax);
}

#[test]
fn unsupported_actuators_are_refused() {
    let bad = |xml: &str| {
        let m = moreau::load_from_str(xml, &moreau::Vfs::default()).expect("model");
        let (nq, nv) = (m.nq, m.nv);
        match build(m, 4, vec![0.0; nq], vec![0.0; nv]) {
            Ok(_) => "accepted".to_string(),
            Err(e) => e,
        }
    };
    let zero_gain = ARM.replace(r#"gainprm="3""#, r#"gainprm="0""#);
    let e = bad(&zero_gain);
    assert!(e.contains("gain 0"), "{e}");
    let filter = ARM.replace(r#"kv="1.5""#, r#"kv="1.5" timeconst="0.05""#);
    let e = bad(&filter);
    assert!(e.contains("activation dynamics"), "{e}");
}
