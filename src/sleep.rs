//! Sleeping trees (the `sleep` enable flag, XML reference `option/flag`; `sleep_tolerance`;
//! the body attribute `sleep`), as measured on MuJoCo 4.0.0:
//!
//! - A kinematic tree is *at rest* in a step when every dof's `|qvel|·dof_length` is below
//!   `opt.sleep_tolerance` and no `qfrc_applied` or `xfrc_applied` acts on it, with the
//!   velocity the step starts from. `dof_length` is 1 for translational dofs, a length of
//!   the body for rotational ones ([`body_lengths`]).
//! - `tree_asleep` is −11 after a reset, except with `sleep="init"` trees, which a reset puts
//!   to sleep (`Data::reset`); each step at rest adds 1 up to −1, any other step sets it back
//!   to −11. Trees whose sleep policy is *never* (trees with actuators or joined
//!   to another tree by a tendon spring or damper, unless `sleep="allowed"`, and
//!   `sleep="never"`) stay at −11.
//! - A constraint island of the step (or an unconstrained tree) whose trees are all at −1
//!   falls asleep in that step, after the forward dynamics and before the integration: its
//!   trees form a cycle in ascending order (`tree_asleep` = the next tree, the last pointing
//!   to the first; a lone tree points to itself) and their `qvel` is set to 0.
//! - Sleeping trees are not integrated, take no contacts with static geoms or other sleeping
//!   trees, and have no joint-limit or dof friction-loss rows; a sleeping cycle has no
//!   equality, tendon-limit or tendon friction-loss rows. A contact or such a row between an
//!   awake tree and a sleeping one, or a change of a sleeping tree's `qpos`, a nonzero
//!   `qvel`, `qfrc_applied` or `xfrc_applied` on it, wakes its whole cycle (back to −11), in
//!   the same step.
//! - The step in which a tree falls asleep ends with its fields at zero velocity (the
//!   velocity, acceleration and constraint stages run again, [`update`], [`commit`]); while it
//!   sleeps, its sensors ([`sensor_idle`]) and actuators ([`actuator_idle`]) keep their values,
//!   and so do `cacc`, `cfrc_*` and the subtree velocities of every body while no awake sensor
//!   needs them (docs/mujoco-behaviour.md "Sleeping").

use crate::data::Data;
use crate::math::{sc, Scalar};
use crate::model::{
    disable, enable, BodySleep, EqType, Integrator, JointType, Model, ObjType, SameFrame, TrnType,
    WrapType,
};
use nalgebra::{Quaternion, Vector3};

pub use crate::data::{AWAKE_RESET, MINAWAKE};

/// The part of sleeping this engine does not simulate in `m` (the model loads only without
/// it); `None` when the `sleep` flag is off or everything in `m` is covered.
pub fn unsupported(m: &Model) -> Option<&'static str> {
    if !m.opt.enabled(enable::SLEEP) {
        return None;
    }
    if m.opt.disabled(disable::ISLAND) {
        return Some("sleep with the island flag disabled");
    }
    if m.opt.integrator == Integrator::Rk4 {
        return Some("sleep with the RK4 integrator");
    }
    if m.dof_length.len() != m.nv || m.tree_sleep_policy.len() != ntree(m) {
        return Some("sleep without dof_length and tree_sleep_policy (set_const fills them)");
    }
    None
}

/// Whether actuator `u`'s transmission acts on tree `t`: its joint's, site's or body's tree,
/// the trees of both slider-crank sites, or every tree a tendon's path touches.
fn actuates(m: &Model, body_treeid: &[i32], u: usize, t: usize) -> bool {
    let mut hit = false;
    actuator_bodies(m, u, |b| hit |= body_treeid.get(b) == Some(&(t as i32)));
    hit
}

/// Calls `f` with each body tendon `k`'s path moves with: its joints', sites' and wrapping
/// geoms' bodies.
fn tendon_bodies(m: &Model, k: usize, mut f: impl FnMut(usize)) {
    let w0 = m.tendon_adr[k];
    for w in w0..w0 + m.tendon_num[k] {
        let Ok(o) = usize::try_from(m.wrap_objid[w]) else {
            continue;
        };
        let b = match m.wrap_type[w] {
            WrapType::Joint => m.jnt_bodyid.get(o),
            WrapType::Site => m.site_bodyid.get(o),
            WrapType::Sphere | WrapType::Cylinder => m.geom_bodyid.get(o),
            WrapType::Pulley | WrapType::None => None,
        };
        if let Some(&b) = b {
            f(b);
        }
    }
}

