//! Forward kinematics (`mj_kinematics`; Computation "General framework", "Simulation
//! pipeline" stage 2): global poses of bodies, inertial frames, joint anchors/axes, geoms, sites.

use crate::data::Data;
use crate::math::quat::{axis_angle, mul_quat, normalize_quat, q4, quat2mat, rot_vec_quat};
use crate::math::spatial::v3;
use crate::math::{sc, Scalar};
use crate::model::{JointType, Model, SameFrame};
use nalgebra::{Matrix3, Quaternion, Vector3};

/// Computes `xpos, xquat, xmat, xipos, ximat, xanchor, xaxis, geom_xpos/xmat, site_xpos/xmat`,
/// `cam_xpos/xmat`, `light_xpos/xdir` from `qpos` (and `mocap_pos/quat`). Quaternions in `qpos` are normalized locally (not written
/// back). Hinge and slide displacements are measured from `qpos0` (the joint `ref`). Inertial
/// frames, geoms and sites that coincide with their body's frame or inertial frame within 1e-6
/// (`body_sameframe`, `geom_sameframe`, `site_sameframe`) copy that frame, as MuJoCo does.
pub fn kinematics<T: Scalar>(m: &Model, d: &mut Data<T>) {
    d.xpos[0] = Vector3::zeros();
    d.xquat[0] = Quaternion::identity();
    d.xmat[0] = Matrix3::identity();
    d.xipos[0] = Vector3::zeros();
    d.ximat[0] = Matrix3::identity();
    for b in 1..m.nbody {
        let p = m.body_parentid[b];
        let jnt0 = m.body_jntadr[b];
        let njnt = m.body_jntnum[b];
        let (mut pos, mut quat);
        if let Ok(id) = usize::try_from(m.body_mocapid[b]) {
            pos = d.mocap_pos[id];
            quat = normalize_quat(d.mocap_quat[id]);
        } else if njnt > 0 && m.jnt_type[jnt0] == JointType::Free {
            // Free joint: qpos holds the world pose directly.
            let a = m.jnt_qposadr[jnt0];
            pos = Vector3::new(d.qpos[a], d.qpos[a + 1], d.qpos[a + 2]);
            quat = normalize_quat(Quaternion::new(
                d.qpos[a + 3],
                d.qpos[a + 4],
                d.qpos[a + 5],
                d.qpos[a + 6],
            ));
            // anchor at the body origin, axis not rotated (MuJoCo 4.0.0 reports these)
            d.xanchor[jnt0] = pos;
            d.xaxis[jnt0] = v3::<T>(&m.jnt_axis[jnt0]);
        } else {
            pos = d.xpos[p] + d.xmat[p] * v3::<T>(&m.body_pos[b]);
            quat = mul_quat(&d.xquat[p], &q4::<T>(&m.body_quat[b]));
            // joint anchors and axes rotated by the quaternion, not its matrix, as MuJoCo
            // rounds them (`rot_vec_quat`)
            for j in jnt0..jnt0 + njnt {
                let jpos = v3::<T>(&m.jnt_pos[j]);
                // a joint at the body's origin (`jnt_pos` all +0, as on most hinges): its
                // position rotated by any finite quaternion is +0 exactly, so the rotations of
                // it are skipped (as `mju_rotVecQuat` skips a zero vector); the sums with it
                // stay, for the sign of a zero in `pos`
                let [px, py, pz] = m.jnt_pos[j];
                let at_origin = (px.to_bits() | py.to_bits() | pz.to_bits()) == 0;
                let rot_jpos = |q: &Quaternion<T>| {
                    if at_origin {
                        Vector3::zeros()
                    } else {
                        rot_vec_quat(&jpos, q)
                    }
                };
                let anchor = rot_jpos(&quat) + pos;
                let axis = rot_vec_quat(&v3::<T>(&m.jnt_axis[j]), &quat);
                d.xanchor[j] = anchor;
                d.xaxis[j] = axis;
                let a = m.jnt_qposadr[j];
                match m.jnt_type[j] {
                    JointType::Slide => {
                        pos += axis * (d.qpos[a] - sc(m.qpos0[a]));
                    }
                    JointType::Hinge => {
                        let qloc = axis_angle(&v3::<T>(&m.jnt_axis[j]), d.qpos[a] - sc(m.qpos0[a]));
                        quat = mul_quat(&quat, &qloc);
                        pos = anchor - rot_jpos(&quat);
                    }
                    JointType::Ball => {
                        let qloc = normalize_quat(Quaternion::new(
                            d.qpos[a],
                            d.qpos[a + 1],
                            d.qpos[a + 2],
                            d.qpos[a + 3],
                        ));
                        quat = mul_quat(&quat, &qloc);
                        pos = anchor - rot_jpos(&quat);
                    }
                    // A free joint is always the body's only (first) joint.
                    JointType::Free => {}
                }
            }
        }
        let quat = normalize_quat(quat);
        let r = quat2mat(&quat);
        d.xpos[b] = pos;
        d.xquat[b] = quat;
        d.xmat[b] = r;
        d.xipos[b] = match frame(&m.body_sameframe, b) {
            SameFrame::Body => pos,
            _ => pos + r * v3::<T>(&m.body_ipos[b]),
        };
        d.ximat[b] = match frame(&m.body_sameframe, b) {
            SameFrame::Body | SameFrame::BodyRot => r,
            _ => quat2mat(&mul_quat(&quat, &q4::<T>(&m.body_iquat[b]))),
        };
    }
    for g in 0..m.ngeom {
        let b = m.geom_bodyid[g];
        let f = frame(&m.geom_sameframe, g);
        let (p, r) = place(d, b, f, &m.geom_pos[g], &m.geom_quat[g]);
        d.geom_xpos[g] = p;
        d.geom_xmat[g] = r;
    }
    for s in 0..m.nsite {
        let b = m.site_bodyid[s];
        let f = frame(&m.site_sameframe, s);
        let (p, r) = place(d, b, f, &m.site_pos[s], &m.site_quat[s]);
        d.site_xpos[s] = p;
        d.site_xmat[s] = r;
    }
    for c in 0..m.ncam {
        let b = m.cam_bodyid[c];
        d.cam_xpos[c] = d.xpos[b] + d.xmat[b] * v3::<T>(&m.cam_pos[c]);
        d.cam_xmat[c] = quat2mat(&mul_quat(&d.xquat[b], &q4::<T>(&m.cam_quat[c])));
    }
    for l in 0..m.nlight {
        let b = m.light_bodyid[l];
        d.light_xpos[l] = d.xpos[b] + d.xmat[b] * v3::<T>(&m.light_pos[l]);
        d.light_xdir[l] = d.xmat[b] * v3::<T>(&m.light_dir[l]);
    }
}

