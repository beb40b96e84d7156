//! Sleeping trees (the `sleep` enable flag, XML reference `option/flag`; `sleep_tolerance`;
//! the body attribute `sleep`), as measured on MuJoCo 4.0.0:
//!
//! - A kinematic tree is *at rest* in a step when every dof's `|qvel|·dof_length` is below
//!   `opt.sleep_tolerance` and no `qfrc_applied` or `xfrc_applied` acts on it, with the
//!   velocity the step starts from. `dof_length` is 1 for translational dofs.
//! - `tree_asleep` is −11 after a reset; each step at rest adds 1 up to −1, any other step
//!   sets it back to −11. Trees whose sleep policy is *never* (trees with actuators unless
//!   `sleep="allowed"`, and `sleep="never"`) stay at −11.
//! - A constraint island of the step (or an unconstrained tree) whose trees are all at −1
//!   falls asleep in that step, after the forward dynamics and before the integration: its
//!   trees form a cycle in ascending order (`tree_asleep` = the next tree, the last pointing
//!   to the first; a lone tree points to itself) and their `qvel` is set to 0.
//! - Sleeping trees are not integrated and take no contacts with static geoms or other
//!   sleeping trees. A contact between an awake tree and a sleeping one, or a change of a
//!   sleeping tree's `qpos`, a nonzero `qvel`, `qfrc_applied` or `xfrc_applied` on it, wakes
//!   its whole cycle (back to −11), in the same step.

use crate::data::Data;
use crate::math::{sc, Scalar};
use crate::model::{disable, enable, BodySleep, Integrator, JointType, Model, TrnType, WrapType};

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
    if m.ntendon > 0 || m.neq > 0 || m.npair > 0 {
        return Some(
            "sleep in models with tendons, equality constraints or explicit contact pairs",
        );
    }
    if m.body_sleep.contains(&BodySleep::Init) {
        return Some("sleep=\"init\" (trees asleep from the start)");
    }
    // trees that never sleep (actuated, `sleep="never"`) are simulated as without the flag
    let s = crate::data::scratch::IslandScratch::new(m);
    let sleepy = tree_policies(m, &s);
    let sleepy_body = |b: usize| usize::try_from(s.body_treeid[b]).is_ok_and(&sleepy);
    for b in (1..m.nbody).filter(|&b| sleepy_body(b)) {
        if s.body_treeid[m.body_parentid[b]] >= 0 {
            return Some("sleep in trees of more than one body (their dof_length is not known)");
        }
        if m.body_geomnum[b] == 0 {
            return Some("sleep in trees whose body has no geom (their dof_length is not known)");
        }
    }
    for j in (0..m.njnt).filter(|&j| sleepy_body(m.jnt_bodyid[j])) {
        let d0 = m.jnt_dofadr[j];
        let nd = m.jnt_type[j].nv();
        if m.jnt_limited[j] || (d0..d0 + nd).any(|i| m.dof_frictionloss[i] > 0.0) {
            return Some("sleep in trees with joint limits or dof friction");
        }
    }
    None
}

/// Whether actuator `u`'s transmission acts on tree `t`: its joint's, site's or body's tree,
/// the trees of both slider-crank sites, or every tree a tendon's path touches.
fn actuates(m: &Model, body_treeid: &[i32], u: usize, t: usize) -> bool {
    let on = |b: Option<&usize>| b.and_then(|&b| body_treeid.get(b)) == Some(&(t as i32));
    let ids = m.actuator_trnid[u].map(|i| usize::try_from(i).ok());
    let Some(id) = ids[0] else {
        return false;
    };
    match m.actuator_trntype[u] {
        TrnType::Joint | TrnType::JointInParent => on(m.jnt_bodyid.get(id)),
        TrnType::Site => on(m.site_bodyid.get(id)),
        TrnType::SliderCrank => {
            on(m.site_bodyid.get(id)) || ids[1].is_some_and(|s| on(m.site_bodyid.get(s)))
        }
        TrnType::Body => on(Some(&id)),
        TrnType::Tendon => {
            let w0 = m.tendon_adr[id];
            (w0..w0 + m.tendon_num[id]).any(|w| {
                let Ok(o) = usize::try_from(m.wrap_objid[w]) else {
                    return false;
                };
                match m.wrap_type[w] {
                    WrapType::Joint => on(m.jnt_bodyid.get(o)),
                    WrapType::Site => on(m.site_bodyid.get(o)),
                    WrapType::Sphere | WrapType::Cylinder => on(m.geom_bodyid.get(o)),
                    WrapType::Pulley | WrapType::None => false,
                }
            })
        }
    }
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
            if (0..m.nu).any(|u| actuates(m, &s.body_treeid, u, t)) {
                policy::AUTO_NEVER
            } else {
                policy::AUTO_ALLOWED
            }
        }
    }
}

/// `tree_sleep_policy` of every tree of `m`.
pub fn tree_sleep_policy(m: &Model) -> Vec<i32> {
    let s = crate::data::scratch::IslandScratch::new(m);
    (0..s.ntree).map(|t| tree_policy(m, &s, t)).collect()
}

