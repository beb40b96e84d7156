//! Tendon lengths, moment arms and velocities (`mj_tendon`; Computation "Actuation model",
//! "Simulation pipeline"; XML Reference `tendon`).
//!
//! - **Fixed** tendons (every wrap a joint): `L = Σ coef · q`, `J = coef` on each joint's dof.
//! - **Spatial** tendons: a path through sites, optionally wrapping around spheres and cylinders
//!   placed between two sites, split into branches by pulleys. Each branch's length is divided by
//!   the divisor of the pulley that started it (1 for the first branch). A straight segment
//!   between points `a` (on body `A`) and `b` (on body `B`) adds `|b - a|` to the length and
//!   `uᵀ (Jp_B(b) - Jp_A(a))` to the moment arms, `u = (b - a)/|b - a|`. A wrapped segment
//!   `s₀ → t₀ ⌒ t₁ → s₁` adds the two straight pieces (tangent points moving with the geom's body)
//!   plus the arc (which, by minimality, does not contribute to the derivative).
//!
//! Wrap selection ([`wrap`], verified against MuJoCo 4.0.0 on random configurations): both
//! end points are mapped into the geom frame and the problem is solved in 2D (for a sphere in the
//! plane through the center and both points, for a cylinder in its cross-section, the axial
//! coordinate then interpolated along the unrolled path, a helix). No wrap if either point is
//! inside the circle. Without a side site the path wraps the short way round iff the straight
//! segment crosses the circle. With a side site `s` (projected into the same 2D frame): if `s`
//! lies strictly inside the cone spanned by `-p₀` and `-p₁`, the path always wraps the long way
//! round (the side opposite to the straight segment); otherwise the no-side rule applies. A side
//! site inside the geom (distance to the center in 3D below the radius, also for cylinders)
//! selects MuJoCo's inside wrap ([`wrap_inside`]): the path touches the circle in one point.
//!
//! Also records the path points like MuJoCo: `ten_wrapadr/ten_wrapnum` index `wrap_obj` (-1 site,
//! -2 pulley, geom id for the two tangent points) and `wrap_xpos` (pulley entries are zero).

use crate::data::scratch::gather_clear;
use crate::data::Data;
use crate::math::spatial::{ang, body_last_dof, dof_parent, lin};
use crate::math::{sc, Scalar};
use crate::model::{Model, WrapType};
use nalgebra::{Matrix3, Vector2, Vector3, Vector6};

/// True if tendon `t` is a fixed tendon (every wrap is a joint).
pub fn is_fixed(m: &Model, t: usize) -> bool {
    let a = m.tendon_adr[t];
    m.wrap_type[a..a + m.tendon_num[t]]
        .iter()
        .all(|w| *w == WrapType::Joint)
}

/// Adds `coef · (u · Jp(point))` to `row` for the world point `point` attached to `body`
/// (`Jp` the translational point Jacobian, see [`crate::smooth::jacobian::jac`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn add_point_jac<T: Scalar>(
    m: &Model,
    cdof: &[Vector6<T>],
    subtree_com: &[Vector3<T>],
    point: &Vector3<T>,
    body: usize,
    u: &Vector3<T>,
    coef: T,
    row: &mut [T],
) {
    let r = point - subtree_com[m.body_rootid[body]];
    // u · (v + w × r) = u · v + w · (r × u)
    let ru = r.cross(u);
    let mut i = body_last_dof(m, body);
    while let Some(k) = i {
        row[k] += coef * (lin(&cdof[k]).dot(u) + ang(&cdof[k]).dot(&ru));
        i = dof_parent(m, k);
    }
}

/// Adds `coef · (u · Jr(body))` to `row` (rotational Jacobian of `body`).
pub(crate) fn add_rot_jac<T: Scalar>(
    m: &Model,
    cdof: &[Vector6<T>],
    body: usize,
    u: &Vector3<T>,
    coef: T,
    row: &mut [T],
) {
    let mut i = body_last_dof(m, body);
    while let Some(k) = i {
        row[k] += coef * ang(&cdof[k]).dot(u);
        i = dof_parent(m, k);
    }
}

#[inline]
fn cross2<T: Scalar>(a: &Vector2<T>, b: &Vector2<T>) -> T {
    a.x * b.y - a.y * b.x
}

