//! Compile-time constants that need the dynamics at `qpos0` (MuJoCo's `mj_setConst`;
//! docs/mujoco-behaviour.md#parameters, #actuators).

use crate::data::scratch::{clear_on, scatter};
use crate::data::Data;
use crate::forward::fwd_position_with;
use crate::math::spatial::body_last_dof;
use crate::model::{hfield_bounds, BiasType, GainType, GeomType, JointType, Model, TrnType};
use crate::simple::slider_shape;
use crate::smooth::crb::solve_m_range;
use crate::smooth::jacobian::jac_chain;

/// The geoms' `geom_rbound`, `geom_aabb` and ellipsoid-fluid added masses from their sizes
/// (meshes keep theirs: a mesh geom's size is its mesh's).
fn geom_bounds(m: &mut Model) {
    for g in 0..m.ngeom {
        // models built by hand may leave these arrays empty
        let (Some(&t), Some(&size)) = (m.geom_type.get(g), m.geom_size.get(g)) else {
            continue;
        };
        let bounds = match t {
            GeomType::Mesh | GeomType::Sdf => None,
            GeomType::Hfield => m
                .geom_dataid
                .get(g)
                .and_then(|&h| usize::try_from(h).ok())
                .and_then(|h| m.hfield.get(h))
                .map(|h| hfield_bounds(h.size)),
            _ => Some(t.primitive_bounds(size)),
        };
        if let Some((rbound, aabb)) = bounds {
            if let Some(r) = m.geom_rbound.get_mut(g) {
                *r = rbound;
            }
            if let Some(b) = m.geom_aabb.get_mut(g) {
                *b = aabb;
            }
        }
        if let Some(fluid) = m.geom_fluid.get_mut(g).filter(|f| f[0] != 0.0) {
            let coef = [fluid[1], fluid[2], fluid[3], fluid[4], fluid[5]];
            *fluid = crate::passive::fluid::geom_fluid_compile(true, &coef, t, &size);
        }
    }
}

/// The error MuJoCo 4.0.0's `mj_setConst` raises for `m`, if any, in its words: a slider body
/// (joints only slide joints along its axes, a leaf on a body welded to the world, its
/// inertial frame at its frame: `slider_shape`) whose mass is exactly zero,
/// whose inverse weight `1 / body_mass` does not exist ("setInertia0: moving body 1 has 0
/// mass"; measured on 4.0.0: a mass of 1e-20 or -1 passes, 0 and -0 raise). [`set_const`]
/// itself does not check: callers that report errors per model (a batch's `set_const`) ask
/// here first.
pub fn set_const_error(m: &Model) -> Option<String> {
    (1..m.nbody)
        .find(|&b| m.body_mass[b] == 0.0 && slider_shape(m, b))
        .map(|b| format!("setInertia0: moving body {b} has 0 mass"))
}

/// MuJoCo's minimum value (`mjMINVAL`).
const MINVAL: f64 = 1e-15;

/// `1 / body_mass` of a slider body (`slider_shape`) as MuJoCo 4.0.0's `mj_setConst` gives
/// it to `dof_invweight0` and `body_invweight0`, the mass clamped below at `mjMINVAL` (measured:
/// a mass of 1e-20, -1 or -1e-20 gives 1e15); `None` for any other body and for a zero mass,
/// which MuJoCo refuses ([`set_const_error`]) and this leaves to the general formula.
fn slider_invweight(m: &Model, b: usize) -> Option<f64> {
    (m.body_mass[b] != 0.0 && slider_shape(m, b)).then(|| 1.0 / m.body_mass[b].max(MINVAL))
}

