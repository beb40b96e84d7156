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
            let id = m.key_name.len();
            // MuJoCo 4.0.0 takes a shorter vector as the leading entries of the default (the
            // rest from `qpos0`, zeros, the mocap bodies' poses) and refuses a longer one, in
            // its compiler's words: qpos, qvel and act name the keyframe, ctrl, mpos and mquat
            // number it; mpos and mquat keep only whole 3- and 4-vectors
            let get = |k: &str, n: usize, group: usize, mut def: Vec<f64>| -> R<Vec<f64>> {
                let Some(v) = a.nums(k)? else {
                    return Ok(def);
                };
                if v.len() > n {
                    let msg = if matches!(k, "qpos" | "qvel" | "act") {
                        format!(
                            "keyframe '{name}': invalid {k} size, expected {n}, got {}",
                            v.len()
                        )
                    } else {
                        format!("keyframe {id}: invalid {k} size, expected length {n}")
                    };
                    return Err(a.err(ErrorKind::WrongCount, k, msg));
                }
                let given = v.len() - v.len() % group;
                def[..given].copy_from_slice(&v[..given]);
                Ok(def)
            };
            m.key_time.push(a.f64_or("time", 0.0)?);
            // MuJoCo normalizes the quaternions of a keyframe (ball and free joints, mocap)
            let mut qpos = get("qpos", m.nq, 1, m.qpos0.clone())?;
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
            m.key_qvel.push(get("qvel", m.nv, 1, vec![0.0; m.nv])?);
            m.key_act.push(get("act", m.na, 1, vec![0.0; m.na])?);
            m.key_ctrl.push(get("ctrl", m.nu, 1, vec![0.0; m.nu])?);
            m.key_mpos
                .push(get("mpos", 3 * m.nmocap, 3, mpos0.clone())?);
            // a zero mocap quaternion stays zero in MuJoCo 4.0.0's keyframe (measured), unlike
            // a joint's
            let mut mquat = get("mquat", 4 * m.nmocap, 4, mquat0.clone())?;
            for q in mquat.chunks_mut(4) {
                if q.iter().any(|&x| x != 0.0) {
                    normalize_quat_slice(q);
                }
            }
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