/// The tangent point on the circle of radius `r` (centered at the origin) seen from `p`, such
/// that a path travelling in direction `dir` (+1 counter-clockwise, -1 clockwise) around the
/// circle leaves `p` (`arrive = true`: arrives from `p`) along the tangent.
fn tangent<T: Scalar>(p: &Vector2<T>, r: T, dir: T, arrive: bool) -> Vector2<T> {
    let d2 = p.norm_squared();
    let a = r * r / d2;
    let b = r * (d2 - r * r).sqrt() / d2;
    let perp = Vector2::new(-p.y, p.x);
    // candidate t = a p + s b perp(p); the travel direction at t is dir · perp(t)
    // arriving: (t - p) · dir·perp(t) > 0; leaving: (p - t) · dir·perp(t) > 0.
    // (t - p) · perp(t) = -p · perp(t) = -s b (p · p)·... evaluates to s·b·d2 sign-wise:
    // p · perp(a p + s b perp p) = s b (p · perp(perp p)) = -s b d2, so (t - p)·perp(t) = s b d2.
    let s = if arrive { dir } else { -dir };
    p * a + perp * (s * b)
}

/// Angle travelled from `t0` to `t1` going in direction `dir` (in [0, 2π)).
fn arc_angle<T: Scalar>(t0: &Vector2<T>, t1: &Vector2<T>, dir: T) -> T {
    let mut a = (dir * cross2(t0, t1)).atan2(t0.dot(t1));
    if a < T::zero() {
        a += T::two_pi();
    }
    a
}

/// True if the segment `p0 p1` passes strictly inside the circle of radius `r`.
fn segment_hits<T: Scalar>(p0: &Vector2<T>, p1: &Vector2<T>, r: T) -> bool {
    let dif = p1 - p0;
    let dd = dif.norm_squared();
    let mut t = if dd > sc(1e-30) {
        -p0.dot(&dif) / dd
    } else {
        T::zero()
    };
    if t < T::zero() {
        t = T::zero();
    } else if t > T::one() {
        t = T::one();
    }
    (p0 + dif * t).norm_squared() < r * r
}

/// 2D circle wrap: tangent points and arc angle, or `None` for a straight path.
fn wrap_circle<T: Scalar>(
    p0: &Vector2<T>,
    p1: &Vector2<T>,
    side: Option<&Vector2<T>>,
    r: T,
) -> Option<(Vector2<T>, Vector2<T>, T)> {
    let r2 = r * r;
    if p0.norm_squared() < r2 || p1.norm_squared() < r2 || r < sc(1e-15) {
        return None;
    }
    // direction of the short way round
    let short: T = if cross2(p0, p1) > T::zero() {
        T::one()
    } else {
        -T::one()
    };
    let dir = match side {
        Some(s) if short * cross2(p0, s) < T::zero() && short * cross2(s, p1) < T::zero() => -short,
        _ => {
            if !segment_hits(p0, p1, r) {
                return None;
            }
            short
        }
    };
    let t0 = tangent(p0, r, dir, true);
    let t1 = tangent(p1, r, dir, false);
    let ang = arc_angle(&t0, &t1, dir);
    Some((t0, t1, ang))
}