/// Entry `i` of a `*_sameframe` array; an empty array (a model built by hand) means none.
fn frame(v: &[SameFrame], i: usize) -> SameFrame {
    v.get(i).copied().unwrap_or_default()
}

/// World pose of a geom or site on body `b` at offset `(pos, quat)`: the body's or its inertial
/// frame where the offset coincides with it (`sameframe`, [`Model::fill_sameframe`]), as
/// MuJoCo 4.0.0 places them: the coinciding frame is copied, not recomposed; an own orientation
/// is the matrix of the composed quaternion `xquat ⊗ quat`, not the product of the two matrices
/// (they differ in the last bit). Inlined: called for every geom and site, it would otherwise
/// return its 96-byte pose through memory.
#[inline(always)]
fn place<T: Scalar>(
    d: &Data<T>,
    b: usize,
    sameframe: SameFrame,
    pos: &[f64; 3],
    quat: &[f64; 4],
) -> (Vector3<T>, Matrix3<T>) {
    let own_pos = || d.xpos[b] + d.xmat[b] * v3::<T>(pos);
    match sameframe {
        SameFrame::Body => (d.xpos[b], d.xmat[b]),
        SameFrame::Inertia => (d.xipos[b], d.ximat[b]),
        SameFrame::BodyRot => (own_pos(), d.xmat[b]),
        SameFrame::InertiaRot => (own_pos(), d.ximat[b]),
        SameFrame::None => (own_pos(), quat2mat(&mul_quat(&d.xquat[b], &q4::<T>(quat)))),
    }
}