/// Fills the fields of `m` that are computed by running the pipeline at `qpos0`:
/// - `dof_M0`: diagonal of M (with dof armature, without tendon armature);
/// - `dof_invweight0`: diagonal of M⁻¹; averaged over the translational and the rotational dofs
///   of a free joint, and over the 3 dofs of a ball joint;
/// - `body_invweight0 = (tr A_tt / 3, tr A_rr / 3)`, `A = J M⁻¹ Jᵀ` with `J` the 6 × nv
///   Jacobian of the body's COM (0 for bodies welded to the world);
/// - except on a "slider" body (MuJoCo's `body_simple = 2`, `slider_invweight`), where both
///   are `1 / body_mass` (no armature, no averaging over the directions), as MuJoCo 4.0.0
///   computes;
/// - `tendon_length0`, `tendon_invweight0 = J M⁻¹ Jᵀ`;
/// - `actuator_length0`, `actuator_acc0 = |M⁻¹ momentᵀ|`;
/// - position-like actuators (fixed gain, affine bias with `biasprm[1] = -gainprm[0]`) whose
///   `biasprm[2] > 0` hold a `dampratio`: replaced by `-kv`, `kv = dampratio · 2 √(kp m)`,
///   `m = 1 / (moment M⁻¹ momentᵀ)`;
/// - `cam_pos0`, `cam_poscom0`, `cam_mat0` (fixed camera pose relative to the body origin /
///   the subtree COM of the target body, else of the camera's body, at `qpos0`), and the
///   lights' `light_pos0`, `light_poscom0`, `light_dir0` alike;
/// - joint `springdamper` → `jnt_stiffness`, `dof_damping`;
/// - `tendon_lengthspring` left at `[-1, -1]` → the tendon length at `qpos_spring`;
/// - the geoms' bounding volumes `geom_rbound`, `geom_aabb` from their sizes (primitives) or
///   their height fields' sizes, and the ellipsoid fluid model's added masses and moments
///   (`geom_fluid[6..12]`) from their sizes, which MuJoCo 4.0.0's `mj_setConst` computes
///   (changelog of 4.0.0; measured against it after edited `geom_size`);
/// - the sleep fields `dof_length` ([`crate::sleep::dof_lengths`]) and `tree_sleep_policy`
///   ([`crate::sleep::tree_sleep_policy`]), which MuJoCo 4.0.0's `mj_setConst` also
///   recomputes (measured: a changed `geom_size`, `body_ipos` or `actuator_trnid` moves them).
pub fn set_const(m: &mut Model) {
    let nv = m.nv;
    geom_bounds(m);
    m.dof_length = crate::sleep::dof_lengths(m);
    m.tree_sleep_policy = crate::sleep::tree_sleep_policy(m);
    m.cam_pos0.resize(m.ncam, [0.0; 3]);
    m.cam_poscom0.resize(m.ncam, [0.0; 3]);
    m.cam_mat0.resize(m.ncam, [0.0; 9]);
    m.light_pos0.resize(m.nlight, [0.0; 3]);
    m.light_poscom0.resize(m.nlight, [0.0; 3]);
    m.light_dir0.resize(m.nlight, [0.0; 3]);
    // Only an adhesion (body) transmission's moment reads the contacts; without one the
    // collision and constraint stages are left out: nothing here reads them, and on seven
    // concentric bodies with 1,025 convex geoms they cost seconds per load (fuzz/README.md)
    let contacts = m.actuator_trntype.contains(&TrnType::Body);
    let mut d = Data::<f64>::alloc(m);
    fwd_position_with(m, &mut d, contacts);
    // camera offsets for track/trackcom from the fixed (kinematic) pose at qpos0
    for c in 0..m.ncam {
        let b = m.cam_bodyid[c];
        let p = d.xpos[b] + d.xmat[b] * crate::math::spatial::v3::<f64>(&m.cam_pos[c]);
        let r = {
            use crate::math::quat::{mul_quat, q4, quat2mat};
            quat2mat(&mul_quat(&d.xquat[b], &q4::<f64>(&m.cam_quat[c])))
        };
        m.cam_pos0[c] = (p - d.xpos[b]).into();
        // relative to the target's subtree COM when a target is named, even for trackcom (which
        // then adds it to its own body's COM), as MuJoCo 4.0.0 does
        let cb = usize::try_from(m.cam_targetbodyid[c]).unwrap_or(b);
        m.cam_poscom0[c] = (p - d.subtree_com[cb]).into();
        m.cam_mat0[c] = std::array::from_fn(|k| r[(k / 3, k % 3)]);
    }
    // light offsets and directions alike
    for l in 0..m.nlight {
        let b = m.light_bodyid[l];
        let p = d.xpos[b] + d.xmat[b] * crate::math::spatial::v3::<f64>(&m.light_pos[l]);
        m.light_pos0[l] = (p - d.xpos[b]).into();
        let cb = usize::try_from(m.light_targetbodyid[l]).unwrap_or(b);
        m.light_poscom0[l] = (p - d.subtree_com[cb]).into();
        m.light_dir0[l] = (d.xmat[b] * crate::math::spatial::v3::<f64>(&m.light_dir[l])).into();
    }
    // dof_M0 excludes the tendon armature (each dof's sum over the tendons in order; the
    // tendons that do not reach the dof add only zeros)
    let mut ten_arm = vec![0.0; nv];
    for t in 0..m.ntendon {
        let (cols, vals) = d.ten_J_row(t);
        for (&i, &v) in cols.iter().zip(vals) {
            ten_arm[i] += m.tendon_armature_eff(t) * v.powi(2);
        }
    }
    m.dof_M0 = (0..nv).map(|i| d.qM[m.dof_Madr[i]] - ten_arm[i]).collect();

    // The products with M⁻¹ below are solved over the kinematic trees a vector reaches
    // (`tree_ranges`), not over all nv dofs: the same numbers, in time linear in the model.
    let tree = tree_ranges(m);
    let mut x = vec![0.0; nv];
    // quadratic form v M⁻¹ v of a v that is zero outside the trees of dofs lo..hi
    let quad = |m: &Model, d: &Data<f64>, v: &[f64], x: &mut [f64], (lo, hi): (usize, usize)| {
        x[lo..hi].copy_from_slice(&v[lo..hi]);
        solve_m_range(m, d, x, lo, hi);
        full_sum(
            v[lo..hi].iter().zip(&x[lo..hi]).map(|(a, b)| a * b),
            hi - lo < nv,
        )
    };

    // dof_invweight0
    let mut e = vec![0.0; nv];
    let mut diag = vec![0.0; nv];
    for i in 0..nv {
        e[i] = 1.0;
        diag[i] = quad(m, &d, &e, &mut x, tree[i]);
        e[i] = 0.0;
    }
    let mut dof_iw = diag.clone();
    for j in 0..m.njnt {
        let a = m.jnt_dofadr[j];
        let groups: &[(usize, usize)] = match m.jnt_type[j] {
            JointType::Free => &[(0, 3), (3, 6)],
            JointType::Ball => &[(0, 3)],
            _ => &[],
        };
        for &(s, t) in groups {
            let mean = diag[a + s..a + t].iter().sum::<f64>() / 3.0;
            dof_iw[a + s..a + t].iter_mut().for_each(|v| *v = mean);
        }
    }
    for b in 1..m.nbody {
        if let Some(w) = slider_invweight(m, b) {
            let a = m.body_dofadr[b];
            dof_iw[a..a + m.body_dofnum[b]]
                .iter_mut()
                .for_each(|v| *v = w);
        }
    }
    m.dof_invweight0 = dof_iw;

    // joint springdamper = (timeconst, dampratio): stiffness and damping of the mass-spring-
    // damper with mass 1 / dof_invweight0 (MuJoCo 4.0.0: k = m / (tc dr)², b = 2 m / tc)
    for j in 0..m.njnt {
        // (models built field by field may leave jnt_springdamper empty)
        let [tc, dr] = m.jnt_springdamper.get(j).copied().unwrap_or([0.0; 2]);
        if tc > 0.0 && dr > 0.0 {
            let a = m.jnt_dofadr[j];
            let iw = m.dof_invweight0[a];
            let mass = if iw > 0.0 { 1.0 / iw } else { 0.0 };
            m.jnt_stiffness[j] = mass / (tc * tc * dr * dr);
            let ndof = match m.jnt_type[j] {
                JointType::Free => 6,
                JointType::Ball => 3,
                _ => 1,
            };
            for v in a..a + ndof {
                m.dof_damping[v] = 2.0 * mass / tc;
            }
        }
    }

    // body_invweight0
    let mut jp = vec![0.0; 3 * nv];
    let mut jr = vec![0.0; 3 * nv];
    let mut iw = vec![[0.0; 2]; m.nbody];
    for (b, w) in iw.iter_mut().enumerate().skip(1) {
        if m.body_weldid[b] == 0 {
            continue;
        }
        if let Some(s) = slider_invweight(m, b) {
            *w = [s, 0.0];
            continue;
        }
        // nonzero only on the body's path to its root, within its tree
        let Some(k) = body_last_dof(m, b) else {
            continue;
        };
        let (lo, hi) = tree[k];
        jac_chain(m, &d, &d.xipos[b], b, Some(&mut jp), Some(&mut jr));
        let mut tt = 0.0;
        let mut rr = 0.0;
        for a in 0..3 {
            tt += quad(m, &d, &jp[a * nv..(a + 1) * nv], &mut x, (lo, hi));
            rr += quad(m, &d, &jr[a * nv..(a + 1) * nv], &mut x, (lo, hi));
        }
        for a in 0..3 {
            jp[a * nv + lo..a * nv + hi].fill(0.0);
            jr[a * nv + lo..a * nv + hi].fill(0.0);
        }
        *w = [tt / 3.0, rr / 3.0];
    }
    m.body_invweight0 = iw;

    // tendons
    m.tendon_length0 = d.ten_length.clone();
    // springlength not given ([-1, -1]): the tendon length at qpos_spring
    if m.tendon_lengthspring.contains(&[-1.0, -1.0]) {
        let mut ds = Data::<f64>::alloc(m);
        ds.qpos.copy_from_slice(&m.qpos_spring);
        fwd_position_with(m, &mut ds, contacts);
        for t in 0..m.ntendon {
            if m.tendon_lengthspring[t] == [-1.0, -1.0] {
                let l = ds.ten_length[t];
                m.tendon_lengthspring[t] = [l, l];
            }
        }
    }
    let mut row = vec![0.0; nv];
    m.tendon_invweight0 = (0..m.ntendon)
        .map(|t| {
            let (cols, vals) = d.ten_J_row(t);
            let r = cols_range(&tree, cols);
            scatter(cols, vals, &mut row);
            let q = quad(m, &d, &row, &mut x, r);
            clear_on(cols, &mut row);
            q
        })
        .collect();

    // actuators
    m.actuator_length0 = d.actuator_length.clone();
    for i in 0..m.nu {
        let (cols, vals) = d.moment_row(i);
        let (lo, hi) = cols_range(&tree, cols);
        scatter(cols, vals, &mut row);
        x[lo..hi].copy_from_slice(&row[lo..hi]);
        solve_m_range(m, &d, &mut x, lo, hi);
        let part = hi - lo < nv;
        m.actuator_acc0[i] = full_sum(x[lo..hi].iter().map(|v| v * v), part).sqrt();
        let mom_quad = full_sum(row[lo..hi].iter().zip(&x[lo..hi]).map(|(a, b)| a * b), part);
        clear_on(cols, &mut row);
        let gp = m.actuator_gainprm[i];
        let bp = &mut m.actuator_biasprm[i];
        if m.actuator_gaintype[i] == GainType::Fixed
            && m.actuator_biastype[i] == BiasType::Affine
            && bp[2] > 0.0
            && gp[0] == -bp[1]
        {
            let kp = gp[0];
            let mass = if mom_quad > 0.0 { 1.0 / mom_quad } else { 0.0 };
            bp[2] = -bp[2] * 2.0 * (kp * mass).sqrt();
        }
    }
}