/// Whether each tree may sleep (its policy is not *never*).
fn tree_policies<'a>(
    m: &'a Model,
    s: &'a crate::data::scratch::IslandScratch,
) -> impl Fn(usize) -> bool + 'a {
    move |t: usize| !matches!(tree_policy(m, s, t), policy::NEVER | policy::AUTO_NEVER)
}

/// MuJoCo's `dof_length` (the speed scale of the rest test): 1 for translational dofs; for
/// rotational dofs the larger of the body's geoms' reach from its centre of mass
/// (`|geom_pos − body_ipos| + geom_rbound`) and the joint's distance to the centre of mass
/// (measured on MuJoCo 4.0.0 for single-body trees).
pub fn dof_length(m: &Model, i: usize) -> f64 {
    let j = m.dof_jntid[i];
    let translational = match m.jnt_type[j] {
        JointType::Slide => true,
        JointType::Free => i - m.jnt_dofadr[j] < 3,
        _ => false,
    };
    if translational {
        return 1.0;
    }
    let b = m.jnt_bodyid[j];
    let ip = m.body_ipos[b];
    let dist = |p: &[f64; 3]| {
        ((p[0] - ip[0]).powi(2) + (p[1] - ip[1]).powi(2) + (p[2] - ip[2]).powi(2)).sqrt()
    };
    let g0 = m.body_geomadr[b];
    (g0..g0 + m.body_geomnum[b])
        .map(|g| dist(&m.geom_pos[g]) + m.geom_rbound[g])
        .fold(dist(&m.jnt_pos[j]), f64::max)
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
    let mut u = t;
    for _ in 0..d.tree_asleep.len() {
        let Ok(next) = usize::try_from(d.tree_asleep[u]) else {
            return;
        };
        d.tree_asleep[u] = AWAKE_RESET;
        if next == t || next >= d.tree_asleep.len() {
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
    for t in 0..d.tree_asleep.len() {
        if !asleep(d, t) {
            continue;
        }
        let s = &d.island_scratch;
        let (d0, nd) = (s.tree_dofadr[t], s.tree_dofnum[t]);
        let moved = (d0..d0 + nd).any(|i| d.qvel[i] != T::zero() || d.qfrc_applied[i] != T::zero())
            || (1..m.nbody).any(|b| {
                s.body_treeid[b] == t as i32 && d.xfrc_applied[b].iter().any(|x| *x != T::zero())
            })
            || (0..m.njnt).any(|j| {
                s.body_treeid[m.jnt_bodyid[j]] == t as i32 && {
                    let a = m.jnt_qposadr[j];
                    let n = m.jnt_type[j].nq();
                    d.qpos[a..a + n] != d.sleep_qpos[a..a + n]
                }
            });
        if moved {
            wake_cycle(d, t);
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
/// awake trees at rest and puts to sleep the islands whose trees have all been at rest for
/// [`MINAWAKE`] steps (setting their `qvel` to 0).
pub fn update<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if !active(m) {
        return;
    }
    let s = std::mem::take(&mut d.island_scratch);
    let may_sleep = tree_policies(m, &s);
    let tol = m.opt.sleep_tolerance;
    for t in 0..s.ntree {
        if asleep(d, t) {
            continue;
        }
        let (d0, nd) = (s.tree_dofadr[t], s.tree_dofnum[t]);
        let rest = may_sleep(t)
            && (d0..d0 + nd).all(|i| {
                d.qvel[i].abs() * sc(dof_length(m, i)) < sc(tol) && d.qfrc_applied[i] == T::zero()
            })
            && !(1..m.nbody).any(|b| {
                s.body_treeid[b] == t as i32 && d.xfrc_applied[b].iter().any(|x| *x != T::zero())
            });
        d.tree_asleep[t] = if rest {
            (d.tree_asleep[t] + 1).min(-1)
        } else {
            AWAKE_RESET
        };
    }
    drop(may_sleep);
    d.island_scratch = s;
    let ntree = d.island_scratch.ntree;
    let island = |d: &Data<T>, t: usize| -> i32 {
        if d.nisland == 0 {
            -1
        } else {
            d.tree_island.get(t).copied().unwrap_or(-1)
        }
    };
    for t in 0..ntree {
        if d.tree_asleep[t] != -1 {
            continue;
        }
        let k = island(d, t);
        // an island falls asleep from its first tree, when all its trees are ready
        if k >= 0 && (0..t).any(|u| island(d, u) == k) {
            continue;
        }
        let members = |d: &Data<T>, u: usize| u == t || (k >= 0 && island(d, u) == k);
        if !(t..ntree).all(|u| !members(d, u) || d.tree_asleep[u] == -1) {
            continue;
        }
        let mut prev = t;
        for u in t + 1..ntree {
            if members(d, u) {
                d.tree_asleep[prev] = u as i32;
                prev = u;
            }
        }
        d.tree_asleep[prev] = t as i32;
        for u in t..ntree {
            if members(d, u) && d.tree_asleep[u] >= 0 {
                fall_asleep(m, d, u);
            }
        }
    }
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
        let l: Vec<f64> = (0..m.nv).map(|i| dof_length(&m, i)).collect();
        let b = 0.14f64.sqrt();
        let want = [1.0, 1.0, 1.0, b, b, b, 0.55];
        for (g, w) in l.iter().zip(want) {
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
