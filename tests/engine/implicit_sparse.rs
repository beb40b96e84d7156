//! `qDeriv` and `qLU` on MuJoCo's dof-dof sparsity `D` (the pairs of dofs of which one is the
//! other or its ancestor):
//! - the pattern (`nD`, `D_rownnz`, `D_rowadr`, `D_colind`, `D_diag`) equals MuJoCo 4.0.0's on a
//!   branching model (its values printed by `mujoco.MjModel` are written below);
//! - `smooth_vel` stores exactly (bit for bit) the entries on `D` of the dense sum of the public
//!   dense terms (`d_passive_vel + d_actuator_vel − d_rne_vel`), on models with tendon damping
//!   across trees and branches, velocity actuators, fluid forces and free bodies;
//! - the fill-free LU of `M − h qDeriv` (`lu_factor_d`, `lu_solve_d`) solves the dense system
//!   to 1e-12 relative to the right-hand side and the matrix (an independent dense LU with
//!   partial pivoting gives the reference);
//! - `Data`'s `qDeriv` and `qLU` hold `nD` entries, not `nv²`.

use moreau::model::Integrator;
use moreau::pipeline::{
    d_actuator_vel, d_passive_vel, d_rne_vel, full_d, lu_factor_d, lu_solve_d, smooth_vel,
};
use moreau::{forward, load, load_from_str, step, Data, Model, Vfs};

/// Two trees (one branching twice), a fixed tendon with damping over dofs of both trees and of
/// two sibling branches, velocity servos, joint damping, a free body and fluid forces.
const BRANCHED: &str = r#"
<mujoco>
  <option density="1.2" viscosity="0.01" timestep="0.005"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 1">
      <joint name="a" type="hinge" axis="0 1 0" damping="0.3"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04" fluidshape="ellipsoid"/>
      <body pos=".3 0 0">
        <joint name="b" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/>
      </body>
      <body pos="0 0 -.2">
        <joint name="c" type="ball" damping="0.1"/>
        <geom type="box" size=".05 .05 .05"/>
        <body pos="0 0 -.2">
          <joint name="d" type="slide" axis="0 0 1"/>
          <geom type="sphere" size=".05" fluidshape="ellipsoid"/>
        </body>
      </body>
    </body>
    <body pos="1 0 1">
      <joint name="e" type="hinge" axis="1 0 0"/>
      <geom type="capsule" fromto="0 0 0 0 .3 0" size=".04"/>
    </body>
    <body pos="2 0 .3">
      <freejoint/>
      <geom type="ellipsoid" size=".1 .07 .05" fluidshape="ellipsoid"/>
    </body>
  </worldbody>
  <tendon>
    <fixed damping="0.7">
      <joint joint="b" coef="1"/>
      <joint joint="d" coef="-0.5"/>
      <joint joint="e" coef="2"/>
    </fixed>
  </tendon>
  <actuator>
    <velocity joint="b" kv="0.4"/>
    <velocity joint="e" kv="0.2"/>
    <intvelocity joint="a" kp="3" actrange="-1 1"/>
  </actuator>
</mujoco>"#;

fn branched(integ: Integrator) -> Model {
    let mut m = load_from_str(BRANCHED, &Vfs::default()).expect("the branched model compiles");
    m.opt.integrator = integ;
    m
}

/// A state with every velocity and control nonzero, forwarded.
fn moving(m: &Model) -> Data<f64> {
    let mut d = Data::new(m);
    for (i, v) in d.qvel.iter_mut().enumerate() {
        *v = 0.3 * ((i as f64) * 1.7).sin() + 0.1;
    }
    for (i, c) in d.ctrl.iter_mut().enumerate() {
        *c = 0.5 - 0.2 * i as f64;
    }
    for _ in 0..3 {
        step(m, &mut d);
    }
    forward(m, &mut d);
    d
}

/// MuJoCo 4.0.0's `D` pattern of a 5-dof tree (root 0 with children 1 and 2, 3 below 2; 4 a
/// separate tree): `m.nD, m.D_rownnz, m.D_rowadr, m.D_colind, m.D_diag` from `mujoco.MjModel`.
#[test]
fn d_pattern_matches_mujoco() {
    let xml = r#"<mujoco><worldbody>
      <body><joint type="hinge"/><geom size=".1"/>
        <body><joint type="hinge"/><geom size=".1"/></body>
        <body><joint type="hinge"/><geom size=".1"/>
          <body><joint type="slide"/><geom size=".1"/></body></body>
      </body>
      <body><joint type="hinge"/><geom size=".1"/></body>
    </worldbody></mujoco>"#;
    let m = load_from_str(xml, &Vfs::default()).unwrap();
    assert_eq!(m.nD, 13);
    assert_eq!(m.D_rownnz, [4, 2, 3, 3, 1]);
    assert_eq!(m.D_rowadr, [0, 4, 6, 9, 12]);
    assert_eq!(m.D_colind, [0, 1, 2, 3, 0, 1, 0, 2, 3, 0, 2, 3, 4]);
    assert_eq!(m.D_diag, [0, 1, 1, 2, 0]);
    let d: Data<f64> = Data::new(&m);
    assert_eq!((d.qDeriv.len(), d.qLU.len()), (13, 13));
}

