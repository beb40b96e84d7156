//! Ray casting (API Reference "Ray collisions"; `mj_ray`, `mj_rayGeom`, `mj_multiRay`): the
//! distance `x ≥ 0` along `pnt + x·vec` to the first surface hit, in units of `|vec|`, or `-1` for
//! no hit.
//!
//! Primitive intersections work in the geom frame (`lp = Rᵀ(pnt − pos)`, `lv = Rᵀ vec`) and keep
//! the smallest non-negative root of each surface patch.

use crate::collision::f64of;
use crate::data::Data;
use crate::math::{sc, Scalar};
use crate::model::{GeomType, Model};
use nalgebra::{Matrix3, Vector3};

/// Smallest non-negative root of `a x² + 2 b x + c = 0` (`a > 0`), or -1.
#[inline]
fn quad<T: Scalar>(a: T, b: T, c: T) -> T {
    let det = b * b - a * c;
    if det < sc(1e-15) || a < sc(1e-15) {
        return -T::one();
    }
    let s = det.sqrt();
    let x1 = (-b - s) / a;
    let x2 = (-b + s) / a;
    if x1 >= T::zero() {
        x1
    } else if x2 >= T::zero() {
        x2
    } else {
        -T::one()
    }
}

/// Keeps the smaller non-negative candidate.
#[inline]
fn best<T: Scalar>(cur: T, x: T) -> T {
    if x >= T::zero() && (cur < T::zero() || x < cur) {
        x
    } else {
        cur
    }
}

/// Distance to the sphere of radius `r` centered at the origin (local frame).
fn sphere_local<T: Scalar>(r: T, p: &Vector3<T>, v: &Vector3<T>) -> T {
    quad(v.dot(v), v.dot(p), p.dot(p) - r * r)
}

/// Ray against the infinite cylinder side `x² + y² = r²` restricted to `|z| ≤ h`.
fn cyl_side<T: Scalar>(r: T, h: T, p: &Vector3<T>, v: &Vector3<T>) -> T {
    let a = v.x * v.x + v.y * v.y;
    let b = v.x * p.x + v.y * p.y;
    let c = p.x * p.x + p.y * p.y - r * r;
    let det = b * b - a * c;
    if a < sc(1e-15) || det < sc(1e-15) {
        return -T::one();
    }
    let s = det.sqrt();
    let mut out = -T::one();
    for x in [(-b - s) / a, (-b + s) / a] {
        if x >= T::zero() && (p.z + x * v.z).abs() <= h {
            out = best(out, x);
        }
    }
    out
}

/// Ray against a primitive of type `ty` and size `size` in the local frame (`p`, `v`); -1 for no
/// hit. Meshes and height fields are not primitives (see [`ray_mesh`], [`ray_hfield`]).
pub fn ray_primitive_local<T: Scalar>(
    ty: GeomType,
    size: &[f64; 3],
    p: &Vector3<T>,
    v: &Vector3<T>,
) -> T {
    let s0: T = sc(size[0]);
    let s1: T = sc(size[1]);
    let s2: T = sc(size[2]);
    let z = T::zero();
    match ty {
        GeomType::Plane => {
            // one-sided: only rays moving against the normal (from the front)
            if v.z >= z {
                return -T::one();
            }
            let x = -p.z / v.z;
            if x < z {
                return -T::one();
            }
            let h = p + v * x;
            if (s0 <= z || h.x.abs() <= s0) && (s1 <= z || h.y.abs() <= s1) {
                x
            } else {
                -T::one()
            }
        }
        GeomType::Sphere => sphere_local(s0, p, v),
        GeomType::Capsule => {
            let mut out = cyl_side(s0, s1, p, v);
            for sgn in [T::one(), -T::one()] {
                let c = Vector3::new(z, z, s1 * sgn);
                let x = sphere_local(s0, &(p - c), v);
                // the cap hit counts only on its own side of the cylinder
                if x >= z && (p.z + x * v.z) * sgn >= s1 {
                    out = best(out, x);
                }
                // the far root of the cap sphere can be the exit point seen from inside
                let pc = p - c;
                let a = v.dot(v);
                let b = v.dot(&pc);
                let det = b * b - a * (pc.dot(&pc) - s0 * s0);
                if a >= sc(1e-15) && det >= sc(1e-15) {
                    let x2 = (-b + det.sqrt()) / a;
                    if x2 >= z && (p.z + x2 * v.z) * sgn >= s1 {
                        out = best(out, x2);
                    }
                }
            }
            out
        }
        GeomType::Ellipsoid => {
            let sp = Vector3::new(p.x / s0, p.y / s1, p.z / s2);
            let sv = Vector3::new(v.x / s0, v.y / s1, v.z / s2);
            sphere_local(T::one(), &sp, &sv)
        }
        GeomType::Cylinder => {
            let mut out = cyl_side(s0, s1, p, v);
            if v.z != z {
                for sgn in [T::one(), -T::one()] {
                    let x = (s1 * sgn - p.z) / v.z;
                    if x >= z {
                        let hx = p.x + x * v.x;
                        let hy = p.y + x * v.y;
                        if hx * hx + hy * hy <= s0 * s0 {
                            out = best(out, x);
                        }
                    }
                }
            }
            out
        }
        GeomType::Box => {
            let s = [s0, s1, s2];
            let mut out = -T::one();
            for i in 0..3 {
                if v[i] == z {
                    continue;
                }
                for sgn in [T::one(), -T::one()] {
                    let x = (s[i] * sgn - p[i]) / v[i];
                    if x < z {
                        continue;
                    }
                    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                    if (p[j] + x * v[j]).abs() <= s[j] && (p[k] + x * v[k]).abs() <= s[k] {
                        out = best(out, x);
                    }
                }
            }
            out
        }
        _ => -T::one(),
    }
}