/// Calls `f` with each body equality `e` constrains: the two bodies (or the sites' bodies) of
/// a connect or weld, the joints' bodies of a joint equality, the tendons' bodies of a
/// tendon equality.
fn eq_bodies(m: &Model, e: usize, mut f: impl FnMut(usize)) {
    let ids = [m.eq_obj1id[e], m.eq_obj2id[e]].map(|i| usize::try_from(i).ok());
    for id in ids.into_iter().flatten() {
        match m.eq_type[e] {
            EqType::Connect | EqType::Weld => {
                let b = match m.eq_objtype.get(e) {
                    Some(ObjType::Site) => m.site_bodyid.get(id),
                    _ => Some(&id),
                };
                if let Some(&b) = b {
                    f(b);
                }
            }
            EqType::Joint => {
                if let Some(&b) = m.jnt_bodyid.get(id) {
                    f(b);
                }
            }
            EqType::Tendon => tendon_bodies(m, id, &mut f),
            EqType::Flex | EqType::Distance => {}
        }
    }
}

/// Calls `f` with each body actuator `u`'s transmission moves: its joint's, site's or body's,
/// both slider-crank sites' bodies, or the bodies of its tendon's path.
fn actuator_bodies(m: &Model, u: usize, mut f: impl FnMut(usize)) {
    let ids = m.actuator_trnid[u].map(|i| usize::try_from(i).ok());
    let Some(id) = ids[0] else {
        return;
    };
    let (b1, b2) = match m.actuator_trntype[u] {
        TrnType::Joint | TrnType::JointInParent => (m.jnt_bodyid.get(id), None),
        TrnType::Site => (m.site_bodyid.get(id), None),
        TrnType::SliderCrank => (
            m.site_bodyid.get(id),
            ids[1].and_then(|s| m.site_bodyid.get(s)),
        ),
        TrnType::Body => (Some(&id), None),
        TrnType::Tendon => {
            if id < m.ntendon {
                tendon_bodies(m, id, f);
            }
            return;
        }
    };
    for &b in b1.into_iter().chain(b2) {
        f(b);
    }
}

/// Calls `f` with each body a sensor's object (`ty`, `id`) is on: a body's own (`body`,
/// `xbody` and the root of a `subtree` sensor), a joint's, dof's, geom's, site's or camera's
/// body, an actuator's transmission bodies, a tendon's path bodies; nothing for other types.
fn object_bodies(m: &Model, ty: ObjType, id: i32, mut f: impl FnMut(usize)) {
    let Ok(id) = usize::try_from(id) else {
        return;
    };
    let b = match ty {
        ObjType::Body | ObjType::XBody => Some(&id),
        ObjType::Joint => m.jnt_bodyid.get(id),
        ObjType::Dof => m.dof_bodyid.get(id),
        ObjType::Geom => m.geom_bodyid.get(id),
        ObjType::Site => m.site_bodyid.get(id),
        ObjType::Camera => m.cam_bodyid.get(id),
        ObjType::Actuator => {
            if id < m.nu {
                actuator_bodies(m, id, f);
            }
            return;
        }
        ObjType::Tendon => {
            if id < m.ntendon {
                tendon_bodies(m, id, f);
            }
            return;
        }
        ObjType::Unknown => None,
    };
    if let Some(&b) = b {
        f(b);
    }
}

/// Whether actuator `u` is asleep (with the `sleep` flag): some body its transmission moves
/// sleeps and none is awake; it then keeps its `actuator_force` and `act_dot`.
pub fn actuator_idle<T: Scalar>(m: &Model, d: &Data<T>, u: usize) -> bool {
    rows_idle(m, d, |f| actuator_bodies(m, u, f))
}

/// Whether sleeping is enabled and some tree sleeps: without it no sensor is idle
/// ([`sensor_idle`] is false for every one).
pub fn some_asleep<T: Scalar>(m: &Model, d: &Data<T>) -> bool {
    active(m) && d.tree_asleep.iter().any(|&a| a >= 0)
}