/// `smooth_vel`'s sparse `qDeriv` against the dense terms summed as before (bitwise on `D`).
#[test]
fn qderiv_equals_dense_terms_on_d() {
    let mut models = vec![
        ("branched", branched(Integrator::Implicit)),
        ("branched fast", branched(Integrator::ImplicitFast)),
    ];
    for name in ["humanoid", "tendon_velocity", "fluid_swimmer", "cheetah"] {
        let path = format!("{}/models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
        let mut m = load(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        m.opt.integrator = Integrator::Implicit;
        models.push((name, m));
    }
    for (name, m) in &models {
        let nv = m.nv;
        assert_eq!(m.nD, 2 * m.nM - nv, "{name}: nD");
        let mut d = moving(m);
        for with_rne in [false, true] {
            smooth_vel(m, &mut d, with_rne);
            assert_eq!(d.qDeriv.len(), m.nD);
            let mut got = vec![0.0; nv * nv];
            full_d(m, &d.qDeriv, &mut got);
            let mut want = vec![0.0; nv * nv];
            d_passive_vel(m, &d, &mut want);
            d_actuator_vel(m, &d, &mut want);
            if with_rne {
                let mut rne = vec![0.0; nv * nv];
                d_rne_vel(m, &mut d, 0..nv, &mut rne);
                for (w, r) in want.iter_mut().zip(&rne) {
                    *w -= r;
                }
            }
            let mut off_d = 0;
            for i in 0..nv {
                for j in 0..nv {
                    match m.d_adr(i, j) {
                        Some(_) => assert_eq!(
                            got[i * nv + j].to_bits() & !(1 << 63),
                            want[i * nv + j].to_bits() & !(1 << 63),
                            "{name} rne {with_rne}: qDeriv[{i},{j}] {} vs dense {}",
                            got[i * nv + j],
                            want[i * nv + j]
                        ),
                        None => off_d += usize::from(want[i * nv + j] != 0.0),
                    }
                }
            }
            if *name == "branched" {
                // the tendon couples siblings and trees: terms outside D exist and are dropped
                assert!(off_d > 0, "{name}: no term outside D exercised");
            }
        }
    }
}

/// The sparse LU of `M − h qDeriv` against a dense partial-pivot LU, and its residual.
#[test]
fn sparse_lu_solves_the_implicit_system() {
    for (name, m) in [
        ("branched", branched(Integrator::Implicit)),
        ("humanoid", {
            let path = format!("{}/models/humanoid.xml", env!("CARGO_MANIFEST_DIR"));
            let mut m = load(&path).unwrap();
            m.opt.integrator = Integrator::Implicit;
            m
        }),
    ] {
        let nv = m.nv;
        let h = m.opt.timestep;
        let mut d = moving(&m);
        smooth_vel(&m, &mut d, true);
        // A = M − h qDeriv on D, sparse and dense
        let mut mfull = vec![0.0; nv * nv];
        moreau::full_m(&m, &d.qM, &mut mfull);
        let mut q = vec![0.0; nv * nv];
        full_d(&m, &d.qDeriv, &mut q);
        let mut a = vec![0.0; nv * nv];
        let mut lu = vec![0.0; m.nD];
        for i in 0..nv {
            for j in 0..nv {
                if let Some(k) = m.d_adr(i, j) {
                    a[i * nv + j] = mfull[i * nv + j] - h * q[i * nv + j];
                    lu[k] = a[i * nv + j];
                }
            }
        }
        let b: Vec<f64> = (0..nv).map(|i| (i as f64 * 0.9).cos()).collect();
        let mut x = b.clone();
        lu_factor_d(&m, &mut lu);
        lu_solve_d(&m, &lu, &mut x);
        let scale = a.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        let xmax = x.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        for i in 0..nv {
            let r: f64 = (0..nv).map(|j| a[i * nv + j] * x[j]).sum::<f64>() - b[i];
            assert!(
                r.abs() <= 1e-12 * scale * xmax.max(1.0),
                "{name}: residual row {i}: {r:e}"
            );
        }
        let mut dense = a.clone();
        let mut piv = vec![0; nv];
        let mut y = b.clone();
        // a dense LU with partial pivoting (written out: the engine's is not public)
        for k in 0..nv {
            let p = (k..nv)
                .max_by(|&r, &s| dense[r * nv + k].abs().total_cmp(&dense[s * nv + k].abs()))
                .unwrap();
            piv[k] = p;
            for c in 0..nv {
                dense.swap(k * nv + c, p * nv + c);
            }
            y.swap(k, p);
            for r in k + 1..nv {
                let f = dense[r * nv + k] / dense[k * nv + k];
                for c in k..nv {
                    dense[r * nv + c] -= f * dense[k * nv + c];
                }
                y[r] -= f * y[k];
            }
        }
        for k in (0..nv).rev() {
            let s: f64 = (k + 1..nv).map(|c| dense[k * nv + c] * y[c]).sum();
            y[k] = (y[k] - s) / dense[k * nv + k];
        }
        for i in 0..nv {
            assert!(
                (x[i] - y[i]).abs() <= 1e-12 * xmax.max(1.0),
                "{name}: x[{i}] {} vs dense {}",
                x[i],
                y[i]
            );
        }
    }
}
