//! Differentiable re-evaluation of the contacts of the `f64` convex colliders (Computation
//! "Checking"). The convex search ([`super::convex::penetration_within`], [`super::multiccd`],
//! plane–mesh, height-field prisms) runs in `f64` and fixes *which* features touch; for a dual
//! scalar the contact's `dist`, `pos` and `frame` are then recomputed in `T` from those features
//! and the geoms' `T` poses, and their real parts are reset to the `f64` values ([`revalue`]), so the values stay
//! MuJoCo's and the derivative parts are those of the exact contact of the features:
//!
//! - polytope features (vertex, edge, face; box corners, mesh vertices, face normals fixed in
//!   the geom frame): closed forms (vertex/point on a face, edge–edge closest points), exact on
//!   the open set where the features do not change;
//! - smooth features (ellipsoid, cylinder rim, the spherical parts of spheres and capsules, taken
//!   as a point or segment core plus a radius): the contact normal `n` minimizes
//!   `h(u) = h_A(u) + h_B(−u)` (support functions; `dist = −min h`), so its derivative follows
//!   from the optimality condition by the implicit function theorem, as one Newton step in `T`
//!   from the `f64` normal (the CCD's, refined by Newton steps in `f64` on the same condition): `α = −J⁻¹ F_T`, `F_i = t_i(α) · (s_A(n) − s_B(−n))`,
//!   `J = Tᵀ(Ds_A + Ds_B)T + dist I` (tangent basis `t_i`; `Ds` from a `Dual64` evaluation of
//!   the support map), restricted to the great circle `⊥ e` against an edge `e`.
//!
//! Where the CCD stops at its tolerance, the `f64` value stays MuJoCo's and the derivative is
//! that of the exact contact at the computed features. Degenerate configurations whose contact
//! point is not locally unique (face–face, edge–face, parallel edges; single contacts only:
//! multi-contact patches are handled in [`super::multiccd`]) keep the normal attached to the
//! face (else geom 0) and the witness points attached to their geoms.

use super::memo::{Feat, FeatMemo, MEMO};
use super::shape::{ConvexContact, Shape};
use super::sink::{f64of, Sink};
use crate::math::{sc, Scalar};
use nalgebra::{Matrix2, Matrix3, Vector2, Vector3};
use num_dual::Dual64;

type V3 = Vector3<f64>;

/// True if `T` is `f64` (no derivative parts: the re-evaluation is skipped).
#[inline]
pub(crate) fn is_f64<T: Scalar>() -> bool {
    std::any::TypeId::of::<T>() == std::any::TypeId::of::<f64>()
}

/// `x` with its value replaced by `v` and its derivative parts kept.
#[inline]
pub(crate) fn revalue<T: Scalar>(x: T, v: f64) -> T {
    x - sc::<T>(f64of(x)) + sc::<T>(v)
}

/// [`revalue`] per component.
pub(crate) fn revalue3<T: Scalar>(x: &Vector3<T>, v: &V3) -> Vector3<T> {
    Vector3::new(revalue(x.x, v.x), revalue(x.y, v.y), revalue(x.z, v.z))
}

/// An `f64` vector as a constant `T` vector.
#[inline]
pub(crate) fn tv<T: Scalar>(x: &V3) -> Vector3<T> {
    Vector3::new(sc(x.x), sc(x.y), sc(x.z))
}

impl<T: Scalar> Sink<'_, T> {
    /// Adds a contact whose values are the `f64` ones (`dist`, `pos`, normal `n`) and whose
    /// derivative parts are those of `dt`, `pt`, `nt` (see [`revalue`]). A re-evaluation that is
    /// not finite (a degenerate feature set the `f64` search still accepted) keeps the values
    /// with zero derivative parts, so the contact set never differs from the `f64` one.
    pub(crate) fn add_exact(
        &mut self,
        (dist, pos, n): (f64, &V3, &V3),
        (dt, pt, nt): (T, Vector3<T>, Vector3<T>),
    ) {
        let (dt, pt, nt) = (revalue(dt, dist), revalue3(&pt, pos), revalue3(&nt, n));
        if dt.is_finite() && pt.iter().chain(nt.iter()).all(|x| x.is_finite()) {
            self.add(dt, pt, nt, None);
        } else {
            self.add(sc(dist), tv(pos), tv(n), None);
        }
    }
}