/// Ray against a primitive with world pose (`pos`, `mat`) (`mju_rayGeom`): -1 for no hit.
pub fn ray_primitive<T: Scalar>(
    pos: &Vector3<T>,
    mat: &Matrix3<T>,
    size: &[f64; 3],
    pnt: &Vector3<T>,
    vec: &Vector3<T>,
    ty: GeomType,
) -> T {
    let lp = mat.tr_mul(&(pnt - pos));
    let lv = mat.tr_mul(vec);
    ray_primitive_local(ty, size, &lp, &lv)
}

/// Ray against geom `g` at its current pose (`mj_rayGeom` for primitives, plus meshes and
/// height fields): distance or -1.
pub fn ray_geom<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    g: usize,
    pnt: &Vector3<T>,
    vec: &Vector3<T>,
) -> T {
    let lp = d.geom_xmat[g].tr_mul(&(pnt - d.geom_xpos[g]));
    let lv = d.geom_xmat[g].tr_mul(vec);
    match m.geom_type[g] {
        GeomType::Mesh => ray_mesh(m, g, &lp, &lv),
        GeomType::Hfield => ray_hfield(m, g, &lp, &lv),
        t => ray_primitive_local(t, &m.geom_size[g], &lp, &lv),
    }
}

/// Ray against triangle `(a, b, c)`: distance or -1 (both faces).
fn ray_triangle<T: Scalar>(
    a: &Vector3<T>,
    b: &Vector3<T>,
    c: &Vector3<T>,
    p: &Vector3<T>,
    v: &Vector3<T>,
) -> T {
    let e1 = b - a;
    let e2 = c - a;
    let h = v.cross(&e2);
    let det = e1.dot(&h);
    if det.abs() < sc(1e-15) {
        return -T::one();
    }
    let s = p - a;
    let u = s.dot(&h) / det;
    if u < T::zero() || u > T::one() {
        return -T::one();
    }
    let q = s.cross(&e1);
    let w = v.dot(&q) / det;
    if w < T::zero() || u + w > T::one() {
        return -T::one();
    }
    let x = e2.dot(&q) / det;
    if x >= T::zero() {
        x
    } else {
        -T::one()
    }
}

/// Ray against the triangles of mesh geom `g` (local frame).
pub fn ray_mesh<T: Scalar>(m: &Model, g: usize, p: &Vector3<T>, v: &Vector3<T>) -> T {
    let Some(mesh) = usize::try_from(m.geom_dataid[g])
        .ok()
        .and_then(|i| m.mesh.get(i))
    else {
        return -T::one();
    };
    let vt = |i: usize| {
        let w = mesh.vert[i];
        // MuJoCo stores mesh vertices in single precision
        let f = |x: f64| sc::<T>(x as f32 as f64);
        Vector3::new(f(w[0]), f(w[1]), f(w[2]))
    };
    let mut out = -T::one();
    for f in &mesh.face {
        out = best(out, ray_triangle(&vt(f[0]), &vt(f[1]), &vt(f[2]), p, v));
    }
    out
}

