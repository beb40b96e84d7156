//! Pieces of the native height-field collider (`native`) against
//! independent computations: the signed-volume weights against the brute-force closest point of
//! random simplices, and the EPA without MuJoCo's repeated-vertex stop against the minimal
//! penetration depth of a box and a prism by separating axes.

use crate::collision::native::{penetration_converged, simplex_weights, Geom};
use crate::collision::scratch::prism::Poly;
use nalgebra::{Matrix3, Rotation3, Vector3};

type V3 = Vector3<f64>;

/// xorshift64*: deterministic uniform numbers in [-1, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn v3(&mut self) -> V3 {
        V3::new(self.next(), self.next(), self.next())
    }
}

/// Closest point to the origin of the convex hull of `p` by enumerating every sub-simplex
/// (affine projection by the normal equations, kept if its barycentric weights are ≥ 0), with
/// the sub-simplex's vertex mask.
fn brute_force(p: &[V3]) -> (V3, usize) {
    let n = p.len();
    let mut best = (V3::repeat(f64::INFINITY), 0);
    for mask in 1usize..(1 << n) {
        let ids: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
        let k = ids.len();
        // x = p0 + Σ μ_j (p_j − p0), minimising |x|²
        let p0 = p[ids[0]];
        let e: Vec<V3> = ids[1..].iter().map(|&i| p[i] - p0).collect();
        let mut g = nalgebra::DMatrix::<f64>::zeros(k - 1, k - 1);
        let mut r = nalgebra::DVector::<f64>::zeros(k - 1);
        for a in 0..k - 1 {
            r[a] = -e[a].dot(&p0);
            for b in 0..k - 1 {
                g[(a, b)] = e[a].dot(&e[b]);
            }
        }
        let mu = if k == 1 {
            nalgebra::DVector::zeros(0)
        } else {
            match g.lu().solve(&r) {
                Some(m) => m,
                None => continue,
            }
        };
        let l0 = 1.0 - mu.sum();
        if l0 < 0.0 || mu.iter().any(|&m| m < 0.0) {
            continue;
        }
        let x = p0 + e.iter().zip(mu.iter()).map(|(v, m)| v * *m).sum::<V3>();
        if x.norm() < best.0.norm() {
            best = (x, mask);
        }
    }
    best
}

/// The signed-volume weights reproduce the closest point of random segments, triangles and
/// tetrahedra whenever that point's support includes the newest point (the GJK situation the
/// subalgorithm assumes); weights are ≥ 0 and sum to 1.
#[test]
fn signed_volumes_match_brute_force() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // cases checked per simplex size 2, 3, 4
    let mut checked = [0usize; 3];
    for _ in 0..3000 {
        for n in 2..=4 {
            let p: Vec<V3> = (0..n).map(|_| rng.v3()).collect();
            let (xb, mask) = brute_force(&p);
            if mask & (1 << (n - 1)) == 0 {
                continue;
            }
            let l = simplex_weights(&p).unwrap();
            let x: V3 = p.iter().zip(l).map(|(v, w)| v * w).sum();
            assert!(
                (x - xb).norm() <= 1e-10,
                "n {n}: {x:?} against {xb:?} ({l:?})"
            );
            assert!(l.iter().all(|&w| w >= 0.0));
            assert!((l.iter().sum::<f64>() - 1.0).abs() <= 1e-12, "{l:?}");
            checked[n - 2] += 1;
        }
    }
    // not vacuous: many cases of every size
    assert!(checked.iter().all(|&c| c > 500), "{checked:?}");
    assert_eq!(simplex_weights(&[]), None);
}

/// Minimal penetration depth of two convex polytopes by separating axes: face normals and
/// cross products of edge directions.
fn sat_depth(a: &[V3], b: &[V3], axes: &[V3]) -> f64 {
    let mut depth = f64::INFINITY;
    for n in axes {
        let nn = n.norm();
        if nn < 1e-9 {
            continue;
        }
        let n = n / nn;
        let (amin, amax) = a.iter().fold((f64::INFINITY, -f64::INFINITY), |(l, h), v| {
            (l.min(v.dot(&n)), h.max(v.dot(&n)))
        });
        let (bmin, bmax) = b.iter().fold((f64::INFINITY, -f64::INFINITY), |(l, h), v| {
            (l.min(v.dot(&n)), h.max(v.dot(&n)))
        });
        depth = depth.min((amax - bmin).min(bmax - amin));
    }
    depth
}

/// Without the repeated-vertex stop the EPA converges to the minimal depth: random boxes
/// pushed into random prisms, depth against separating axes to 1e-9, and the witness points
/// `depth` apart.
#[test]
fn epa_converges_to_separating_axis_depth() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut pt = Poly::new();
    let mut hits = 0;
    for _ in 0..400 {
        // prism: a triangle of the unit square with heights in [0, 0.3], bottom at -0.1
        let tri = [
            V3::new(0.0, 0.0, 0.15 + 0.15 * rng.next()),
            V3::new(0.5, 0.0, 0.15 + 0.15 * rng.next()),
            V3::new(0.0, 0.5, 0.15 + 0.15 * rng.next()),
        ];
        let mut prism = [V3::zeros(); 6];
        for k in 0..3 {
            prism[k] = V3::new(tri[k].x, tri[k].y, -0.1);
            prism[k + 3] = tri[k];
        }
        let rot: Matrix3<f64> = *Rotation3::new(rng.v3() * 3.0).matrix();
        let size = [
            0.05 + 0.04 * rng.next(),
            0.06 + 0.04 * rng.next(),
            0.07 + 0.04 * rng.next(),
        ];
        let pos = V3::new(
            0.15 + 0.1 * rng.next(),
            0.15 + 0.1 * rng.next(),
            0.2 + 0.1 * rng.next(),
        );
        let geom = Geom::Box {
            pos,
            mat: rot,
            size,
        };
        let corners: Vec<V3> = (0..8)
            .map(|i| rot * geom.vertex(i).unwrap() + pos)
            .collect();
        let mut axes: Vec<V3> = Vec::new();
        let e = [
            tri[1] - tri[0],
            tri[2] - tri[1],
            tri[0] - tri[2],
            V3::new(1.0, 0.0, 0.0),
            V3::new(0.0, 1.0, 0.0),
            V3::new(1.0, -1.0, 0.0),
            V3::z(),
        ];
        axes.push(e[0].cross(&e[1]));
        axes.push(V3::z());
        for ek in &e[..3] {
            axes.push(ek.cross(&V3::z()));
        }
        for c in 0..3 {
            let bc = rot.column(c).into_owned();
            axes.push(bc);
            for ek in &e {
                axes.push(bc.cross(ek));
            }
        }
        let depth = sat_depth(&prism, &corners, &axes);
        let hit = penetration_converged(&mut pt, &prism, &geom, pos, 255, 1e-13);
        if depth <= 1e-6 {
            // separated or barely touching: no contact, or one as shallow as that
            if let Some(h) = hit {
                assert!(h.depth <= 1e-6, "{} against {depth}", h.depth);
            }
            continue;
        }
        let h = hit.unwrap_or_else(|| panic!("no contact, separating-axis depth {depth}"));
        assert!(
            (h.depth - depth).abs() <= 1e-9,
            "{} against {depth}",
            h.depth
        );
        assert!(((h.pa - h.pb).norm() - h.depth).abs() <= 1e-9);
        hits += 1;
    }
    assert!(hits > 100, "{hits} penetrating poses");
}