/// Relative tolerance of the feature classification (supports within `FEAT_TOL · scale` of
/// the maximum belong to the feature; directions within `FEAT_TOL` rad of an axis or of its
/// normal plane select a cylinder's cap or side, a capsule's side). The CCD normal is accurate
/// to about its tolerance over the shape's size (≤ 1e-9 at MuJoCo's default `ccd_tolerance`).
const FEAT_TOL: f64 = 1e-8;

/// One side of a pair: its shape, the radius added to its core, the feature, and its pose in
/// `f64` and in `T`.
struct Side<'s, T: Scalar> {
    shape: Shape<'s>,
    rho: f64,
    feat: Feat,
    pos0: V3,
    mat0: Matrix3<f64>,
    pos: Vector3<T>,
    mat: Matrix3<T>,
}

fn polytope_feature(nv: usize, vert: impl Fn(usize) -> V3, l: &V3) -> Feat {
    let mut best = f64::NEG_INFINITY;
    let mut scale: f64 = 0.0;
    for i in 0..nv {
        let v = vert(i);
        scale = scale.max(v.amax());
        best = best.max(l.dot(&v));
    }
    let eps = FEAT_TOL * scale.max(1e-300);
    let mut sel = [V3::zeros(); 32];
    let mut ns = 0;
    for i in 0..nv {
        let v = vert(i);
        if l.dot(&v) >= best - eps && ns < sel.len() {
            sel[ns] = v;
            ns += 1;
        }
    }
    match ns {
        0 | 1 => Feat::Vertex(sel[0]),
        2 => Feat::Edge(sel[0], sel[1]),
        _ => {
            // the normal of the largest triangle with the first vertex and the farthest one
            let v0 = sel[0];
            let mut v1 = sel[1];
            for &v in &sel[1..ns] {
                if (v - v0).norm() > (v1 - v0).norm() {
                    v1 = v;
                }
            }
            let mut nrm = V3::zeros();
            for &v in &sel[1..ns] {
                let c = (v1 - v0).cross(&(v - v0));
                if c.norm() > nrm.norm() {
                    nrm = c;
                }
            }
            match nrm.try_normalize(0.0) {
                Some(x) if x.dot(l) < 0.0 => Feat::Face(-x, v0),
                Some(x) => Feat::Face(x, v0),
                None => Feat::Edge(v0, v1),
            }
        }
    }
}

impl FeatMemo {
    /// [`classify`] of geom `g`'s `shape`, from the memo when kept.
    fn classify(&mut self, g: usize, shape: &Shape, mat: &Matrix3<f64>, u: &V3) -> (Feat, f64) {
        if !self.on {
            return classify(shape, mat, u);
        }
        let mut key = (g, [0u64; 12]);
        for (k, x) in mat.iter().chain(u.iter()).enumerate() {
            key.1[k] = x.to_bits();
        }
        if let Some(i) = self.keys[..self.n].iter().position(|k| *k == key) {
            return self.vals[i];
        }
        let v = classify(shape, mat, u);
        let i = self.next;
        self.keys[i] = key;
        self.vals[i] = v;
        self.next = (i + 1) % MEMO;
        self.n = (self.n + 1).min(MEMO);
        v
    }
}

/// Core, radius and feature of `shape` supporting the world direction `u` (`mat`: its pose).
fn classify(shape: &Shape, mat: &Matrix3<f64>, u: &V3) -> (Feat, f64) {
    let l = mat.transpose() * u;
    let sgn = |x: f64| if x >= 0.0 { 1.0 } else { -1.0 };
    match *shape {
        Shape::Sphere(r) => (Feat::Vertex(V3::zeros()), r),
        Shape::Capsule(r, h) => {
            let (a, b) = (V3::new(0.0, 0.0, -h), V3::new(0.0, 0.0, h));
            if l.z.abs() < FEAT_TOL {
                (Feat::Edge(a, b), r)
            } else {
                (Feat::Vertex(V3::new(0.0, 0.0, sgn(l.z) * h)), r)
            }
        }
        Shape::Ellipsoid(_) => (Feat::Smooth(0.0), 0.0),
        Shape::Cylinder(r, h) => {
            let nxy = l.x.hypot(l.y);
            if nxy < FEAT_TOL {
                let z = sgn(l.z);
                (
                    Feat::Face(V3::new(0.0, 0.0, z), V3::new(0.0, 0.0, z * h)),
                    0.0,
                )
            } else if l.z.abs() < FEAT_TOL {
                (Feat::Edge(V3::new(0.0, 0.0, -h), V3::new(0.0, 0.0, h)), r)
            } else {
                (Feat::Smooth(sgn(l.z)), 0.0)
            }
        }
        Shape::Box(s) => {
            let corner = |i: usize| {
                let sg = |bit: usize, x: f64| if i & bit != 0 { x } else { -x };
                V3::new(sg(1, s[0]), sg(2, s[1]), sg(4, s[2]))
            };
            (polytope_feature(8, corner, &l), 0.0)
        }
        Shape::Mesh(v) => {
            let vert = |i: usize| V3::new(v[i][0], v[i][1], v[i][2]);
            (polytope_feature(v.len(), vert, &l), 0.0)
        }
    }
}