/// Ray against height-field geom `g` (local frame): the top surface (two triangles per cell,
/// split as in collision), the base box `z ∈ [-size[3], 0]` and the four side walls below the
/// boundary profile.
///
/// Only the cells the ray's ground track crosses are tested: the grid rows are visited in the
/// order the ray reaches them, each row's columns limited to the track's extent in that row
/// (padded by half a cell in `y` and a cell in `x`, far beyond rounding), and the walk stops once
/// a row starts beyond the nearest hit so far. A triangle or wall the ray hits lies in a cell it
/// crosses, so the result is that of testing every triangle, for a few dozen tests instead of
/// `4 (nrow-1)(ncol-1)`.
pub fn ray_hfield<T: Scalar>(m: &Model, g: usize, p: &Vector3<T>, v: &Vector3<T>) -> T {
    let Some(hf) = usize::try_from(m.geom_dataid[g])
        .ok()
        .and_then(|i| m.hfield.get(i))
    else {
        return -T::one();
    };
    let (nr, nc) = (hf.nrow, hf.ncol);
    if nr < 2 || nc < 2 || hf.data.len() < nr * nc {
        return -T::one();
    }
    let [sx, sy, sz, sb] = hf.size;
    let (dx, dy) = (2.0 * sx / (nc - 1) as f64, 2.0 * sy / (nr - 1) as f64);
    let vtx = |i: usize, j: usize| -> Vector3<T> {
        Vector3::new(
            sc(-sx + dx * j as f64),
            sc(-sy + dy * i as f64),
            sc(hf.data[i * nc + j] * sz),
        )
    };
    // base box
    let off = Vector3::new(T::zero(), T::zero(), sc(-0.5 * sb));
    let mut out = ray_primitive_local(GeomType::Box, &[sx, sy, 0.5 * sb], &(p - off), v);
    // the ray's parameter range over the grid (padded by a cell), t >= 0
    let (px, py, vx, vy) = (f64of(p.x), f64of(p.y), f64of(v.x), f64of(v.y));
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for (q, w, lo, hi) in [(px, vx, -sx - dx, sx + dx), (py, vy, -sy - dy, sy + dy)] {
        if w != 0.0 {
            let (a, b) = ((lo - q) / w, (hi - q) / w);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        } else if !(q >= lo && q <= hi) {
            return out;
        }
    }
    if t0.is_nan() || t1.is_nan() || t0 > t1 {
        return out;
    }
    // extent of p + t v over [a, b] in one coordinate
    let span = |q: f64, w: f64, a: f64, b: f64| -> (f64, f64) {
        if w == 0.0 {
            (q, q)
        } else {
            let (u, z) = (q + a * w, q + b * w);
            (u.min(z), u.max(z))
        }
    };
    let index = |x: f64, s: f64, d: f64, n: usize| -> isize {
        (((x + s) / d).floor().clamp(-1.0, n as f64)) as isize
    };
    let (ylo, yhi) = span(py, vy, t0, t1);
    let (ra, rb) = (
        (index(ylo, sy, dy, nr) - 1).max(0) as usize,
        (index(yhi, sy, dy, nr) + 1).min(nr as isize - 2),
    );
    if rb < ra as isize {
        return out;
    }
    let rb = rb as usize;
    let z0 = |w: Vector3<T>| Vector3::new(w.x, w.y, T::zero());
    for k in 0..=rb - ra {
        // rows in the order the ray reaches them
        let i = if vy < 0.0 { rb - k } else { ra + k };
        let (a, b) = if vy != 0.0 {
            let lo = -sy + dy * (i as f64 - 0.5);
            let hi = -sy + dy * (i as f64 + 1.5);
            let (a, b) = ((lo - py) / vy, (hi - py) / vy);
            (a.min(b).max(t0), a.max(b).min(t1))
        } else {
            (t0, t1)
        };
        let best_so_far = f64of(out);
        if best_so_far >= 0.0 && a > best_so_far {
            break;
        }
        if a.is_nan() || b.is_nan() || a > b {
            continue;
        }
        let (xlo, xhi) = span(px, vx, a, b);
        let ca = (index(xlo, sx, dx, nc) - 1).max(0) as usize;
        let cb = index(xhi, sx, dx, nc) + 1;
        let cb = cb.min(nc as isize - 2);
        if cb < ca as isize {
            continue;
        }
        let cb = cb as usize;
        for j in ca..=cb {
            let (p00, p01, p10, p11) = (vtx(i, j), vtx(i, j + 1), vtx(i + 1, j), vtx(i + 1, j + 1));
            out = best(out, ray_triangle(&p00, &p11, &p01, p, v));
            out = best(out, ray_triangle(&p00, &p10, &p11, p, v));
        }
        // side walls: vertical quads from z = 0 up to the boundary profile, as triangle pairs
        let mut wall = |a: Vector3<T>, b: Vector3<T>| {
            out = best(out, ray_triangle(&z0(a), &z0(b), &b, p, v));
            out = best(out, ray_triangle(&z0(a), &b, &a, p, v));
        };
        if ca == 0 {
            wall(vtx(i, 0), vtx(i + 1, 0));
        }
        if cb == nc - 2 {
            wall(vtx(i, nc - 1), vtx(i + 1, nc - 1));
        }
        for j in ca..=cb {
            if i == 0 {
                wall(vtx(0, j), vtx(0, j + 1));
            }
            if i == nr - 2 {
                wall(vtx(nr - 1, j), vtx(nr - 1, j + 1));
            }
        }
    }
    out
}