/// Whether sensor `i` is asleep and keeps its `sensordata` (with the `sleep` flag): some of
/// the bodies of its object and reference object sleep and none is awake. Measured on MuJoCo
/// 4.0.0: the accelerometer, force, torque, frame acceleration, touch and contact sensors of a
/// box asleep on the floor keep the values of the step it fell asleep in (with its contacts),
/// a frame position of a sleeping site relative to a moving one follows the moving one, a
/// touch sensor on a world site and a clock go on.
pub fn sensor_idle<T: Scalar>(m: &Model, d: &Data<T>, i: usize) -> bool {
    if !some_asleep(m, d) {
        return false;
    }
    let (ty, id) = (m.sensor_objtype[i], m.sensor_objid[i]);
    let (rty, rid) = (
        m.sensor_reftype.get(i).copied().unwrap_or(ObjType::Unknown),
        m.sensor_refid.get(i).copied().unwrap_or(-1),
    );
    rows_idle(m, d, |f| {
        object_bodies(m, ty, id, &mut *f);
        object_bodies(m, rty, rid, &mut *f);
    })
}

/// A set of bodies, given by calling its argument with each.
type Bodies<'a> = dyn Fn(&mut dyn FnMut(usize)) + 'a;

/// Whether the rows over `bodies` are left out: some of the bodies sleep and none is awake
/// (measured on MuJoCo 4.0.0 for joint equalities, tendon limits and tendon friction loss:
/// the rows of a sleeping cycle are gone).
fn rows_idle<T: Scalar>(m: &Model, d: &Data<T>, bodies: impl Fn(&mut dyn FnMut(usize))) -> bool {
    if !active(m) {
        return false;
    }
    let (mut some_asleep, mut some_awake) = (false, false);
    bodies(
        &mut |b| match usize::try_from(d.island_scratch.body_treeid[b]) {
            Ok(t) if asleep(d, t) => some_asleep = true,
            Ok(_) => some_awake = true,
            Err(_) => {}
        },
    );
    some_asleep && !some_awake
}

/// Whether equality `e`'s rows are left out (all its trees asleep).
pub fn eq_idle<T: Scalar>(m: &Model, d: &Data<T>, e: usize) -> bool {
    rows_idle(m, d, |f| eq_bodies(m, e, f))
}

/// Whether tendon `k`'s limit and friction-loss rows are left out (all its trees asleep).
pub fn tendon_idle<T: Scalar>(m: &Model, d: &Data<T>, k: usize) -> bool {
    rows_idle(m, d, |f| tendon_bodies(m, k, f))
}

/// Whether tendon `k` has a spring or damper (`stiffness`, `damping` or their polynomial
/// terms) across two trees or more: such trees never sleep unless `sleep="allowed"`
/// (measured on MuJoCo 4.0.0: a fixed tendon with `stiffness` or `damping` over two hinges
/// gives both trees policy 1; without them, or over one tree, 2).
fn tendon_couples(m: &Model, body_treeid: &[i32], k: usize) -> bool {
    let nonzero = |v: Option<&f64>| v.is_some_and(|&x| x != 0.0);
    let poly = |v: Option<&[f64; 2]>| v.is_some_and(|p| p.iter().any(|&x| x != 0.0));
    let spring = nonzero(m.tendon_stiffness.get(k))
        || nonzero(m.tendon_damping.get(k))
        || poly(m.tendon_stiffnesspoly.get(k))
        || poly(m.tendon_dampingpoly.get(k));
    if !spring {
        return false;
    }
    let mut first = None;
    let mut several = false;
    tendon_bodies(m, k, |b| {
        if let Ok(t) = usize::try_from(body_treeid[b]) {
            several |= first.is_some_and(|f| f != t);
            first.get_or_insert(t);
        }
    });
    several
}

/// Whether some tendon with a spring or damper couples tree `t` to another tree.
fn coupled_by_tendon(m: &Model, body_treeid: &[i32], t: usize) -> bool {
    (0..m.ntendon).any(|k| {
        tendon_couples(m, body_treeid, k) && {
            let mut on = false;
            tendon_bodies(m, k, |b| on |= body_treeid[b] == t as i32);
            on
        }
    })
}