/// The dofs `lo..hi` of each dof's kinematic tree. Dofs are numbered tree by tree (a body's
/// dofs after its parent's), so each tree's are contiguous; should they not be, every range is
/// all the dofs.
fn tree_ranges(m: &Model) -> Vec<(usize, usize)> {
    let nv = m.nv;
    let root = |i: usize| m.body_rootid[m.dof_bodyid[i]];
    let mut out = vec![(0, nv); nv];
    let mut seen = vec![false; m.nbody];
    let mut lo = 0;
    while lo < nv {
        let r = root(lo);
        if std::mem::replace(&mut seen[r], true) {
            return vec![(0, nv); nv];
        }
        let hi = (lo..nv).find(|&i| root(i) != r).unwrap_or(nv);
        out[lo..hi].fill((lo, hi));
        lo = hi;
    }
    out
}

/// The dofs of the trees that the sorted columns `cols` reach, and those between them (empty
/// for no columns).
fn cols_range(tree: &[(usize, usize)], cols: &[usize]) -> (usize, usize) {
    match (cols.iter().min(), cols.iter().max()) {
        (Some(&a), Some(&b)) => (tree[a].0, tree[b].1),
        _ => (0, 0),
    }
}

/// The sum of `terms`, the products of a vector with M⁻¹ times it over a range of dofs, as the
/// sum over all dofs gives it: in the same order, the dofs outside the range only add `+0`
/// products (`partial`), which leave a nonzero sum unchanged and make a zero one `+0`.
fn full_sum(terms: impl Iterator<Item = f64>, partial: bool) -> f64 {
    let s: f64 = terms.sum();
    if partial && s == 0.0 {
        0.0
    } else {
        s
    }
}