/// Whether geom `g` takes part in a scene ray query (`mj_ray`'s filter): not on `bodyexclude`,
/// not on a static (world-welded) body unless `flg_static`, and, with a group mask, its group
/// enabled (groups outside 0..6 clamped to 0..=5, as in MuJoCo), and not invisible: the alpha of
/// its material if it has one (`mat_rgba`, even when the geom's own `rgba` is set), else of its
/// `geom_rgba`, must not be 0 (MuJoCo 4.0.0, tests/engine/camera_rangefinder_oracle.rs; rangefinders follow it).
pub fn ray_eligible(
    m: &Model,
    g: usize,
    geomgroup: Option<[bool; 6]>,
    flg_static: bool,
    bodyexclude: Option<usize>,
) -> bool {
    let b = m.geom_bodyid[g];
    if Some(b) == bodyexclude {
        return false;
    }
    let alpha = match m.geom_matid.get(g).and_then(|&k| usize::try_from(k).ok()) {
        Some(k) => m.mat_rgba.get(k).map_or(1.0, |c| c[3]),
        None => m.geom_rgba.get(g).map_or(1.0, |c| f64::from(c[3])),
    };
    if alpha == 0.0 {
        return false;
    }
    if !flg_static && m.body_weldid[b] == 0 {
        return false;
    }
    if let Some(gg) = geomgroup {
        if !gg[m.geom_group[g].clamp(0, 5) as usize] {
            return false;
        }
    }
    true
}

/// Casts the ray `pnt + x·vec` against all eligible geoms (`mj_ray`): returns the nearest
/// distance (in units of `|vec|`) and geom, or `(-1, None)`.
pub fn ray<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    pnt: &Vector3<T>,
    vec: &Vector3<T>,
    geomgroup: Option<[bool; 6]>,
    flg_static: bool,
    bodyexclude: Option<usize>,
) -> (T, Option<usize>) {
    let mut out = -T::one();
    let mut id = None;
    for g in 0..m.ngeom {
        if !ray_eligible(m, g, geomgroup, flg_static, bodyexclude) {
            continue;
        }
        let x = ray_geom(m, d, g, pnt, vec);
        if x >= T::zero() && (out < T::zero() || x < out) {
            out = x;
            id = Some(g);
        }
    }
    (out, id)
}

/// Casts `vec.len()` rays from one point (`mj_multiRay`), writing distances (or -1) and geoms
/// into `dist` / `geomid`. `cutoff`: hits farther than this are reported as -1.
#[allow(clippy::too_many_arguments)]
pub fn multi_ray<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    pnt: &Vector3<T>,
    vec: &[Vector3<T>],
    geomgroup: Option<[bool; 6]>,
    flg_static: bool,
    bodyexclude: Option<usize>,
    dist: &mut [T],
    geomid: &mut [Option<usize>],
    cutoff: T,
) {
    for (k, v) in vec.iter().enumerate() {
        let (x, g) = ray(m, d, pnt, v, geomgroup, flg_static, bodyexclude);
        if x >= T::zero() && x <= cutoff {
            dist[k] = x;
            geomid[k] = g;
        } else {
            dist[k] = -T::one();
            geomid[k] = None;
        }
    }
}
