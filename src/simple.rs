//! Simple bodies: the bodies whose block of the joint inertia M is diagonal, which MuJoCo
//! marks at compile time (`body_simple`, `dof_simplenum`) and treats apart in `mj_setConst`
//! and in its sparse layout of M.

use crate::model::{JointType, Model, SameFrame};

/// A body whose mass matrix block is `mass · I` on slide joints alone (MuJoCo's `body_simple =
/// 2`, per the 4.0.0 loader): it has joints, all of them slide joints along a coordinate axis of
/// the body frame, no child bodies, a parent welded to the world, and its inertial frame at the
/// body frame (`body_sameframe` is [`SameFrame::Body`]: position and orientation within 1e-6, as
/// [`Model::fill_sameframe`] decides).
pub fn slider_body(m: &Model, b: usize) -> bool {
    slider_shape(m, b) && m.body_mass[b] > 0.0
}

/// A [`slider_body`] but for its mass: joints, all of them slide joints along coordinate axes
/// of the body frame, on a leaf body whose parent is welded to the world, with its inertial
/// frame at the body frame.
pub fn slider_shape(m: &Model, b: usize) -> bool {
    let (adr, n) = (m.body_jntadr[b], m.body_jntnum[b]);
    n > 0
        && (adr..adr + n).all(|j| m.jnt_type[j] == JointType::Slide && coordinate_axis(m, j))
        && leaf_on_world(m, b)
}

/// A body whose block of M is diagonal (MuJoCo's `body_simple` 1 or 2, whose dofs have
/// `dof_simplenum > 0` and whose rows of MuJoCo's sparse `M` hold only the diagonal): as a
/// [`slider_body`], a leaf body on a parent welded to the world with its inertial frame at the
/// body frame, whose joints are slide joints along coordinate axes followed by at most one
/// rotation through the body origin: a free joint, a ball joint, or a hinge along a coordinate
/// axis, or no joint at all (measured on MuJoCo 4.0.0: a rotation followed by a slide, two
/// hinges, a hinge along (1, 1, 0) or a ball joint away from the origin give `body_simple = 0`;
/// a jointless leaf with its inertial frame at its frame gives 1).
pub fn simple_body(m: &Model, b: usize) -> bool {
    let (adr, n) = (m.body_jntadr[b], m.body_jntnum[b]);
    let mut rotated = false;
    (adr..adr + n).all(|j| {
        let ok = !rotated
            && match m.jnt_type[j] {
                JointType::Slide => coordinate_axis(m, j),
                JointType::Free => true,
                JointType::Ball => m.jnt_pos[j] == [0.0; 3],
                JointType::Hinge => m.jnt_pos[j] == [0.0; 3] && coordinate_axis(m, j),
            };
        rotated |= m.jnt_type[j] != JointType::Slide;
        ok
    }) && leaf_on_world(m, b)
}

/// Joint `j`'s axis is along one coordinate axis of its body frame.
fn coordinate_axis(m: &Model, j: usize) -> bool {
    m.jnt_axis[j].iter().filter(|x| **x != 0.0).count() == 1
}

/// Body `b` has no child bodies, its parent is welded to the world and its inertial frame is
/// the body frame (`body_sameframe` is [`SameFrame::Body`]: position and orientation within
/// 1e-6, as [`Model::fill_sameframe`] decides).
fn leaf_on_world(m: &Model, b: usize) -> bool {
    m.body_parentid.iter().skip(1).all(|&p| p != b)
        && m.body_weldid[m.body_parentid[b]] == 0
        && match m.body_sameframe.get(b) {
            Some(f) => *f == SameFrame::Body,
            // a model built by hand, without the compiler's frames: the exact test
            None => m.body_ipos[b] == [0.0; 3] && m.body_iquat[b] == [1.0, 0.0, 0.0, 0.0],
        }
}
