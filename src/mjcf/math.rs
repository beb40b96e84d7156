//! Small fixed-size helpers on `[f64; 3]` vectors, `[f64; 4]` quaternions (w, x, y, z) and
//! row-major 3x3 matrices, mirroring the conventions of MuJoCo's compiler.

pub type V3 = [f64; 3];
pub type Q = [f64; 4];
pub type M3 = [[f64; 3]; 3];

pub const QID: Q = [1.0, 0.0, 0.0, 0.0];

pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn scl(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
pub fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}
/// Normalizes `a`; returns None if its norm is below 1e-15 (mjMINVAL) or not finite. Each
/// component divided by the norm, as MuJoCo 4.0.0's compiler rounds it (its `jnt_axis` bit for
/// bit; the product with the reciprocal, as its runtime `mju_normalize3` rounds, differs in the
/// last bit).
pub fn normalize(a: V3) -> Option<V3> {
    let n = norm(a);
    if n < 1e-15 || !n.is_finite() {
        None
    } else {
        Some([a[0] / n, a[1] / n, a[2] / n])
    }
}

pub fn qnormalize(q: Q) -> Option<Q> {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n < 1e-15 || !n.is_finite() {
        None
    } else {
        Some([q[0] / n, q[1] / n, q[2] / n, q[3] / n])
    }
}
pub fn qmul(a: Q, b: Q) -> Q {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}
pub fn qconj(q: Q) -> Q {
    [q[0], -q[1], -q[2], -q[3]]
}
/// Rotates `v` by the unit quaternion `q`.
pub fn qrot(q: Q, v: V3) -> V3 {
    let m = q2m(q);
    mv(&m, v)
}
/// Quaternion of a rotation by `angle` (radians) about the unit `axis`.
pub fn axis_angle(axis: V3, angle: f64) -> Q {
    let (s, c) = (angle / 2.0).sin_cos();
    [c, axis[0] * s, axis[1] * s, axis[2] * s]
}
/// Rotation matrix of a unit quaternion.
pub fn q2m(q: Q) -> M3 {
    let (w, x, y, z) = (q[0], q[1], q[2], q[3]);
    let (ww, xx, yy, zz) = (w * w, x * x, y * y, z * z);
    [
        [
            ww + xx - yy - zz,
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            ww - xx + yy - zz,
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            ww - xx - yy + zz,
        ],
    ]
}
/// Quaternion of a rotation matrix (Shepperd's method), normalized.
pub fn m2q(m: &M3) -> Q {
    let tr = m[0][0] + m[1][1] + m[2][2];
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [
            0.25 * s,
            (m[2][1] - m[1][2]) / s,
            (m[0][2] - m[2][0]) / s,
            (m[1][0] - m[0][1]) / s,
        ]
    } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
        let s = (1.0 + m[0][0] - m[1][1] - m[2][2]).sqrt() * 2.0;
        [
            (m[2][1] - m[1][2]) / s,
            0.25 * s,
            (m[0][1] + m[1][0]) / s,
            (m[0][2] + m[2][0]) / s,
        ]
    } else if m[1][1] > m[2][2] {
        let s = (1.0 + m[1][1] - m[0][0] - m[2][2]).sqrt() * 2.0;
        [
            (m[0][2] - m[2][0]) / s,
            (m[0][1] + m[1][0]) / s,
            0.25 * s,
            (m[1][2] + m[2][1]) / s,
        ]
    } else {
        let s = (1.0 + m[2][2] - m[0][0] - m[1][1]).sqrt() * 2.0;
        [
            (m[1][0] - m[0][1]) / s,
            (m[0][2] + m[2][0]) / s,
            (m[1][2] + m[2][1]) / s,
            0.25 * s,
        ]
    };
    qnormalize(q).unwrap_or(QID)
}
/// Matrix with the given columns.
pub fn from_cols(a: V3, b: V3, c: V3) -> M3 {
    [[a[0], b[0], c[0]], [a[1], b[1], c[1]], [a[2], b[2], c[2]]]
}
pub fn mv(m: &M3, v: V3) -> V3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}
/// The floor of [`eig3_tol`]'s relative stopping tolerance, and MuJoCo's tolerance for body
/// inertias.
pub const EIG3_TOL: f64 = 4e-15;
/// MuJoCo's [`eig3_tol`] tolerance for mesh inertias.
pub const EIG3_TOL_MESH: f64 = 1e-7;
/// Relative gap below which [`eig3_tol`] leaves two eigenvalues in the order the iteration
/// produced: MuJoCo 4.0.0 swaps a pair only when the second exceeds the first by more than
/// `max(tol, 1e-12) · max|A|` (measured on `fullinertia` with equal and nearly equal moments,
/// and on square-prism meshes whose two moments differ by a set amount).
pub const EIG3_SORT_TOL: f64 = 1e-12;