/// 2D "inside" wrap (side site inside the geom, MuJoCo 4.0.0 behaviour checked in
/// tests/engine/camera_rangefinder_oracle.rs): the path must touch the closed disk of radius `r`. If the straight
/// segment `p0 p1` already does (or an end point lies in the disk) it is the path (`None`);
/// otherwise the path is `p0 → t → p1` with `t` on the circle minimizing `|t − p0| + |t − p1|`
/// (where the circle normal bisects the angle at `t`). `t` is found on the arc between the
/// directions of `p0` and `p1` by bisection on the stationarity condition
/// `g(θ) = u⊥(θ) · (e₀ + e₁) = 0`, `eᵢ = (r u − pᵢ)/|r u − pᵢ|`, then one Newton step carries
/// derivatives for dual numbers.
fn wrap_inside<T: Scalar>(p0: &Vector2<T>, p1: &Vector2<T>, r: T) -> Option<Vector2<T>> {
    if r < sc(1e-15) {
        return None;
    }
    let dif = p1 - p0;
    let dd = dif.norm_squared();
    let mut s = if dd > sc(1e-30) {
        -p0.dot(&dif) / dd
    } else {
        T::zero()
    };
    if s < T::zero() {
        s = T::zero();
    } else if s > T::one() {
        s = T::one();
    }
    if (p0 + dif * s).norm_squared() <= r * r {
        return None;
    }
    // g(θ) and g'(θ)
    let eval = |th: T| -> (T, T) {
        let u = Vector2::new(th.cos(), th.sin());
        let up = Vector2::new(-u.y, u.x);
        let mut g = T::zero();
        let mut gp = T::zero();
        for p in [p0, p1] {
            let v = u * r - p;
            let l = v.norm();
            let e = v / l;
            let c = up.dot(&e);
            g += c;
            gp += -u.dot(&e) + r * (T::one() - c * c) / l;
        }
        (g, gp)
    };
    let th0 = p0.y.atan2(p0.x);
    let delta = cross2(p0, p1).atan2(p0.dot(p1));
    let g0 = eval(th0).0;
    let (mut lo, mut hi) = (T::zero(), T::one());
    for _ in 0..64 {
        let mid = (lo + hi) * sc(0.5);
        let gm = eval(th0 + delta * mid).0;
        if (gm > T::zero()) == (g0 > T::zero()) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let mut th = th0 + delta * ((lo + hi) * sc(0.5));
    let (g, gp) = eval(th);
    if gp != T::zero() {
        th -= g / gp;
    }
    Some(Vector2::new(th.cos(), th.sin()) * r)
}

/// Result of wrapping a segment around a geom: world tangent points and wrapped length.
pub struct Wrap<T: Scalar> {
    pub t0: Vector3<T>,
    pub t1: Vector3<T>,
    pub arc: T,
}

/// Wraps the segment between world points `x0`, `x1` around a sphere or cylinder (`kind`) of
/// radius `r` with pose (`pos`, `mat`), optionally on the side of world point `side`
/// (MuJoCo's `mju_wrap`). `None`: the straight segment is the path.
pub fn wrap<T: Scalar>(
    x0: &Vector3<T>,
    x1: &Vector3<T>,
    pos: &Vector3<T>,
    mat: &Matrix3<T>,
    r: T,
    kind: WrapType,
    side: Option<&Vector3<T>>,
) -> Option<Wrap<T>> {
    let p0 = mat.tr_mul(&(x0 - pos));
    let p1 = mat.tr_mul(&(x1 - pos));
    let sd = side.map(|s| mat.tr_mul(&(s - pos)));
    // side site inside the geom (3D distance in the geom frame, also for cylinders)
    let inside = sd.is_some_and(|s| s.norm() < r);
    let circle = |q0: &Vector2<T>, q1: &Vector2<T>, s2: Option<&Vector2<T>>| {
        if inside {
            wrap_inside(q0, q1, r).map(|t| (t, t, T::zero()))
        } else {
            wrap_circle(q0, q1, s2, r)
        }
    };
    if kind == WrapType::Sphere {
        let n0 = p0.norm();
        if n0 < r || p1.norm() < r {
            return None;
        }
        let ax0 = p0 / n0;
        let mut nrm = p0.cross(&p1);
        let nn = nrm.norm();
        if nn < sc(1e-15) {
            // parallel: any plane containing p0; use the axis least aligned with p0
            let (ax, ay, az) = (ax0.x.abs(), ax0.y.abs(), ax0.z.abs());
            let e = if ax <= ay && ax <= az {
                Vector3::x()
            } else if ay <= az {
                Vector3::y()
            } else {
                Vector3::z()
            };
            nrm = ax0.cross(&e);
            nrm /= nrm.norm();
        } else {
            nrm /= nn;
        }
        let ax1 = nrm.cross(&ax0).normalize();
        let q0 = Vector2::new(p0.dot(&ax0), p0.dot(&ax1));
        let q1 = Vector2::new(p1.dot(&ax0), p1.dot(&ax1));
        let s2 = sd.map(|s| Vector2::new(s.dot(&ax0), s.dot(&ax1)));
        let (t0, t1, ang) = circle(&q0, &q1, s2.as_ref())?;
        let w0 = ax0 * t0.x + ax1 * t0.y;
        let w1 = ax0 * t1.x + ax1 * t1.y;
        Some(Wrap {
            t0: mat * w0 + pos,
            t1: mat * w1 + pos,
            arc: ang * r,
        })
    } else {
        let q0 = Vector2::new(p0.x, p0.y);
        let q1 = Vector2::new(p1.x, p1.y);
        let s2 = sd.map(|s| Vector2::new(s.x, s.y));
        let (t0, t1, ang) = circle(&q0, &q1, s2.as_ref())?;
        let arc2 = ang * r;
        let l0 = (q0 - t0).norm();
        let l1 = (q1 - t1).norm();
        let tot = l0 + arc2 + l1;
        let dz = p1.z - p0.z;
        let (z0, z1) = if tot > sc(1e-15) {
            (p0.z + dz * l0 / tot, p0.z + dz * (l0 + arc2) / tot)
        } else {
            (p0.z, p0.z)
        };
        let w0 = Vector3::new(t0.x, t0.y, z0);
        let w1 = Vector3::new(t1.x, t1.y, z1);
        Some(Wrap {
            t0: mat * w0 + pos,
            t1: mat * w1 + pos,
            arc: (arc2 * arc2 + (z1 - z0) * (z1 - z0)).sqrt(),
        })
    }
}

/// Adds the straight segment `a` (on body `ba`) → `b` (on body `bb`) scaled by `1/div` to the
/// tendon row; returns its length.
#[allow(clippy::too_many_arguments)]
fn segment<T: Scalar>(
    m: &Model,
    cdof: &[Vector6<T>],
    com: &[Vector3<T>],
    a: &Vector3<T>,
    ba: usize,
    b: &Vector3<T>,
    bb: usize,
    inv_div: T,
    row: &mut [T],
) -> T {
    let dif = b - a;
    let len = dif.norm();
    if len > sc(1e-15) {
        let u = dif / len;
        add_point_jac(m, cdof, com, b, bb, &u, inv_div, row);
        add_point_jac(m, cdof, com, a, ba, &u, -inv_div, row);
    }
    len
}

fn push_wrap<T: Scalar>(d: &mut Data<T>, k: &mut usize, obj: i32, p: Vector3<T>) {
    if *k < d.wrap_obj.len() {
        d.wrap_obj[*k] = obj;
        d.wrap_xpos[*k] = p;
    }
    *k += 1;
}

/// Length and moment-arm row of spatial tendon `t`; appends the path points from `*k`.
/// The moment arms are accumulated in `row` (dense, nv).
fn spatial<T: Scalar>(m: &Model, d: &mut Data<T>, t: usize, k: &mut usize, row: &mut [T]) -> T {
    let a = m.tendon_adr[t];
    let n = m.tendon_num[t];
    let mut inv_div = T::one();
    let mut len = T::zero();
    let mut j = 0;
    while j < n {
        let w = a + j;
        match m.wrap_type[w] {
            WrapType::Pulley => {
                inv_div = T::one() / sc(m.wrap_prm[w]);
                push_wrap(d, k, -2, Vector3::zeros());
                j += 1;
            }
            WrapType::Site => {
                let s0 = m.wrap_objid[w] as usize;
                let x0 = d.site_xpos[s0];
                push_wrap(d, k, -1, x0);
                if j + 1 >= n || m.wrap_type[w + 1] == WrapType::Pulley {
                    j += 1;
                    continue;
                }
                let b0 = m.site_bodyid[s0];
                if m.wrap_type[w + 1] == WrapType::Site {
                    let s1 = m.wrap_objid[w + 1] as usize;
                    let x1 = d.site_xpos[s1];
                    let l = segment(
                        m,
                        &d.cdof,
                        &d.subtree_com,
                        &x0,
                        b0,
                        &x1,
                        m.site_bodyid[s1],
                        inv_div,
                        row,
                    );
                    len += l * inv_div;
                    j += 1;
                } else {
                    // site - geom - site
                    let g = m.wrap_objid[w + 1] as usize;
                    let s1 = m.wrap_objid[w + 2] as usize;
                    let x1 = d.site_xpos[s1];
                    let b1 = m.site_bodyid[s1];
                    let side = usize::try_from(m.wrap_prm[w + 1] as i64)
                        .ok()
                        .map(|s| d.site_xpos[s]);
                    let res = wrap(
                        &x0,
                        &x1,
                        &d.geom_xpos[g],
                        &d.geom_xmat[g],
                        sc(m.geom_size[g][0]),
                        m.wrap_type[w + 1],
                        side.as_ref(),
                    );
                    match res {
                        None => {
                            let l =
                                segment(m, &d.cdof, &d.subtree_com, &x0, b0, &x1, b1, inv_div, row);
                            len += l * inv_div;
                        }
                        Some(wr) => {
                            let bg = m.geom_bodyid[g];
                            let l0 = segment(
                                m,
                                &d.cdof,
                                &d.subtree_com,
                                &x0,
                                b0,
                                &wr.t0,
                                bg,
                                inv_div,
                                row,
                            );
                            let l1 = segment(
                                m,
                                &d.cdof,
                                &d.subtree_com,
                                &wr.t1,
                                bg,
                                &x1,
                                b1,
                                inv_div,
                                row,
                            );
                            len += (l0 + wr.arc + l1) * inv_div;
                            push_wrap(d, k, g as i32, wr.t0);
                            push_wrap(d, k, g as i32, wr.t1);
                        }
                    }
                    j += 2;
                }
            }
            _ => j += 1,
        }
    }
    len
}

/// Computes `ten_length`, `ten_J` (sparse, on the model's pattern) and the wrap path
/// (`ten_wrapadr/ten_wrapnum/wrap_obj/wrap_xpos`) from the kinematics (needs `cdof`,
/// `subtree_com`, `site_xpos`, `geom_xpos/xmat`).
pub fn tendon<T: Scalar>(m: &Model, d: &mut Data<T>) {
    // each row is accumulated in a dense row of zeros, then copied onto its pattern
    let mut row = std::mem::take(&mut d.dense_row);
    let mut k = 0;
    for t in 0..m.ntendon {
        if t < d.ten_wrapadr.len() {
            d.ten_wrapadr[t] = k;
        }
        if is_fixed(m, t) {
            let a = m.tendon_adr[t];
            let mut len = T::zero();
            for w in a..a + m.tendon_num[t] {
                let j = m.wrap_objid[w] as usize;
                let coef: T = sc(m.wrap_prm[w]);
                len += coef * d.qpos[m.jnt_qposadr[j]];
                row[m.jnt_dofadr[j]] += coef;
            }
            d.ten_length[t] = len;
        } else {
            d.ten_length[t] = spatial(m, d, t, &mut k, &mut row);
        }
        let s = &d.sparse_scratch;
        let (a, n) = (s.ten_J_rowadr[t], s.ten_J_rownnz[t]);
        gather_clear(&mut row, &s.ten_J_colind[a..a + n], &mut d.ten_J[a..a + n]);
        if t < d.ten_wrapnum.len() {
            d.ten_wrapnum[t] = k - d.ten_wrapadr[t];
        }
    }
    d.dense_row = row;
}

/// `ten_velocity = ten_J · qvel`, summed over the row's pattern from +0 (the exact zeros
/// outside it add nothing for a finite `qvel`: such a sum is never −0).
pub fn tendon_velocity<T: Scalar>(m: &Model, d: &mut Data<T>) {
    for t in 0..m.ntendon {
        let (cols, vals) = d.ten_J_row(t);
        let v = cols
            .iter()
            .zip(vals)
            .fold(T::zero(), |s, (&k, &j)| s + j * d.qvel[k]);
        d.ten_velocity[t] = v;
    }
}

/// Spatial bias acceleration `Σ cdof_dot_k q̇_k` of body `b` (zero joint accelerations).
fn body_bias_acc<T: Scalar>(m: &Model, d: &Data<T>, b: usize) -> Vector6<T> {
    let mut a = Vector6::zeros();
    let mut i = body_last_dof(m, b);
    while let Some(k) = i {
        a += d.cdof_dot[k] * d.qvel[k];
        i = dof_parent(m, k);
    }
    a
}

/// Velocity and bias acceleration (at zero `qacc`) of the world point `p` fixed to body `b`.
fn point_vel_acc<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    b: usize,
    p: &Vector3<T>,
) -> (Vector3<T>, Vector3<T>) {
    let r = p - d.subtree_com[m.body_rootid[b]];
    let cv = d.cvel[b];
    let w = ang(&cv);
    let v = lin(&cv) + w.cross(&r);
    let acc = body_bias_acc(m, d, b);
    let a = lin(&acc) + ang(&acc).cross(&r) + w.cross(&v);
    (v, a)
}

