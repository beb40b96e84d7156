//! Test-only helpers: build `Model` from the compiled-model JSON written by
//! `tools/reference/gen_pipeline_cases.py` (no MJCF loader needed).
#![allow(dead_code)]

pub mod tendon_fluid;

use moreau::model::*;
use serde_json::Value;

/// The tendon and actuator fields `mj_setConst` computes (`tendon_length0`,
/// `tendon_invweight0`, `actuator_length0`, `actuator_acc0`).
pub struct SetConstFields;

impl SetConstFields {
    /// Zeroes them in `m`, so that `set_const` must recompute them.
    pub fn clear(m: &mut Model) {
        m.tendon_length0.iter_mut().for_each(|x| *x = 0.0);
        m.tendon_invweight0.iter_mut().for_each(|x| *x = 0.0);
        m.actuator_length0.iter_mut().for_each(|x| *x = 0.0);
        m.actuator_acc0.iter_mut().for_each(|x| *x = 0.0);
    }

    /// `(field, value in m, value in want)` of each.
    pub fn pairs<'a>(m: &'a Model, want: &'a Model) -> [(&'static str, &'a [f64], &'a [f64]); 4] {
        [
            ("tendon_length0", &m.tendon_length0, &want.tendon_length0),
            (
                "tendon_invweight0",
                &m.tendon_invweight0,
                &want.tendon_invweight0,
            ),
            (
                "actuator_length0",
                &m.actuator_length0,
                &want.actuator_length0,
            ),
            ("actuator_acc0", &m.actuator_acc0, &want.actuator_acc0),
        ]
    }
}

/// A recorded rollout's start: `m` with the rollout's integrator (`integrator_enum`: 0 Euler,
/// 1 RK4, 2 implicit, else implicitfast), `eulerdamp` flag and `timestep`, and the `Data` at
/// its initial `qpos0`, `qvel0`, `act0` and first `time`.
pub fn rollout_start(m: &Model, ro: &Value) -> (Model, moreau::Data<f64>) {
    let mut m = m.clone();
    m.opt.integrator = match ro["integrator_enum"].as_u64().unwrap() {
        0 => Integrator::Euler,
        1 => Integrator::Rk4,
        2 => Integrator::Implicit,
        _ => Integrator::ImplicitFast,
    };
    if !ro["eulerdamp"].as_bool().unwrap_or(true) {
        m.opt.disableflags |= disable::EULERDAMP;
    }
    m.opt.timestep = ro["timestep"].as_f64().unwrap();
    let mut d = moreau::Data::<f64>::new(&m);
    d.qpos.copy_from_slice(&fv(&ro["qpos0"]));
    d.qvel.copy_from_slice(&fv(&ro["qvel0"]));
    d.act.copy_from_slice(&fv(&ro["act0"]));
    d.time = fv(&ro["time"])[0];
    (m, d)
}

pub fn load_cases() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/pipeline_cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}
pub fn fv(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().flat_map(fv).collect(),
        _ => vec![f(v)],
    }
}
fn uv(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap().max(0) as usize)
        .collect()
}
fn iv(v: &Value) -> Vec<i32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap() as i32)
        .collect()
}
fn bv(v: &Value) -> Vec<bool> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_bool().unwrap_or_else(|| x.as_i64().unwrap() != 0))
        .collect()
}
fn arr<const N: usize>(v: &Value) -> Vec<[f64; N]> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let x = fv(r);
            let mut a = [0.0; N];
            a[..x.len()].copy_from_slice(&x);
            a
        })
        .collect()
}
/// `arr`, or empty when the key is absent (older reference files).
fn arr_or_empty<const N: usize>(v: &Value) -> Vec<[f64; N]> {
    if v.is_null() {
        vec![]
    } else {
        arr(v)
    }
}
fn us(v: &Value) -> usize {
    v.as_u64().unwrap() as usize
}

pub fn jtype(x: usize) -> JointType {
    [
        JointType::Free,
        JointType::Ball,
        JointType::Slide,
        JointType::Hinge,
    ][x]
}