/// Support point (local frame) of a smooth feature in local direction `l`.
fn smooth_local<S: Scalar>(shape: &Shape, zsign: f64, l: &Vector3<S>) -> Vector3<S> {
    match *shape {
        Shape::Ellipsoid(_) => shape.support_t(l),
        Shape::Cylinder(r, h) => {
            let n = (l.x * l.x + l.y * l.y).sqrt();
            let r = sc::<S>(r);
            Vector3::new(l.x * r / n, l.y * r / n, sc(zsign * h))
        }
        _ => Vector3::zeros(),
    }
}

/// Core support point of a vertex or smooth feature in world direction `u`, in scalar `S`.
fn support<'s, S: Scalar>(
    shape: &Shape<'s>,
    feat: &Feat,
    pos: &Vector3<S>,
    mat: &Matrix3<S>,
) -> impl Fn(&Vector3<S>) -> Vector3<S> + 's {
    let (shape, feat, pos, mat) = (*shape, *feat, *pos, *mat);
    move |u: &Vector3<S>| match feat {
        Feat::Vertex(v) => pos + mat * tv::<S>(&v),
        Feat::Smooth(z) => pos + mat * smooth_local(&shape, z, &(mat.transpose() * u)),
        Feat::Edge(a, _) | Feat::Face(_, a) => pos + mat * tv::<S>(&a),
    }
}

impl<'s, T: Scalar> Side<'s, T> {
    fn world(&self, v: &V3) -> Vector3<T> {
        self.pos + self.mat * tv::<T>(v)
    }
    fn sup(&self) -> impl Fn(&Vector3<T>) -> Vector3<T> + 's {
        support(&self.shape, &self.feat, &self.pos, &self.mat)
    }
    /// The support map on `Dual64` at the `f64` pose (for the Newton Jacobian).
    fn sup_dual(&self) -> impl Fn(&Vector3<Dual64>) -> Vector3<Dual64> + 's {
        let p = self.pos0.map(Dual64::from);
        let r = self.mat0.map(Dual64::from);
        support(&self.shape, &self.feat, &p, &r)
    }
    fn pointlike(&self) -> bool {
        matches!(self.feat, Feat::Vertex(_) | Feat::Smooth(_))
    }
    /// A point fixed in this geom's frame, given in the world at the `f64` pose.
    fn fixed(&self, p: &V3) -> Vector3<T> {
        self.world(&(self.mat0.transpose() * (p - self.pos0)))
    }
}

fn dv(x: &V3) -> Vector3<Dual64> {
    x.map(Dual64::from)
}

/// Contact normal `m` from side `x` (an edge `x0 → x1`) to side `y` (point-like), its `f64`
/// value `m0`: `(m, point on x, point on y)`, or None if singular.
fn edge_point<T: Scalar>(
    x: &Side<T>,
    (a0, a1): (&V3, &V3),
    y: &Side<T>,
    m0: &V3,
) -> Option<(Vector3<T>, Vector3<T>, Vector3<T>)> {
    // f64 circle ⊥ e through m0, F'(0) by Dual64
    let e0 = x.mat0 * (a1 - a0);
    let e0 = e0.try_normalize(0.0)?;
    let ca = (m0 - e0 * e0.dot(m0)).try_normalize(1e-12)?;
    let cb = e0.cross(&ca);
    let x0 = x.pos0 + x.mat0 * a0;
    let sy = y.sup_dual();
    // u(β) = a cos β + b sin β, u'(β) = b cos β − a sin β, at β = ε (cos ε = 1, sin ε = ε)
    let beta = Dual64::new(0.0, 1.0);
    let (ub, bb) = (dv(&ca) + dv(&cb) * beta, dv(&cb) - dv(&ca) * beta);
    let fprime = bb.dot(&(dv(&x0) - sy(&-ub))).eps;
    if !(fprime.abs() > 1e-14) {
        return None;
    }
    // the Newton step in T
    let xa = x.world(a0);
    let e = (x.world(a1) - xa).normalize();
    let a = (tv::<T>(m0) - e * e.dot(&tv::<T>(m0))).normalize();
    let b = e.cross(&a);
    let syt = y.sup();
    let f = b.dot(&(xa - syt(&-a)));
    let beta = -f / sc::<T>(fprime);
    let m = a * beta.cos() + b * beta.sin();
    let py = syt(&-m);
    let px = xa + e * e.dot(&(py - xa));
    Some((m, px, py))
}