/// Wakes the sleeping trees that an equality, a tendon limit or a tendon's friction loss
/// joins to an awake tree (measured on MuJoCo 4.0.0 for a tendon limit becoming active:
/// the sleeping tree wakes and moves in that step); `tendon_limited(d, k)`: whether tendon
/// `k`'s limit has rows now. True if some tree woke up. Each row's bodies are walked twice
/// (is some tree awake, then wake the sleeping ones) rather than collected.
pub fn wake_by_rows<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    tendon_limited: impl Fn(&Data<T>, usize) -> bool,
) -> bool {
    if !active(m) || !d.tree_asleep.iter().any(|&a| a >= 0) {
        return false;
    }
    let mut woke = false;
    let o = &m.opt;
    let mut join = |d: &mut Data<T>, bodies: &Bodies| {
        let (mut some_asleep, mut some_awake) = (false, false);
        bodies(&mut |b| {
            if let Ok(t) = usize::try_from(d.island_scratch.body_treeid[b]) {
                if asleep(d, t) {
                    some_asleep = true;
                } else {
                    some_awake = true;
                }
            }
        });
        if some_asleep && some_awake {
            bodies(&mut |b| {
                if let Ok(t) = usize::try_from(d.island_scratch.body_treeid[b]) {
                    if asleep(d, t) {
                        wake_cycle(d, t);
                        woke = true;
                    }
                }
            });
        }
    };
    if !o.disabled(disable::EQUALITY) {
        for e in 0..m.neq {
            if d.eq_active[e] {
                join(d, &|f| eq_bodies(m, e, f));
            }
        }
    }
    for k in 0..m.ntendon {
        let friction = !o.disabled(disable::FRICTIONLOSS) && m.tendon_frictionloss[k] > 0.0;
        let limit = !o.disabled(disable::LIMIT) && m.tendon_limited[k] && tendon_limited(d, k);
        if friction || limit {
            join(d, &|f| tendon_bodies(m, k, f));
        }
    }
    woke
}

/// MuJoCo's `mjtSleepPolicy` values of `tree_sleep_policy`.
pub mod policy {
    pub const AUTO_NEVER: i32 = 1;
    pub const AUTO_ALLOWED: i32 = 2;
    pub const NEVER: i32 = 3;
    pub const ALLOWED: i32 = 4;
    pub const INIT: i32 = 5;
}

/// The sleep policy of tree `t` (MuJoCo's `tree_sleep_policy`): its root body's `sleep`
/// attribute, else *never* for trees with actuators and *allowed* for the others.
fn tree_policy(m: &Model, s: &crate::data::scratch::IslandScratch, t: usize) -> i32 {
    let root = m.dof_bodyid[s.tree_dofadr[t]];
    match m.body_sleep.get(root).copied().unwrap_or_default() {
        BodySleep::Never => policy::NEVER,
        BodySleep::Allowed => policy::ALLOWED,
        BodySleep::Init => policy::INIT,
        BodySleep::Auto => {
            if (0..m.nu).any(|u| actuates(m, &s.body_treeid, u, t))
                || coupled_by_tendon(m, &s.body_treeid, t)
            {
                policy::AUTO_NEVER
            } else {
                policy::AUTO_ALLOWED
            }
        }
    }
}

/// `tree_sleep_policy` of every tree of `m` (what [`crate::setconst::set_const`] stores in
/// `Model::tree_sleep_policy`).
pub fn tree_sleep_policy(m: &Model) -> Vec<i32> {
    let s = crate::data::scratch::IslandScratch::new(m);
    (0..s.ntree).map(|t| tree_policy(m, &s, t)).collect()
}

/// The number of kinematic trees of `m`: dofs without a parent dof.
fn ntree(m: &Model) -> usize {
    (0..m.nv)
        .filter(|&i| m.dof_parentid.get(i).is_none_or(|&p| p < 0))
        .count()
}

/// Whether tree `t` may sleep: its stored policy (`Model::tree_sleep_policy`) is not
/// *never*; a tree without one never sleeps.
#[inline]
fn may_sleep(m: &Model, t: usize) -> bool {
    m.tree_sleep_policy
        .get(t)
        .is_some_and(|p| !matches!(*p, policy::NEVER | policy::AUTO_NEVER))
}

/// The smallest `dof_length` of a rotational dof (measured on MuJoCo 4.0.0: a hinge at the
/// centre of mass of a body without geoms, or with a geom of radius 1e-7, has 1e-5).
const MIN_DOF_LENGTH: f64 = 1e-5;