/// [`eig3_tol`] with the body-inertia tolerance.
pub fn eig3(a: &M3) -> (V3, Q) {
    eig3_tol(a, EIG3_TOL)
}

/// Minimal rotation taking +z to the unit vector `v` (180 degrees about x if antiparallel).
pub fn z_to(v: V3) -> Q {
    let z = [0.0, 0.0, 1.0];
    let c = dot(z, v);
    let ax = cross(z, v);
    let s = norm(ax);
    if s < 1e-15 {
        if c > 0.0 {
            QID
        } else {
            [0.0, 1.0, 0.0, 0.0]
        }
    } else {
        let ang = s.atan2(c);
        axis_angle(scl(ax, 1.0 / s), ang)
    }
}
/// Frame composition: (p1, q1) * (p2, q2).
pub fn compose(p1: V3, q1: Q, p2: V3, q2: Q) -> (V3, Q) {
    (add(p1, qrot(q1, p2)), qmul(q1, q2))
}

/// Eigen-decomposition of a symmetric 3x3 matrix: eigenvalues in descending order (up to
/// [`EIG3_SORT_TOL`]) and the unit quaternion of the right-handed frame whose columns are the eigenvectors.
///
/// Cyclic Jacobi iteration carried out on a quaternion (the frame starts at the identity and
/// each step right-multiplies the rotation that annihilates the largest off-diagonal entry of
/// `Rᵀ A R`), then the axes are sorted by 90° rotations. This is the procedure MuJoCo's compiler
/// uses, so the frame — including the sign of each axis, which an eigen-solver leaves
/// arbitrary — matches MuJoCo's `body_iquat` / `mesh_quat`. The iteration stops once the
/// largest off-diagonal entry is at most `max(tol, 4e-15) · max|A|` (MuJoCo 4.0.0 uses
/// `tol = 4e-15` for body inertias and `1e-7` for mesh inertias, [`EIG3_TOL_MESH`]).
pub fn eig3_tol(a: &M3, tol: f64) -> (V3, Q) {
    let maxabs = a.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    let thresh = tol.max(EIG3_TOL) * maxabs;
    let mut q = QID;
    let mut ev = [a[0][0], a[1][1], a[2][2]];
    for _ in 0..500 {
        let r = q2m(q);
        let mut d = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                d[i][j] = (0..3)
                    .map(|k| r[k][i] * (0..3).map(|l| a[k][l] * r[l][j]).sum::<f64>())
                    .sum();
            }
        }
        ev = [d[0][0], d[1][1], d[2][2]];
        // largest off-diagonal entry (row p, column c) and the axis k it rotates about
        let (p, c, k) = if d[0][1].abs() > d[0][2].abs() && d[0][1].abs() > d[1][2].abs() {
            (0, 1, 2)
        } else if d[0][2].abs() > d[1][2].abs() {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        if thresh >= d[p][c].abs() {
            break;
        }
        // 2x2 symmetric Schur step: t = tan θ (the smaller root), then the half angle
        let tau = (d[c][c] - d[p][p]) / (2.0 * d[p][c]);
        let t = if tau >= 0.0 {
            1.0 / (tau + (1.0 + tau * tau).sqrt())
        } else {
            -1.0 / ((1.0 + tau * tau).sqrt() - tau)
        };
        let half = t / (1.0 + (1.0 + t * t).sqrt());
        let ch = 1.0 / (1.0 + half * half).sqrt();
        let mut s = half * ch;
        // the (x, z) plane of a rotation about y is negatively oriented
        if k != 1 {
            s = -s;
        }
        let mut dq = [ch, 0.0, 0.0, 0.0];
        dq[k + 1] = s;
        q = qmul(q, dq);
        let n2 = q.iter().map(|x| x * x).sum::<f64>();
        if n2 >= 1e-14 && (n2.sqrt() - 1.0).abs() > 1e-14 {
            let n = n2.sqrt();
            q = [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
        }
    }
    // sort descending: swap neighbours (0,1), (1,2), (0,1) by a 90° turn about the third axis,
    // only when they differ by more than `max(tol, EIG3_SORT_TOL) · max|A|`, so two equal
    // moments keep the order (and the frame) the iteration left them in, whichever is larger by
    // round-off
    let sort_tol = tol.max(EIG3_SORT_TOL) * maxabs;
    for j in 0..3 {
        let j1 = j % 2;
        if ev[j1] < ev[j1 + 1] - sort_tol {
            ev.swap(j1, j1 + 1);
            let mut dq = [std::f64::consts::FRAC_1_SQRT_2, 0.0, 0.0, 0.0];
            dq[(j1 + 2) % 3 + 1] = std::f64::consts::FRAC_1_SQRT_2;
            q = qnormalize(qmul(q, dq)).unwrap_or(QID);
        }
    }
    (ev, q)
}