/// `d/dt |b - a|` second-order bias term of a segment: `(|Δv|² - (u·Δv)²)/L + u·(a_b - a_a)`.
fn segment_dot<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    a: &Vector3<T>,
    ba: usize,
    b: &Vector3<T>,
    bb: usize,
) -> T {
    let dif = b - a;
    let len = dif.norm();
    if len <= sc(1e-15) {
        return T::zero();
    }
    let u = dif / len;
    let (va, aa) = point_vel_acc(m, d, ba, a);
    let (vb, ab) = point_vel_acc(m, d, bb, b);
    let dv = vb - va;
    let ud = u.dot(&dv);
    (dv.norm_squared() - ud * ud) / len + u.dot(&(ab - aa))
}

/// Calls `f(a, body_a, b, body_b, scale)` for each straight segment `a → b` of spatial tendon
/// `t`'s recorded path (`wrap_obj/wrap_xpos`), in path order; `scale` is `1/divisor` of the
/// pulley that started the segment's branch (1 on the first branch). Tangent points belong to
/// their geom's body; the arc between a geom's two tangent points is not a segment. Needs the
/// tendon stage.
pub fn for_each_segment<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    t: usize,
    mut f: impl FnMut(&Vector3<T>, usize, &Vector3<T>, usize, T),
) {
    let adr = d.ten_wrapadr[t];
    let num = d.ten_wrapnum[t];
    let mut inv_div = T::one();
    // walk the wraps of the tendon alongside the recorded path
    let mut prev: Option<(Vector3<T>, usize)> = None;
    let mut w = m.tendon_adr[t];
    for e in adr..adr + num {
        let obj = d.wrap_obj[e];
        let p = d.wrap_xpos[e];
        if obj == -2 {
            // pulley: the wrap list has it at the same position in order
            while m.wrap_type[w] != WrapType::Pulley {
                w += 1;
            }
            inv_div = T::one() / sc(m.wrap_prm[w]);
            w += 1;
            prev = None;
            continue;
        }
        let body = if obj == -1 {
            while m.wrap_type[w] != WrapType::Site {
                w += 1;
            }
            let s = m.wrap_objid[w] as usize;
            w += 1;
            m.site_bodyid[s]
        } else {
            m.geom_bodyid[obj as usize]
        };
        if let Some((pp, pb)) = prev {
            if !(obj >= 0 && d.wrap_obj[e - 1] == obj) {
                f(&pp, pb, &p, body, inv_div);
            }
        }
        prev = Some((p, body));
    }
}