/// The exact contact of a single convex contact `c` between `(sa, posed a)` and `(sb, b)`:
/// `(dist, pos, normal)` in `T` (real parts close to, not equal to, `c`'s). `memo`: the
/// features kept for geoms `geoms` ([`FeatMemo`]); None for shapes that are not the geoms'
/// own (height-field prisms).
pub(crate) fn single<T: Scalar>(
    shapes: [Shape; 2],
    pose0: [(V3, Matrix3<f64>); 2],
    pose: [(Vector3<T>, Matrix3<T>); 2],
    c: &ConvexContact,
    mut memo: Option<(&mut FeatMemo, [usize; 2])>,
) -> (T, Vector3<T>, Vector3<T>) {
    let n0 = c.normal;
    let mut mk = |k: usize, u: &V3| {
        let (feat, rho) = match memo.as_mut() {
            Some((memo, geoms)) => memo.classify(geoms[k], &shapes[k], &pose0[k].1, u),
            None => classify(&shapes[k], &pose0[k].1, u),
        };
        Side {
            shape: shapes[k],
            rho,
            feat,
            pos0: pose0[k].0,
            mat0: pose0[k].1,
            pos: pose[k].0,
            mat: pose[k].1,
        }
    };
    let (sa, sb) = (mk(0, &n0), mk(1, &-n0));
    let n0 = refine(&sa, &sb, n0);
    // core witness points at the f64 solution
    let (ca0, cb0) = (c.pa - n0 * sa.rho, c.pb + n0 * sb.rho);
    let (n, pa, pb) = core(&sa, &sb, &n0, (&ca0, &cb0));
    let pa = pa + n * sc::<T>(sa.rho);
    let pb = pb - n * sc::<T>(sb.rho);
    let dist = n.dot(&(pb - pa));
    (dist, (pa + pb) * sc::<T>(0.5), n)
}

/// The normal of the exact contact of the features of `sa`, `sb` (smooth cases: Newton steps in
/// `f64` from the CCD's normal `n0`, which is accurate to about the square root of the CCD
/// tolerance only), so the derivative is evaluated at the exact contact.
fn refine<'s, T: Scalar>(sa: &Side<'s, T>, sb: &Side<'s, T>, mut n0: V3) -> V3 {
    let f64side = |s: &Side<'s, T>| Side::<'s, f64> {
        shape: s.shape,
        rho: s.rho,
        feat: s.feat,
        pos0: s.pos0,
        mat0: s.mat0,
        pos: s.pos0,
        mat: s.mat0,
    };
    let (a, b) = (f64side(sa), f64side(sb));
    for _ in 0..4 {
        let n = match (a.feat, b.feat) {
            (Feat::Edge(a0, a1), _) if b.pointlike() => edge_point(&a, (&a0, &a1), &b, &n0),
            (_, Feat::Edge(b0, b1)) if a.pointlike() => {
                edge_point(&b, (&b0, &b1), &a, &-n0).map(|(m, x, y)| (-m, y, x))
            }
            _ if a.pointlike() && b.pointlike() => point_point(&a, &b, &n0),
            _ => return n0,
        };
        match n {
            Some((n, ..)) if n.iter().all(|x| x.is_finite()) => {
                let done = (n - n0).norm() < 1e-15;
                n0 = n;
                if done {
                    break;
                }
            }
            _ => break,
        }
    }
    n0
}