/// Each body's length scale for the rest test of its rotational dofs, from its centre of
/// mass (`body_ipos`): the largest of its geoms' reach (`|geom_pos − body_ipos| + r`,
/// `geom_pos` taken as the frame `geom_sameframe` names), its joints' distance
/// (`|jnt_pos − body_ipos|`) and the distance of the joints of its child bodies (at
/// `body_pos + body_quat·jnt_pos` in its frame), at least 1e-5. Measured on MuJoCo 4.0.0:
/// the geoms of child bodies, bodies welded to it (and what hangs below them) and sites do
/// not count; `r` is a primitive's radius from its `geom_size`
/// ([`crate::model::GeomType::primitive_rbound`]) and `geom_rbound` for meshes and height fields
/// (`mj_setConst` follows a changed `geom_size` of a box but not a changed `geom_rbound`,
/// and a changed `geom_rbound` of a mesh).
pub fn body_lengths(m: &Model) -> Vec<f64> {
    let dist = |p: [f64; 3], b: usize| {
        let ip = m.body_ipos[b];
        ((p[0] - ip[0]).powi(2) + (p[1] - ip[1]).powi(2) + (p[2] - ip[2]).powi(2)).sqrt()
    };
    let mut len = vec![MIN_DOF_LENGTH; m.nbody];
    for g in 0..m.ngeom {
        // a model put together by hand may leave a geom's arrays out: such a geom adds nothing
        let (Some(&b), Some(&ty), Some(&pos)) =
            (m.geom_bodyid.get(g), m.geom_type.get(g), m.geom_pos.get(g))
        else {
            continue;
        };
        // a geom in the body's frame or inertial frame sits exactly at its origin or centre
        // of mass (MuJoCo's `geom_sameframe`; a geom 5e-8 off the centre of mass counts 0)
        let p = match m.geom_sameframe.get(g) {
            Some(SameFrame::Body) => [0.0; 3],
            Some(SameFrame::Inertia) => m.body_ipos[b],
            _ => pos,
        };
        let r = m
            .geom_size
            .get(g)
            .and_then(|&s| ty.primitive_rbound(s))
            .or_else(|| m.geom_rbound.get(g).copied())
            .unwrap_or(0.0);
        len[b] = len[b].max(dist(p, b) + r);
    }
    for j in 0..m.njnt {
        let b = m.jnt_bodyid[j];
        len[b] = len[b].max(dist(m.jnt_pos[j], b));
        let p = m.body_parentid[b];
        if p != b {
            let q = m.body_quat[b];
            let a = crate::math::quat::rot_vec_quat(
                &Vector3::from(m.jnt_pos[j]),
                &Quaternion::new(q[0], q[1], q[2], q[3]),
            );
            let o = m.body_pos[b];
            len[p] = len[p].max(dist([o[0] + a.x, o[1] + a.y, o[2] + a.z], p));
        }
    }
    len
}

/// MuJoCo's `dof_length` of every dof (the speed scale of the rest test): 1 for
/// translational dofs, its body's [`body_lengths`] for rotational ones (measured on MuJoCo
/// 4.0.0, equal to its values on every dof of models/ and of the zoo's models). What
/// [`crate::setconst::set_const`] stores in `Model::dof_length`.
pub fn dof_lengths(m: &Model) -> Vec<f64> {
    let len = body_lengths(m);
    (0..m.nv)
        .map(|i| {
            let j = m.dof_jntid[i];
            let translational = match m.jnt_type[j] {
                JointType::Slide => true,
                JointType::Free => i - m.jnt_dofadr[j] < 3,
                _ => false,
            };
            if translational {
                1.0
            } else {
                len[m.dof_bodyid[i]]
            }
        })
        .collect()
}

#[inline]
fn active(m: &Model) -> bool {
    m.opt.enabled(enable::SLEEP)
}

/// Whether tree `t` is asleep.
#[inline]
fn asleep<T: Scalar>(d: &Data<T>, t: usize) -> bool {
    d.tree_asleep.get(t).is_some_and(|&a| a >= 0)
}

/// Whether some tree is asleep (the integrator then skips the sleeping trees).
pub fn any_asleep<T: Scalar>(m: &Model, d: &Data<T>) -> bool {
    active(m) && d.tree_asleep.iter().any(|&a| a >= 0)
}

