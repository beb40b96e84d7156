//! `<keyframe>`: `<key>` states, completed from `qpos0` and the model's defaults, and the
//! default keyframes `<size nkey>` adds.

use crate::mjcf::compile::attr::A;
use crate::mjcf::compile::ctx::{Unique, R};
use crate::mjcf::error::ErrorKind;
use crate::mjcf::math::{qnormalize, QID};
use crate::mjcf::xml::Elem;
use crate::model::{JointType, Model};

/// Normalizes a quaternion in place (the identity if it is zero).
pub(super) fn normalize_quat_slice(q: &mut [f64]) {
    let n = qnormalize([q[0], q[1], q[2], q[3]]).unwrap_or(QID);
    q.copy_from_slice(&n);
}

pub(super) fn compile_keyframes(root: &Elem, m: &mut Model) -> R<()> {
    let mut seen = Unique::default();
    let mut mpos0 = Vec::new();
    let mut mquat0 = Vec::new();
    for b in 0..m.nbody {
        if m.body_mocapid[b] >= 0 {
            mpos0.extend_from_slice(&m.body_pos[b]);
            mquat0.extend_from_slice(&m.body_quat[b]);
        }
    }
    for sec in root.children.iter().filter(|e| e.name == "keyframe") {
        for el in &sec.children {
            let a = A::new(el);
            let name = a.name();
            seen.check(&name, el, "key")?;
            let get = |k: &str, n: usize, def: Vec<f64>| -> R<Vec<f64>> {
                match a.vec(k, n, n)? {
                    Some(v) => Ok(v),
                    None => Ok(def),
                }
            };
            m.key_time.push(a.f64_or("time", 0.0)?);
            // MuJoCo normalizes the quaternions of a keyframe (ball and free joints, mocap)
            let mut qpos = get("qpos", m.nq, m.qpos0.clone())?;
            for j in 0..m.njnt {
                let a = m.jnt_qposadr[j];
                let q = match m.jnt_type[j] {
                    JointType::Free => &mut qpos[a + 3..a + 7],
                    JointType::Ball => &mut qpos[a..a + 4],
                    _ => continue,
                };
                normalize_quat_slice(q);
            }
            m.key_qpos.push(qpos);
            m.key_qvel.push(get("qvel", m.nv, vec![0.0; m.nv])?);
            m.key_act.push(get("act", m.na, vec![0.0; m.na])?);
            m.key_ctrl.push(get("ctrl", m.nu, vec![0.0; m.nu])?);
            m.key_mpos.push(get("mpos", 3 * m.nmocap, mpos0.clone())?);
            let mut mquat = get("mquat", 4 * m.nmocap, mquat0.clone())?;
            mquat.chunks_mut(4).for_each(normalize_quat_slice);
            m.key_mquat.push(mquat);
            m.key_name.push(name);
        }
    }
    // `<size nkey="N">` allocates N keyframes: those not given by a <key> are the model's
    // initial state (qpos0, zero velocity, activation and control, mocap bodies at their
    // poses), unnamed, at time 0
    let mut nkey = m.key_name.len();
    for el in root.children.iter().filter(|e| e.name == "size") {
        let a = A::new(el);
        if let Some(n) = a.int("nkey")? {
            let n = usize::try_from(n)
                .map_err(|_| a.err(ErrorKind::InvalidValue, "nkey", "nkey must be non-negative"))?;
            nkey = nkey.max(n);
        }
    }
    while m.key_name.len() < nkey {
        m.key_time.push(0.0);
        m.key_qpos.push(m.qpos0.clone());
        m.key_qvel.push(vec![0.0; m.nv]);
        m.key_act.push(vec![0.0; m.na]);
        m.key_ctrl.push(vec![0.0; m.nu]);
        m.key_mpos.push(mpos0.clone());
        let mut mquat = mquat0.clone();
        mquat.chunks_mut(4).for_each(normalize_quat_slice);
        m.key_mquat.push(mquat);
        m.key_name.push(String::new());
    }
    m.nkey = m.key_name.len();
    Ok(())
}