/// Builds a `Model` from the JSON `model` object.
pub fn build_model(j: &Value) -> Model {
    let mut m = Model {
        nq: us(&j["nq"]),
        nv: us(&j["nv"]),
        nu: us(&j["nu"]),
        na: us(&j["na"]),
        nbody: us(&j["nbody"]),
        njnt: us(&j["njnt"]),
        ngeom: us(&j["ngeom"]),
        nsite: us(&j["nsite"]),
        ntendon: us(&j["ntendon"]),
        nwrap: us(&j["nwrap"]),
        nM: us(&j["nM"]),
        nmocap: us(&j["nmocap"]),
        qpos0: fv(&j["qpos0"]),
        qpos_spring: fv(&j["qpos_spring"]),
        body_parentid: uv(&j["body_parentid"]),
        body_rootid: uv(&j["body_rootid"]),
        body_weldid: uv(&j["body_weldid"]),
        body_mocapid: iv(&j["body_mocapid"]),
        body_jntnum: uv(&j["body_jntnum"]),
        body_jntadr: uv(&j["body_jntadr"]),
        body_dofnum: uv(&j["body_dofnum"]),
        body_dofadr: uv(&j["body_dofadr"]),
        body_geomnum: uv(&j["body_geomnum"]),
        body_geomadr: uv(&j["body_geomadr"]),
        body_pos: arr(&j["body_pos"]),
        body_quat: arr(&j["body_quat"]),
        body_ipos: arr(&j["body_ipos"]),
        body_iquat: arr(&j["body_iquat"]),
        body_mass: fv(&j["body_mass"]),
        body_subtreemass: fv(&j["body_subtreemass"]),
        body_inertia: arr(&j["body_inertia"]),
        body_invweight0: arr(&j["body_invweight0"]),
        body_gravcomp: fv(&j["body_gravcomp"]),
        jnt_type: uv(&j["jnt_type"]).into_iter().map(jtype).collect(),
        jnt_qposadr: uv(&j["jnt_qposadr"]),
        jnt_dofadr: uv(&j["jnt_dofadr"]),
        jnt_bodyid: uv(&j["jnt_bodyid"]),
        jnt_limited: bv(&j["jnt_limited"]),
        jnt_actfrclimited: bv(&j["jnt_actfrclimited"]),
        jnt_pos: arr(&j["jnt_pos"]),
        jnt_axis: arr(&j["jnt_axis"]),
        jnt_stiffness: fv(&j["jnt_stiffness"]),
        jnt_stiffnesspoly: arr(&j["jnt_stiffnesspoly"]),
        jnt_range: arr(&j["jnt_range"]),
        jnt_actfrcrange: arr(&j["jnt_actfrcrange"]),
        dof_bodyid: uv(&j["dof_bodyid"]),
        dof_jntid: uv(&j["dof_jntid"]),
        dof_parentid: iv(&j["dof_parentid"]),
        dof_Madr: uv(&j["dof_Madr"]),
        dof_armature: fv(&j["dof_armature"]),
        dof_damping: fv(&j["dof_damping"]),
        dof_dampingpoly: arr(&j["dof_dampingpoly"]),
        dof_invweight0: fv(&j["dof_invweight0"]),
        dof_M0: fv(&j["dof_M0"]),
        geom_bodyid: uv(&j["geom_bodyid"]),
        geom_pos: arr(&j["geom_pos"]),
        geom_quat: arr(&j["geom_quat"]),
        site_bodyid: uv(&j["site_bodyid"]),
        site_pos: arr(&j["site_pos"]),
        site_quat: arr(&j["site_quat"]),
        tendon_adr: uv(&j["tendon_adr"]),
        tendon_num: uv(&j["tendon_num"]),
        tendon_stiffness: fv(&j["tendon_stiffness"]),
        tendon_damping: fv(&j["tendon_damping"]),
        tendon_stiffnesspoly: arr_or_empty(&j["tendon_stiffnesspoly"]),
        tendon_dampingpoly: arr_or_empty(&j["tendon_dampingpoly"]),
        tendon_armature: fv(&j["tendon_armature"]),
        tendon_lengthspring: arr(&j["tendon_lengthspring"]),
        tendon_length0: fv(&j["tendon_length0"]),
        tendon_invweight0: fv(&j["tendon_invweight0"]),
        wrap_objid: iv(&j["wrap_objid"]),
        wrap_prm: fv(&j["wrap_prm"]),
        actuator_trnid: arr::<2>(&j["actuator_trnid"])
            .into_iter()
            .map(|a| [a[0] as i32, a[1] as i32])
            .collect(),
        actuator_actadr: iv(&j["actuator_actadr"]),
        actuator_actnum: uv(&j["actuator_actnum"]),
        actuator_ctrllimited: bv(&j["actuator_ctrllimited"]),
        actuator_forcelimited: bv(&j["actuator_forcelimited"]),
        actuator_actlimited: bv(&j["actuator_actlimited"]),
        actuator_actearly: bv(&j["actuator_actearly"]),
        actuator_dynprm: arr(&j["actuator_dynprm"]),
        actuator_gainprm: arr(&j["actuator_gainprm"]),
        actuator_biasprm: arr(&j["actuator_biasprm"]),
        actuator_ctrlrange: arr(&j["actuator_ctrlrange"]),
        actuator_forcerange: arr(&j["actuator_forcerange"]),
        actuator_actrange: arr(&j["actuator_actrange"]),
        actuator_gear: arr(&j["actuator_gear"]),
        actuator_cranklength: fv(&j["actuator_cranklength"]),
        actuator_acc0: fv(&j["actuator_acc0"]),
        actuator_length0: fv(&j["actuator_length0"]),
        actuator_lengthrange: arr(&j["actuator_lengthrange"]),
        ..Default::default()
    };
    m.wrap_type = uv(&j["wrap_type"])
        .into_iter()
        .map(|x| {
            [
                WrapType::None,
                WrapType::Joint,
                WrapType::Pulley,
                WrapType::Site,
                WrapType::Sphere,
                WrapType::Cylinder,
            ][x]
        })
        .collect();
    m.actuator_trntype = uv(&j["actuator_trntype"])
        .into_iter()
        .map(|x| {
            [
                TrnType::Joint,
                TrnType::JointInParent,
                TrnType::SliderCrank,
                TrnType::Tendon,
                TrnType::Site,
                TrnType::Body,
            ][x]
        })
        .collect();
    m.actuator_dyntype = uv(&j["actuator_dyntype"])
        .into_iter()
        .map(|x| {
            [
                DynType::None,
                DynType::Integrator,
                DynType::Filter,
                DynType::FilterExact,
                DynType::Muscle,
                DynType::User,
            ][x]
        })
        .collect();
    m.actuator_gaintype = uv(&j["actuator_gaintype"])
        .into_iter()
        .map(|x| {
            [
                GainType::Fixed,
                GainType::Affine,
                GainType::Muscle,
                GainType::User,
            ][x]
        })
        .collect();
    m.actuator_biastype = uv(&j["actuator_biastype"])
        .into_iter()
        .map(|x| {
            [
                BiasType::None,
                BiasType::Affine,
                BiasType::Muscle,
                BiasType::User,
            ][x]
        })
        .collect();
    let o = &j["opt"];
    m.opt.timestep = f(&o["timestep"]);
    m.opt.gravity = arr::<3>(&Value::Array(vec![o["gravity"].clone()]))[0];
    // The JSON carries no collision / constraint fields (geom types, margins, equality, ...):
    // these models exercise the smooth pipeline, so the constraint stage is switched off.
    m.opt.disableflags = o["disableflags"].as_u64().unwrap() as u32 | disable::CONSTRAINT;
    m.opt.enableflags = o["enableflags"].as_u64().unwrap() as u32;
    m.opt.density = f(&o["density"]);
    m.opt.viscosity = f(&o["viscosity"]);
    // fields this test set does not use, sized so Data::new works
    m.ngeom = m.geom_bodyid.len();
    m.fill_d_sparse();
    m
}