/// Whether dof `i` belongs to a sleeping tree.
#[inline]
pub fn dof_asleep<T: Scalar>(d: &Data<T>, i: usize) -> bool {
    asleep(d, d.island_scratch.dof_treeid[i])
}

/// Whether dof `i` belongs to a sleeping tree while the `sleep` flag is on: its friction-loss
/// and joint-limit rows are then left out (measured on MuJoCo 4.0.0: a sleeping arm resting
/// on its limit has no rows).
#[inline]
pub fn dof_idle<T: Scalar>(m: &Model, d: &Data<T>, i: usize) -> bool {
    active(m) && dof_asleep(d, i)
}

/// Whether body `b` is not awake: static (the world and bodies welded to it) or asleep.
#[inline]
fn body_idle<T: Scalar>(d: &Data<T>, b: usize) -> bool {
    usize::try_from(d.island_scratch.body_treeid[b]).map_or(true, |t| asleep(d, t))
}

/// The collision skips a body pair when neither body is awake (with the `sleep` flag).
#[inline]
pub fn pair_idle<T: Scalar>(m: &Model, d: &Data<T>, b1: usize, b2: usize) -> bool {
    active(m) && body_idle(d, b1) && body_idle(d, b2)
}

/// Wakes the sleeping cycle of tree `t` (every tree of it back to [`AWAKE_RESET`]).
fn wake_cycle<T: Scalar>(d: &mut Data<T>, t: usize) {
    wake_cycle_in(&mut d.tree_asleep, t);
}

/// [`wake_cycle`] on the counters `tree_asleep`.
fn wake_cycle_in(tree_asleep: &mut [i32], t: usize) {
    let mut u = t;
    for _ in 0..tree_asleep.len() {
        let Ok(next) = usize::try_from(tree_asleep[u]) else {
            return;
        };
        tree_asleep[u] = AWAKE_RESET;
        if next == t || next >= tree_asleep.len() {
            return;
        }
        u = next;
    }
}

/// Wakes the sleeping trees the user changed: `qpos` differing from when they fell asleep, or
/// a nonzero `qvel`, `qfrc_applied` or `xfrc_applied` (start of the position stage).
pub fn wake_changed<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if !active(m) {
        return;
    }
    let mut tree_asleep = std::mem::take(&mut d.tree_asleep);
    wake_changed_into(m, d, &mut tree_asleep, &d.sleep_qpos);
    d.tree_asleep = tree_asleep;
}

/// [`wake_changed`] on the sleep state `tree_asleep`, `sleep_qpos` (the `qpos` the sleeping
/// trees fell asleep at) with the inputs of `d` (`qpos`, `qvel`, `qfrc_applied`,
/// `xfrc_applied`): what `tree_asleep` the next step's position stage would go on with if
/// `d` held that sleep state. Without the `sleep` flag `tree_asleep` is left as it is.
pub fn wake_changed_into<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    tree_asleep: &mut [i32],
    sleep_qpos: &[T],
) {
    if !active(m) {
        return;
    }
    let s = &d.island_scratch;
    for t in 0..tree_asleep.len() {
        if tree_asleep[t] < 0 {
            continue;
        }
        let (d0, nd) = (s.tree_dofadr[t], s.tree_dofnum[t]);
        let moved = (d0..d0 + nd).any(|i| d.qvel[i] != T::zero() || d.qfrc_applied[i] != T::zero())
            || (1..m.nbody).any(|b| {
                s.body_treeid[b] == t as i32 && d.xfrc_applied[b].iter().any(|x| *x != T::zero())
            })
            || (0..m.njnt).any(|j| {
                s.body_treeid[m.jnt_bodyid[j]] == t as i32 && {
                    let a = m.jnt_qposadr[j];
                    let n = m.jnt_type[j].nq();
                    d.qpos[a..a + n] != sleep_qpos[a..a + n]
                }
            });
        if moved {
            wake_cycle_in(tree_asleep, t);
        }
    }
}