/// `J̇ q̇` of spatial tendon `t` from the recorded path (`wrap_obj/wrap_xpos`). Tangent points
/// are treated as fixed to their geom's body (an approximation; MuJoCo 4.0.0 rejects tendon
/// armature on tendons with geom wraps, so only site/pulley paths are checked against it).
/// Needs `cvel`, `cdof_dot`.
pub fn tendon_jdot_qvel<T: Scalar>(m: &Model, d: &Data<T>, t: usize) -> T {
    let mut out = T::zero();
    for_each_segment(m, d, t, |pa, ba, pb, bb, s| {
        out += segment_dot(m, d, pa, ba, pb, bb) * s;
    });
    out
}

/// Adds the tendon-armature bias force `Σ_t armature_t J_tᵀ (J̇_t q̇)` to `qfrc_bias` (zero for
/// fixed tendons, whose Jacobian is constant). Needs `ten_J`, `cvel`, `cdof_dot`.
pub fn tendon_armature_bias<T: Scalar>(m: &Model, d: &mut Data<T>) {
    for t in 0..m.ntendon {
        let arm = m.tendon_armature_eff(t);
        if arm == 0.0 || is_fixed(m, t) {
            continue;
        }
        let f = tendon_jdot_qvel(m, d, t) * sc(arm);
        let s = &d.sparse_scratch;
        for x in s.ten_J_rowadr[t]..s.ten_J_rowadr[t] + s.ten_J_rownnz[t] {
            d.qfrc_bias[s.ten_J_colind[x]] += d.ten_J[x] * f;
        }
    }
}