/// Sets the state of a case into `d` (f64 values converted to the scalar type).
pub fn set_state<T: moreau::Scalar>(m: &Model, d: &mut moreau::Data<T>, c: &Value) {
    use moreau::pipeline::sc;
    use nalgebra::{Quaternion, Vector3, Vector6};
    let cv = |k: &str| fv(&c[k]);
    for (x, y) in d.qpos.iter_mut().zip(cv("qpos")) {
        *x = sc(y);
    }
    for (x, y) in d.qvel.iter_mut().zip(cv("qvel")) {
        *x = sc(y);
    }
    for (x, y) in d.act.iter_mut().zip(cv("act")) {
        *x = sc(y);
    }
    for (x, y) in d.ctrl.iter_mut().zip(cv("ctrl")) {
        *x = sc(y);
    }
    for (x, y) in d.qfrc_applied.iter_mut().zip(cv("qfrc_applied")) {
        *x = sc(y);
    }
    let xf = cv("xfrc_applied");
    for b in 0..m.nbody {
        d.xfrc_applied[b] = Vector6::from_iterator((0..6).map(|k| sc(xf[6 * b + k])));
    }
    let mp = cv("mocap_pos");
    let mq = cv("mocap_quat");
    for i in 0..m.nmocap {
        d.mocap_pos[i] = Vector3::new(sc(mp[3 * i]), sc(mp[3 * i + 1]), sc(mp[3 * i + 2]));
        d.mocap_quat[i] = Quaternion::new(
            sc(mq[4 * i]),
            sc(mq[4 * i + 1]),
            sc(mq[4 * i + 2]),
            sc(mq[4 * i + 3]),
        );
    }
}