/// Wakes the sleeping trees that a contact joins to an awake tree (after the collision);
/// true if some tree woke up, and the collision must then be run again.
pub fn wake_by_contacts<T: Scalar>(m: &Model, d: &mut Data<T>) -> bool {
    if !active(m) {
        return false;
    }
    let mut woke = false;
    for c in 0..d.contact.len() {
        let g = d.contact[c].geom;
        let tree = |g: usize| d.island_scratch.body_treeid[m.geom_bodyid[g]];
        let (t1, t2) = (tree(g[0]), tree(g[1]));
        for (a, b) in [(t1, t2), (t2, t1)] {
            if let (Ok(a), Ok(b)) = (usize::try_from(a), usize::try_from(b)) {
                if asleep(d, a) && !asleep(d, b) {
                    wake_cycle(d, a);
                    woke = true;
                }
            }
        }
    }
    woke
}

/// The sleep counters after a step's forward dynamics (before its integration): counts the
/// awake trees at rest and prepares the islands whose trees have all been at rest for
/// [`MINAWAKE`] steps to fall asleep (their `qvel` set to 0). True if some island falls
/// asleep: the caller then runs the velocity, acceleration and constraint stages again and
/// [`commit`]s.
pub fn update<T: Scalar>(m: &Model, d: &mut Data<T>) -> bool {
    if !active(m) {
        return false;
    }
    let tol = sc::<T>(m.opt.sleep_tolerance);
    let s = &d.island_scratch;
    for t in 0..s.ntree {
        if asleep(d, t) {
            continue;
        }
        let (d0, nd) = (s.tree_dofadr[t], s.tree_dofnum[t]);
        let rest = may_sleep(m, t)
            && (d0..d0 + nd).all(|i| {
                let len = m.dof_length.get(i).copied().unwrap_or(1.0);
                d.qvel[i].abs() * sc(len) < tol && d.qfrc_applied[i] == T::zero()
            });
        d.tree_asleep[t] = if rest {
            (d.tree_asleep[t] + 1).min(-1)
        } else {
            AWAKE_RESET
        };
    }
    // an applied body force keeps its (awake) tree from counting a step at rest
    for b in 1..m.nbody {
        if let Ok(t) = usize::try_from(s.body_treeid[b]) {
            if d.tree_asleep[t] < 0 && d.xfrc_applied[b].iter().any(|x| *x != T::zero()) {
                d.tree_asleep[t] = AWAKE_RESET;
            }
        }
    }
    let ntree = d.island_scratch.ntree;
    // the islands that fall asleep: their velocities are zeroed, and the velocity,
    // acceleration and constraint stages run again with them (still awake, with their
    // contacts and rows): MuJoCo 4.0.0's fields after the step in which a tree falls asleep
    // are those of a forward pass at zero velocity of that tree (measured: `qacc`, `cvel`,
    // `cacc`, `qfrc_bias`, `efc_force` and the sensors to the bit); a sleeping tree's sensors
    // keep those values
    let mut any = false;
    for t in 0..ntree {
        if ready(d, t) {
            any = true;
            for u in t..ntree {
                if member(d, t, u) {
                    fall_asleep(m, d, u);
                }
            }
        }
    }
    any
}

/// Puts to sleep the islands [`update`] prepared (after the stages ran again): their trees
/// form a cycle in ascending order (`tree_asleep` = the next tree, the last pointing to the
/// first; a lone tree points to itself).
pub fn commit<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if !active(m) {
        return;
    }
    let ntree = d.island_scratch.ntree;
    for t in 0..ntree {
        if !ready(d, t) {
            continue;
        }
        let mut prev = t;
        for u in t + 1..ntree {
            if member(d, t, u) {
                d.tree_asleep[prev] = u as i32;
                prev = u;
            }
        }
        d.tree_asleep[prev] = t as i32;
    }
}

/// The constraint island of tree `t` in this step (-1: unconstrained).
fn island<T: Scalar>(d: &Data<T>, t: usize) -> i32 {
    if d.nisland == 0 {
        -1
    } else {
        d.tree_island.get(t).copied().unwrap_or(-1)
    }
}

/// Whether tree `u` is in the island of tree `t` (`t` itself if it has none).
fn member<T: Scalar>(d: &Data<T>, t: usize, u: usize) -> bool {
    let k = island(d, t);
    u == t || (k >= 0 && island(d, u) == k)
}

/// Whether tree `t` is the first tree of an island (or an unconstrained tree) whose trees have
/// all been at rest for [`MINAWAKE`] steps (`tree_asleep` −1): that island falls asleep.
fn ready<T: Scalar>(d: &Data<T>, t: usize) -> bool {
    if d.tree_asleep[t] != -1 {
        return false;
    }
    let k = island(d, t);
    if k >= 0 && (0..t).any(|u| island(d, u) == k) {
        return false;
    }
    (t..d.island_scratch.ntree).all(|u| !member(d, t, u) || d.tree_asleep[u] == -1)
}