/// Normal and core witness points of the two sides (see the module docs).
fn core<T: Scalar>(
    sa: &Side<T>,
    sb: &Side<T>,
    n0: &V3,
    (ca0, cb0): (&V3, &V3),
) -> (Vector3<T>, Vector3<T>, Vector3<T>) {
    // degenerate: normal attached to the face (else to geom 0), witnesses to their geoms
    let rigid = |s: &Side<T>, sign: f64| {
        let n = s.mat * tv::<T>(&(s.mat0.transpose() * (n0 * sign))) * sc::<T>(sign);
        (n, sa.fixed(ca0), sb.fixed(cb0))
    };
    match (sa.feat, sb.feat) {
        (Feat::Face(nl, q), _) if sb.pointlike() => {
            let n = sa.mat * tv::<T>(&nl);
            let pb = sb.sup()(&-n);
            let d = n.dot(&(pb - sa.world(&q)));
            (n, pb - n * d, pb)
        }
        (_, Feat::Face(nl, q)) if sa.pointlike() => {
            let n = -(sb.mat * tv::<T>(&nl));
            let pa = sa.sup()(&n);
            let d = n.dot(&(sb.world(&q) - pa));
            (n, pa, pa + n * d)
        }
        (Feat::Face(..), _) => rigid(sa, 1.0),
        (_, Feat::Face(..)) => rigid(sb, -1.0),
        (Feat::Edge(a0, a1), Feat::Edge(b0, b1)) => {
            let (xa, xb) = (sa.world(&a0), sb.world(&b0));
            let (ea, eb) = (sa.world(&a1) - xa, sb.world(&b1) - xb);
            let mm = ea.cross(&eb);
            let s0 = f64of(mm.norm()) / (f64of(ea.norm()) * f64of(eb.norm()));
            if !(s0 > 1e-6) {
                return rigid(sa, 1.0);
            }
            let mut n = mm.normalize();
            if f64of(n.dot(&tv::<T>(n0))) < 0.0 {
                n = -n;
            }
            let r = xa - xb;
            let (a, b, cc) = (ea.dot(&ea), ea.dot(&eb), eb.dot(&eb));
            let (d, e) = (ea.dot(&r), eb.dot(&r));
            let den = a * cc - b * b;
            let s = (b * e - cc * d) / den;
            let t = (a * e - b * d) / den;
            (n, xa + ea * s, xb + eb * t)
        }
        (Feat::Edge(a0, a1), _) => match edge_point(sa, (&a0, &a1), sb, n0) {
            Some((m, px, py)) => (m, px, py),
            None => rigid(sa, 1.0),
        },
        (_, Feat::Edge(b0, b1)) => match edge_point(sb, (&b0, &b1), sa, &-n0) {
            Some((m, px, py)) => (-m, py, px),
            None => rigid(sa, 1.0),
        },
        _ => match point_point(sa, sb, n0) {
            Some(x) => x,
            None => rigid(sa, 1.0),
        },
    }
}

/// Both sides point-like: the 2-D Newton step on the tangent coordinates of the normal.
fn point_point<T: Scalar>(
    sa: &Side<T>,
    sb: &Side<T>,
    n0: &V3,
) -> Option<(Vector3<T>, Vector3<T>, Vector3<T>)> {
    let fr = super::frame_from_normal(*n0, None);
    let t: [V3; 2] = [fr.row(1).transpose(), fr.row(2).transpose()];
    // J = ∂F/∂α at 0 by Dual64, F_i(α) = t_i(α)·(s_A(n) − s_B(−n)), t_i(α) = t_i − n (n·t_i)
    let (da, db) = (sa.sup_dual(), sb.sup_dual());
    let mut j = Matrix2::zeros();
    for col in 0..2 {
        let u = (dv(n0) + dv(&t[col]) * Dual64::new(0.0, 1.0)).normalize();
        let w = da(&u) - db(&-u);
        for row in 0..2 {
            let ti = dv(&t[row]) - u * u.dot(&dv(&t[row]));
            j[(row, col)] = ti.dot(&w).eps;
        }
    }
    let ji = j.try_inverse()?;
    if !ji.iter().all(|x| x.is_finite()) || !(j.determinant().abs() > 1e-20) {
        return None;
    }
    let (fa, fb) = (sa.sup(), sb.sup());
    let nt = tv::<T>(n0);
    let w = fa(&nt) - fb(&-nt);
    let f = Vector2::new(tv::<T>(&t[0]).dot(&w), tv::<T>(&t[1]).dot(&w));
    let mut n = nt;
    for k in 0..2 {
        let alpha = -(f[0] * sc::<T>(ji[(k, 0)]) + f[1] * sc::<T>(ji[(k, 1)]));
        n += tv::<T>(&t[k]) * alpha;
    }
    let n = n.normalize();
    Some((n, fa(&n), fb(&-n)))
}
