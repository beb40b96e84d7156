//! The `energy` stage (`mj_energyPos`, `mj_energyVel`) against independent computations: the
//! potential's gradient (central differences) is the negative of the conservative generalized
//! forces the pipeline computes (`qfrc_spring`, and gravity in `qfrc_bias` at rest), and the
//! kinetic energy is the sum over bodies of `½ m |v_com|² + ½ ωᵀ I ω` plus the armatures'
//! `½ a q̇²` (joints) and `½ a l̇²` (tendons). MuJoCo's own values are compared in
//! `python/tests/test_batch.py` (`mujoco.MjData.energy`).

use moreau::{Data, Model};
use nalgebra::{Matrix3, Vector3};

/// Hinges and a slide (whose `qpos` are their dofs), polynomial springs, a spatial tendon
/// stretched past its spring band and a fixed tendon short of it.
const CHAIN: &str = r#"<mujoco>
  <option><flag energy="enable"/></option>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h1" axis="0 1 0" stiffness="3 1.5 2" springref="0.2"/>
      <geom type="capsule" size=".05 .2" mass="1" pos="0.1 0.05 0" euler="10 20 30"/>
      <site name="s1" pos="0.1 0 0"/>
      <body name="b" pos="0.3 0 0" quat="0.9 0.1 0.2 0.3">
        <joint name="h2" axis="1 0 1" stiffness="2 -0.7 1.1" springref="-0.3"/>
        <geom type="ellipsoid" size=".1 .05 .07" mass="0.5" pos="0.05 0.02 0.01"/>
        <site name="s2" pos="0.1 0.1 0"/>
        <body name="c" pos="0.2 0 0">
          <joint name="sl" type="slide" axis="1 0.2 0" stiffness="5 2 3" springref="-0.1"/>
          <geom type="sphere" size=".05" mass="0.3"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial stiffness="7 4 9" springlength="0.01 0.02"><site site="s1"/><site site="s2"/></spatial>
    <fixed stiffness="2 1 0.5" springlength="2 3"><joint joint="h1" coef="1"/><joint joint="sl" coef="-2"/></fixed>
  </tendon>
</mujoco>"#;

/// Every joint type, armature on joints and a tendon.
const TREE: &str = r#"<mujoco>
  <option><flag energy="enable"/></option>
  <worldbody>
    <body pos="0 0 1">
      <freejoint/>
      <geom type="box" size=".1 .2 .3" mass="2"/>
      <site name="s1" pos="0.1 0 0"/>
      <body pos="0.2 0 0" quat="0.9 0.1 0.2 0.3">
        <joint axis="0 1 0" armature="0.05"/>
        <geom type="capsule" size=".05 .2" mass="1" pos="0.1 0.05 0"/>
        <body pos="0.3 0 0">
          <joint type="ball" armature="0.02"/>
          <geom type="ellipsoid" size=".1 .05 .07" mass="0.5" pos="0.05 0.02 0.01"/>
          <site name="s2" pos="0.1 0.1 0"/>
          <body pos="0.2 0 0">
            <joint type="slide" axis="1 0 0"/>
            <geom type="sphere" size=".05" mass="0.3"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial armature="0.3"><site site="s1"/><site site="s2"/></spatial>
  </tendon>
</mujoco>"#;

fn load(xml: &str) -> Model {
    moreau::load_from_str(xml, &moreau::Vfs::new()).unwrap()
}

#[test]
fn potential_gradient_is_minus_the_conservative_forces() {
    let m = load(CHAIN);
    assert_eq!(m.nq, m.nv);
    let mut d: Data = Data::new(&m);
    let q0 = [0.7, -0.4, 0.25];
    d.qpos.copy_from_slice(&q0);
    moreau::forward(&m, &mut d);
    // the spatial tendon is past its band, the fixed one short of it: both springs act
    assert!(d.ten_length[0] > 0.02 && d.ten_length[1] < 2.0);
    // at rest qfrc_bias is gravity's generalized force, ∂V_gravity/∂q
    let want: Vec<f64> = (0..m.nv)
        .map(|i| d.qfrc_bias[i] - d.qfrc_spring[i])
        .collect();
    let h = 1e-6;
    for (i, want) in want.iter().enumerate() {
        let mut e = [0.0; 2];
        for (k, s) in [1.0, -1.0].into_iter().enumerate() {
            d.qpos.copy_from_slice(&q0);
            d.qpos[i] += s * h;
            moreau::forward(&m, &mut d);
            e[k] = d.energy[0];
        }
        let grad = (e[0] - e[1]) / (2.0 * h);
        let err = (grad - want).abs() / want.abs().max(1.0);
        assert!(err < 1e-7, "dof {i}: dV/dq {grad} vs {want} ({err:e})");
    }
}

#[test]
fn kinetic_energy_is_the_bodies_and_armatures() {
    let m = load(TREE);
    let mut d: Data = Data::new(&m);
    let v = [0.3, -0.2, 0.5, 1.1, -0.7, 0.4, 0.9, -1.3, 0.6, 0.2, 0.8];
    d.qvel.copy_from_slice(&v);
    d.qpos[3..7].copy_from_slice(&[0.8, 0.2, -0.3, 0.1]);
    let n = (d.qpos[3..7].iter().map(|x| x * x).sum::<f64>()).sqrt();
    d.qpos[3..7].iter_mut().for_each(|x| *x /= n);
    moreau::forward(&m, &mut d);
    let mut want = 0.0;
    for b in 1..m.nbody {
        let c = d.cvel[b];
        let (w, lin) = (
            Vector3::new(c[0], c[1], c[2]),
            Vector3::new(c[3], c[4], c[5]),
        );
        let vcom = lin + w.cross(&(d.xipos[b] - d.subtree_com[m.body_rootid[b]]));
        let r = d.ximat[b];
        let i = r * Matrix3::from_diagonal(&Vector3::from(m.body_inertia[b])) * r.transpose();
        want += 0.5 * (m.body_mass[b] * vcom.norm_squared() + w.dot(&(i * w)));
    }
    for (i, vi) in v.iter().enumerate() {
        want += 0.5 * m.dof_armature[i] * vi * vi;
    }
    want += 0.5 * m.tendon_armature[0] * d.ten_velocity[0] * d.ten_velocity[0];
    assert!(d.ten_velocity[0].abs() > 0.01, "{}", d.ten_velocity[0]);
    let err = (d.energy[1] - want).abs() / want;
    assert!(err < 1e-12, "kinetic {} vs {want} ({err:e})", d.energy[1]);
    // the inverse pipeline computes it too
    d.energy = [0.0; 2];
    moreau::inverse(&m, &mut d);
    assert!((d.energy[1] - want).abs() / want < 1e-12);
}

#[test]
fn energy_is_computed_only_when_enabled() {
    let xml = TREE.replace(r#"<option><flag energy="enable"/></option>"#, "");
    let m = load(&xml);
    let mut d: Data = Data::new(&m);
    d.qvel.iter_mut().for_each(|v| *v = 1.0);
    moreau::forward(&m, &mut d);
    assert_eq!(d.energy, [0.0; 2]);
    let m = load(TREE);
    let mut d: Data = Data::new(&m);
    d.qvel.iter_mut().for_each(|v| *v = 1.0);
    moreau::step(&m, &mut d);
    assert!(d.energy[0] != 0.0 && d.energy[1] > 0.0);
    d.reset(&m);
    assert_eq!(d.energy, [0.0; 2]);
}
