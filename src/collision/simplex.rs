//! Closest point to the origin on a GJK simplex of 1-4 support points (the sub-simplex
//! reduction shared by the convex search, [`super::convex`], and MuJoCo's native search,
//! [`super::native`]).

use super::scratch::epa::Vert;
use super::shape::Posed;
use nalgebra::Vector3;

#[cfg(test)]
thread_local! {
    /// Support points of `a − b` evaluated on this thread by the convex searches
    /// ([`super::convex`]'s and [`super::native`]'s): the tests bound a pair's work by it.
    pub(crate) static SUPPORTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Calls of the converged search ([`super::convex::penetration_within`]) on this thread.
    pub(crate) static CONVERGED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one support point of `a − b` ([`SUPPORTS`], in tests only; nothing otherwise).
#[inline]
pub(crate) fn count_support() {
    #[cfg(test)]
    SUPPORTS.with(|c| c.set(c.get() + 1));
}

type V3 = Vector3<f64>;

/// (squared distance, vertices, count, weights, closest point) of a tetrahedron face.
type SubSimplex = (f64, [Vert; 4], usize, [f64; 4], V3);

/// Closest point to the origin on a simplex of 1–4 vertices: reduces the simplex to the
/// supporting sub-simplex and returns its barycentric weights; `None` if the origin is inside
/// the tetrahedron.
pub(super) fn reduce(s: &mut [Vert; 4], n: &mut usize, lam: &mut [f64; 4]) -> Option<V3> {
    match *n {
        1 => {
            lam[0] = 1.0;
            Some(s[0].w)
        }
        2 => {
            let (a, b) = (s[0].w, s[1].w);
            let ab = b - a;
            let den = ab.norm_squared();
            let t = if den > 0.0 {
                (-a.dot(&ab) / den).clamp(0.0, 1.0)
            } else {
                0.0
            };
            if t <= 0.0 {
                *n = 1;
                lam[0] = 1.0;
                return Some(a);
            }
            if t >= 1.0 {
                s[0] = s[1];
                *n = 1;
                lam[0] = 1.0;
                return Some(b);
            }
            lam[0] = 1.0 - t;
            lam[1] = t;
            Some(a + ab * t)
        }
        3 => Some(reduce_tri(s, n, lam)),
        _ => {
            // tetrahedron: test faces against the origin
            let idx = [[0, 1, 2, 3], [0, 1, 3, 2], [0, 2, 3, 1], [1, 2, 3, 0]];
            let mut best: Option<SubSimplex> = None;
            let mut inside = true;
            for f in idx {
                let (a, b, c, dd) = (s[f[0]].w, s[f[1]].w, s[f[2]].w, s[f[3]].w);
                let nrm = (b - a).cross(&(c - a));
                let so = -a.dot(&nrm);
                let sd = (dd - a).dot(&nrm);
                if so * sd < 0.0 || (sd == 0.0) {
                    inside = false;
                    let mut t = [s[f[0]], s[f[1]], s[f[2]], Vert::default()];
                    let mut tn = 3;
                    let mut tl = [0.0; 4];
                    let p = reduce_tri(&mut t, &mut tn, &mut tl);
                    let dn = p.norm_squared();
                    if best.as_ref().is_none_or(|b| dn < b.0) {
                        best = Some((dn, t, tn, tl, p));
                    }
                }
            }
            if inside {
                return None;
            }
            let (_, t, tn, tl, p) = best?;
            *s = t;
            *n = tn;
            *lam = tl;
            Some(p)
        }
    }
}

fn reduce_tri(s: &mut [Vert; 4], n: &mut usize, lam: &mut [f64; 4]) -> V3 {
    // Ericson, closest point on triangle to origin
    let (a, b, c) = (s[0].w, s[1].w, s[2].w);
    let (ab, ac, ap) = (b - a, c - a, -a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    let set1 = |s: &mut [Vert; 4], n: &mut usize, lam: &mut [f64; 4], i: usize| {
        s[0] = s[i];
        *n = 1;
        lam[0] = 1.0;
    };
    if d1 <= 0.0 && d2 <= 0.0 {
        set1(s, n, lam, 0);
        return a;
    }
    let bp = -b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        set1(s, n, lam, 1);
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        *n = 2;
        lam[0] = 1.0 - v;
        lam[1] = v;
        return a + ab * v;
    }
    let cp = -c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        set1(s, n, lam, 2);
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        s[1] = s[2];
        *n = 2;
        lam[0] = 1.0 - w;
        lam[1] = w;
        return a + ac * w;
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        s[0] = s[1];
        s[1] = s[2];
        *n = 2;
        lam[0] = 1.0 - w;
        lam[1] = w;
        return b + (c - b) * w;
    }
    let den = 1.0 / (va + vb + vc);
    let (v, w) = (vb * den, vc * den);
    *n = 3;
    lam[0] = 1.0 - v - w;
    lam[1] = v;
    lam[2] = w;
    a + ab * v + ac * w
}

/// The support point of `a − b` in direction `d`, with its points on `a` and on `b` (counted,
/// [`count_support`]).
pub(super) fn vert(a: &Posed, b: &Posed, d: &Vector3<f64>) -> Vert {
    count_support();
    let pa = a.support(d);
    let pb = b.support(&-d);
    Vert {
        w: pa - pb,
        a: pa,
        b: pb,
    }
}
