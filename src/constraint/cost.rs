//! The reduced primal cost s(jar), its negative gradient (the constraint force), the row states
//! and the Hessian (Computation "Reduced primal problem"; docs/mujoco-behaviour.md#cost). One
//! implementation, shared by the solvers, inverse dynamics and derivatives. Also the exact
//! restriction of the total cost to a line, used by the Newton/CG line search
//! (docs/mujoco-behaviour.md#newton).

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use crate::data::{ConstraintState, ConstraintType, Data, EfcCone, CONE_H};
use crate::math::{sc, Scalar};

/// The per-row constants s depends on (views into `Data`'s efc arrays).
#[derive(Clone, Copy)]
pub struct Rows<'a, T> {
    pub ty: &'a [ConstraintType],
    pub D: &'a [T],
    pub R: &'a [T],
    pub frictionloss: &'a [T],
    pub cone: &'a [EfcCone<T>],
}

impl<'a, T: Scalar> Rows<'a, T> {
    /// The per-row constants of `d`'s constraint stage (`efc_type`, `efc_D`, `efc_R`,
    /// `efc_frictionloss`, the elliptic cones).
    pub fn of_data(d: &'a Data<T>) -> Self {
        Rows {
            ty: &d.efc_type,
            D: &d.efc_D,
            R: &d.efc_R,
            frictionloss: &d.efc_frictionloss,
            cone: &d.efc_cone,
        }
    }
}

/// `jar = J qacc − aref` of `d`'s constraint rows (Computation "Inverse dynamics"; `jar` has
/// `nefc` entries).
pub fn efc_jar<T: Scalar>(nv: usize, d: &Data<T>, jar: &mut [T]) {
    for (r, j) in jar.iter_mut().enumerate() {
        *j = d.efc_J_row(r, nv).dot(&d.qacc) - d.efc_aref[r];
    }
}

/// Cost, force and state of one scalar (non-elliptic) row (docs/mujoco-behaviour.md#cost table).
#[inline]
pub fn scalar<T: Scalar>(ty: ConstraintType, jar: T, d: T, r: T, fl: T) -> (T, T, ConstraintState) {
    use ConstraintState::*;
    let half: T = sc(0.5);
    match ty {
        ConstraintType::Equality => (half * d * jar * jar, -d * jar, Quadratic),
        ConstraintType::FrictionDof | ConstraintType::FrictionTendon => {
            let rf = r * fl;
            if jar <= -rf {
                (-half * rf * fl - fl * jar, fl, LinearNeg)
            } else if jar >= rf {
                (-half * rf * fl + fl * jar, -fl, LinearPos)
            } else {
                (half * d * jar * jar, -d * jar, Quadratic)
            }
        }
        _ => {
            if jar >= T::zero() {
                (T::zero(), T::zero(), Satisfied)
            } else {
                (half * d * jar * jar, -d * jar, Quadratic)
            }
        }
    }
}

/// Elliptic contact block (docs/mujoco-behaviour.md#cost): returns the cost and state; writes the
/// force into `force` (dim entries) and, in the middle zone, the dim x dim cone Hessian `Dm S Hm S`
/// into `hess`.
pub fn elliptic<T: Scalar>(
    jar: &[T],
    d: &[T],
    mu: T,
    friction: &[T; 5],
    force: &mut [T],
    hess: Option<&mut [T]>,
) -> (T, ConstraintState) {
    let dim = jar.len();
    let z = T::zero();
    let half: T = sc(0.5);
    let n = mu * jar[0];
    let mut u = [z; 6];
    let mut tt = z;
    for j in 1..dim {
        u[j] = friction[j - 1] * jar[j];
        tt += u[j] * u[j];
    }
    let t = tt.sqrt();
    if (t == z && n >= z) || n >= mu * t {
        force[..dim].fill(z);
        return (z, ConstraintState::Satisfied);
    }
    if (t == z && n < z) || mu * n + t <= z {
        let mut cost = z;
        for j in 0..dim {
            cost += half * d[j] * jar[j] * jar[j];
            force[j] = -d[j] * jar[j];
        }
        return (cost, ConstraintState::Quadratic);
    }
    // middle zone
    let dm = d[0] / (mu * mu * (T::one() + mu * mu));
    let nmt = n - mu * t;
    let f0 = -dm * nmt * mu;
    force[0] = f0;
    for j in 1..dim {
        force[j] = -f0 * u[j] * friction[j - 1] / t;
    }
    if let Some(h) = hess {
        // Hm in (N, U_t) coordinates, then scale by S = diag(mu, friction[0..])
        let mut s = [z; 6];
        s[0] = mu;
        s[1..dim].copy_from_slice(&friction[..dim - 1]);
        let t3 = t * t * t;
        for a in 0..dim {
            for b in 0..dim {
                let hm = if a == 0 && b == 0 {
                    T::one()
                } else if a == 0 {
                    -mu * u[b] / t
                } else if b == 0 {
                    -mu * u[a] / t
                } else {
                    let mut v = mu * n / t3 * u[a] * u[b];
                    if a == b {
                        v += mu * mu - mu * n / t;
                    }
                    v
                };
                h[a * dim + b] = dm * s[a] * hm * s[b];
            }
        }
    }
    (half * dm * nmt * nmt, ConstraintState::Cone)
}