/// Camera tracking modes (`mj_camlight`, after [`crate::smooth::com::com_pos`]; MJCF `camera/mode`,
/// checked against MuJoCo 4.0.0 in tests/engine/camera_rangefinder_oracle.rs): `track` keeps the orientation
/// `cam_mat0` at the offset `cam_pos0` from the body origin, `trackcom` the same at offset
/// `cam_poscom0` from the body's subtree COM; `targetbody(com)` keeps the fixed position and
/// turns the camera so that its -z axis looks at the target body origin (subtree COM), with
/// `x = normalize(ẑ_world × z)` and `y = z × x`. Lights track alike (MJCF `light/mode`):
/// `light_dir0` at `light_pos0` / `light_poscom0`, or their direction turned to the target.
pub fn camlight<T: Scalar>(m: &Model, d: &mut Data<T>) {
    use crate::model::CamMode;
    for c in 0..m.ncam {
        let b = m.cam_bodyid[c];
        match m.cam_mode[c] {
            CamMode::Fixed => {}
            CamMode::Track | CamMode::TrackCom => {
                let (base, off) = if m.cam_mode[c] == CamMode::Track {
                    (d.xpos[b], &m.cam_pos0[c])
                } else {
                    (d.subtree_com[b], &m.cam_poscom0[c])
                };
                d.cam_xpos[c] = base + v3::<T>(off);
                let r = &m.cam_mat0[c];
                d.cam_xmat[c] = Matrix3::from_fn(|i, j| sc(r[3 * i + j]));
            }
            CamMode::TargetBody | CamMode::TargetBodyCom => {
                let Ok(t) = usize::try_from(m.cam_targetbodyid[c]) else {
                    continue;
                };
                let target = if m.cam_mode[c] == CamMode::TargetBody {
                    d.xpos[t]
                } else {
                    d.subtree_com[t]
                };
                let z = normalize3(d.cam_xpos[c] - target);
                let up = Vector3::new(T::zero(), T::zero(), T::one());
                let x = normalize3(up.cross(&z));
                let y = normalize3(z.cross(&x));
                d.cam_xmat[c] = Matrix3::from_columns(&[x, y, z]);
            }
        }
    }
    for l in 0..m.nlight {
        let b = m.light_bodyid[l];
        match m.light_mode[l] {
            CamMode::Fixed => {}
            CamMode::Track | CamMode::TrackCom => {
                let (base, off) = if m.light_mode[l] == CamMode::Track {
                    (d.xpos[b], &m.light_pos0[l])
                } else {
                    (d.subtree_com[b], &m.light_poscom0[l])
                };
                d.light_xpos[l] = base + v3::<T>(off);
                d.light_xdir[l] = v3::<T>(&m.light_dir0[l]);
            }
            CamMode::TargetBody | CamMode::TargetBodyCom => {
                let Ok(t) = usize::try_from(m.light_targetbodyid[l]) else {
                    continue;
                };
                let target = if m.light_mode[l] == CamMode::TargetBody {
                    d.xpos[t]
                } else {
                    d.subtree_com[t]
                };
                d.light_xdir[l] = normalize3(target - d.light_xpos[l]);
            }
        }
    }
}

/// `mju_normalize3`: unit vector, or (1, 0, 0) below `mjMINVAL`.
fn normalize3<T: Scalar>(v: Vector3<T>) -> Vector3<T> {
    let n = v.norm();
    if n < sc(1e-15) {
        Vector3::new(T::one(), T::zero(), T::zero())
    } else {
        v / n
    }
}