/// Tree `t` falls asleep: `qvel` 0, `qpos` remembered.
fn fall_asleep<T: Scalar>(m: &Model, d: &mut Data<T>, t: usize) {
    let s = &d.island_scratch;
    let (d0, nd) = (s.tree_dofadr[t], s.tree_dofnum[t]);
    for v in &mut d.qvel[d0..d0 + nd] {
        *v = T::zero();
    }
    for j in 0..m.njnt {
        if d.island_scratch.body_treeid[m.jnt_bodyid[j]] == t as i32 {
            let a = m.jnt_qposadr[j];
            for k in a..a + m.jnt_type[j].nq() {
                d.sleep_qpos[k] = d.qpos[k];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mjcf::{load_from_str, Vfs};

    const XML: &str = r#"<mujoco><option gravity="0 0 0"><flag sleep="enable"/></option>
        <worldbody><geom type="plane" size="5 5 .1"/>
        <body pos="0 0 1"><freejoint/><geom type="box" size=".1 .2 .3"/></body>
        <body pos="2 0 1"><joint type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0 0 1" size=".05"/></body>
        </worldbody></mujoco>"#;

    /// `dof_length`: 1 for translations, the geom's reach from the centre of mass for
    /// rotations (a centred box: its half-diagonal √(.1²+.2²+.3²); a capsule of length 1
    /// about its centre: half its length plus its radius).
    #[test]
    fn dof_length_of_a_box_and_a_capsule() {
        let m = load_from_str(XML, &Vfs::new()).unwrap();
        let l = dof_lengths(&m);
        let b = 0.14f64.sqrt();
        let want = [1.0, 1.0, 1.0, b, b, b, 0.55];
        for (g, w) in l.iter().zip(want) {
            assert!((g - w).abs() < 1e-15, "{l:?}");
        }
    }

    /// `dof_length` of a body with a child: the child's joint anchor counts (here 1.7 from
    /// the parent's centre of mass, beyond its own sphere's 0.1), the child's geoms do not; a
    /// body without geoms whose joint sits at its centre of mass gets the floor 1e-5.
    #[test]
    fn dof_length_of_a_parent_counts_its_childrens_joints() {
        let xml = r#"<mujoco><worldbody>
            <body pos="0 0 1"><joint type="hinge"/><geom type="sphere" size=".1"/>
              <body pos="0 0 1"><joint type="hinge" pos="0 0 .7"/>
                <geom type="sphere" size="2" pos="0 0 .7"/></body></body>
            <body pos="3 0 0"><joint type="hinge"/>
              <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>
            </worldbody></mujoco>"#;
        let m = load_from_str(xml, &Vfs::new()).unwrap();
        let l = dof_lengths(&m);
        for (g, w) in l.iter().zip([1.7, 2.0, 1e-5]) {
            assert!((g - w).abs() < 1e-15, "{l:?}");
        }
    }

    /// Trees at rest from the start fall asleep in the step that completes their
    /// `MINAWAKE` steps at rest, and stay put; a nonzero `qvel` wakes one at the next step.
    #[test]
    fn trees_at_rest_fall_asleep_after_minawake_steps() {
        let m = load_from_str(XML, &Vfs::new()).unwrap();
        let mut d: Data = Data::new(&m);
        assert_eq!(d.tree_asleep, [AWAKE_RESET; 2]);
        for k in 0..MINAWAKE {
            crate::integrator::step(&m, &mut d);
            let want = if k + 1 < MINAWAKE {
                vec![AWAKE_RESET + k + 1; 2]
            } else {
                vec![0, 1]
            };
            assert_eq!(d.tree_asleep, want, "step {k}");
        }
        let q = d.qpos.clone();
        for _ in 0..5 {
            crate::integrator::step(&m, &mut d);
        }
        assert_eq!(d.qpos, q);
        d.qvel[6] = 1.0;
        crate::integrator::step(&m, &mut d);
        assert_eq!(d.tree_asleep, [0, AWAKE_RESET]);
        assert_ne!(d.qpos[7], q[7]);
    }
}