/// Evaluates s at `jar` for all rows: returns the total cost, fills `force` (= -ds/djar) and
/// `state`, and, if given, the cone Hessians (`CONE_H` entries per `efc_cone` entry).
pub fn evaluate<T: Scalar>(
    rows: &Rows<T>,
    jar: &[T],
    force: &mut [T],
    state: &mut [ConstraintState],
    mut cone_hess: Option<&mut [T]>,
) -> T {
    let n = jar.len();
    let mut total = T::zero();
    let mut i = 0;
    let mut ci = 0;
    while i < n {
        let ty = rows.ty[i];
        if ty == ConstraintType::ContactElliptic {
            while rows.cone[ci].adr != i {
                ci += 1;
            }
            let c = &rows.cone[ci];
            let dim = c.dim;
            let h = cone_hess
                .as_deref_mut()
                .map(|h| &mut h[ci * CONE_H..ci * CONE_H + dim * dim]);
            let (cost, st) = elliptic(
                &jar[i..i + dim],
                &rows.D[i..i + dim],
                c.mu,
                &c.friction,
                &mut force[i..i + dim],
                h,
            );
            total += cost;
            state[i..i + dim].fill(st);
            i += dim;
        } else {
            let (cost, f, st) = scalar(ty, jar[i], rows.D[i], rows.R[i], rows.frictionloss[i]);
            total += cost;
            force[i] = f;
            state[i] = st;
            i += 1;
        }
    }
    total
}

/// The coefficients of every row's quadratic piece along the line, `(½ D x², D x v, ½ D v²)`
/// with x = `jar[i]`, v = `jv[i]`, into `quad` (3 per row): fixed during one line search, so
/// [`line_eval`] only adds them up.
pub fn line_quad<T: Scalar>(rows: &Rows<T>, jar: &[T], jv: &[T], quad: &mut [T]) {
    let half: T = sc(0.5);
    for (i, q) in quad[..3 * jar.len()].chunks_exact_mut(3).enumerate() {
        let (d, x, v) = (rows.D[i], jar[i], jv[i]);
        q[0] = half * d * x * x;
        q[1] = d * x * v;
        q[2] = half * d * v * v;
    }
}

/// The total cost restricted to the line `a + alpha s`, as value, first and second derivative in
/// alpha (docs/mujoco-behaviour.md#newton "Line search"). `jar`, `jv` are J a - aref and J s at
/// alpha = 0, `quad` their pieces from [`line_quad`]; `gauss` = (value, slope, curvature/2) of the
/// Gauss term: (½(a-a₀)ᵀ(Ma-τ), sᵀ(Ma-τ), ½sᵀMs). Piecewise quadratic per scalar row; closed forms
/// for the elliptic zones.
pub fn line_eval<T: Scalar>(
    rows: &Rows<T>,
    jar: &[T],
    jv: &[T],
    quad: &[T],
    gauss: [T; 3],
    alpha: T,
) -> [T; 3] {
    let z = T::zero();
    let half: T = sc(0.5);
    let two: T = sc(2.0);
    // polynomial coefficients (c0 + c1 alpha + c2 alpha^2) of all pieces active at alpha
    let mut c = gauss;
    // closed-form contributions (value, d1, d2) of cone middle zones
    let mut extra = [z; 3];
    let quad = |c: &mut [T; 3], i: usize| {
        c[0] += quad[3 * i];
        c[1] += quad[3 * i + 1];
        c[2] += quad[3 * i + 2];
    };
    let n = jar.len();
    let mut i = 0;
    let mut ci = 0;
    while i < n {
        let ty = rows.ty[i];
        let (x, v) = (jar[i], jv[i]);
        match ty {
            ConstraintType::ContactElliptic => {
                while rows.cone[ci].adr != i {
                    ci += 1;
                }
                let cn = &rows.cone[ci];
                let dim = cn.dim;
                let mu = cn.mu;
                let f = &cn.friction;
                let n0 = mu * jar[i];
                let nv = mu * jv[i];
                let (mut tt, mut tv, mut vv) = (z, z, z);
                for j in 1..dim {
                    let u = f[j - 1] * jar[i + j];
                    let w = f[j - 1] * jv[i + j];
                    tt += u * u;
                    tv += u * w;
                    vv += w * w;
                }
                let na = n0 + alpha * nv;
                let t2 = tt + two * alpha * tv + alpha * alpha * vv;
                let t = t2.max(z).sqrt();
                if (t == z && na >= z) || na >= mu * t {
                    // top zone: nothing
                } else if (t == z && na < z) || mu * na + t <= z {
                    for j in 0..dim {
                        quad(&mut c, i + j);
                    }
                } else {
                    let dm = rows.D[i] / (mu * mu * (T::one() + mu * mu));
                    let g = na - mu * t;
                    let t1 = (tv + alpha * vv) / t;
                    let tdd = (vv - t1 * t1) / t;
                    let g1 = nv - mu * t1;
                    extra[0] += half * dm * g * g;
                    extra[1] += dm * g * g1;
                    extra[2] += dm * (g1 * g1 - g * mu * tdd);
                }
                i += dim;
                continue;
            }
            ConstraintType::Equality => quad(&mut c, i),
            ConstraintType::FrictionDof | ConstraintType::FrictionTendon => {
                let fl = rows.frictionloss[i];
                let rf = rows.R[i] * fl;
                let y = x + alpha * v;
                if y <= -rf {
                    c[0] += -half * rf * fl - fl * x;
                    c[1] += -fl * v;
                } else if y >= rf {
                    c[0] += -half * rf * fl + fl * x;
                    c[1] += fl * v;
                } else {
                    quad(&mut c, i);
                }
            }
            _ => {
                if x + alpha * v < z {
                    quad(&mut c, i);
                }
            }
        }
        i += 1;
    }
    [
        c[0] + alpha * (c[1] + alpha * c[2]) + extra[0],
        c[1] + two * alpha * c[2] + extra[1],
        two * c[2] + extra[2],
    ]
}
