//! Per-row soft-constraint parameters: impedance d(r), stiffness K and damping B from solref,
//! regularizer R (and D = 1/R), reference acceleration aref (Modeling "Solver parameters";
//! docs/mujoco-behaviour.md#parameters).

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use crate::data::Data;
use crate::data::{ConstraintType, EfcCone};
use crate::math::{sc, Scalar};
use crate::model::{disable, Model};

/// mjMINIMP / mjMAXIMP: the clamp applied to solimp's d0, dwidth and midpoint.
pub const MIN_IMP: f64 = 1e-4;
pub const MAX_IMP: f64 = 0.9999;
/// mjMINVAL: denominators and R are floored at this value.
pub const MINVAL: f64 = 1e-15;

/// `x^p` (MuJoCo: `mju_pow`). On `f64` the exponents 1 and 2 (solimp's default power) are
/// multiplications: `x¹ = x` exactly, and `x·x` is the correctly rounded `x²` (libm's `pow` is
/// within 0.52 ulp of it, so they can differ by one ulp at most). Other scalars (duals, whose
/// `p` may carry a derivative) always use `powf`.
#[inline]
fn pow<T: Scalar>(x: T, p: T) -> T {
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f64>() {
        if p == T::one() {
            return x;
        }
        if p == sc(2.0) {
            return x * x;
        }
    }
    x.powf(p)
}

fn clamp<T: Scalar>(x: T, lo: f64, hi: f64) -> T {
    x.max(sc(lo)).min(sc(hi))
}

/// Impedance `d(r)` and its derivative `d'(r)` for the signed argument `r = pos - margin`
/// (docs/mujoco-behaviour.md#parameters; Modeling "Solver parameters": the solimp sigmoid).
pub fn impedance<T: Scalar>(solimp: &[T; 5], r: T) -> (T, T) {
    let d0 = clamp(solimp[0], MIN_IMP, MAX_IMP);
    let dw = clamp(solimp[1], MIN_IMP, MAX_IMP);
    let width = solimp[2].max(T::zero());
    let mid = clamp(solimp[3], MIN_IMP, MAX_IMP);
    let power = solimp[4].max(T::one());
    let half: T = sc(0.5);
    if d0 == dw || width <= sc(MINVAL) {
        return ((d0 + dw) * half, T::zero());
    }
    let x = r.abs() / width;
    if x >= T::one() {
        return (dw, T::zero());
    }
    if x == T::zero() {
        // y'(0) = 1 for power 1, else 0; the sign of r = 0 is taken as positive
        let dy = if power == T::one() {
            T::one()
        } else {
            T::zero()
        };
        return (d0, dy * (dw - d0) / width);
    }
    let one = T::one();
    let (y, dy) = if power == one {
        (x, one)
    } else if x <= mid {
        let a = pow(mid, power - one);
        (pow(x, power) / a, power * pow(x, power - one) / a)
    } else {
        let a = pow(one - mid, power - one);
        (
            one - pow(one - x, power) / a,
            power * pow(one - x, power - one) / a,
        )
    };
    let sign = if r < T::zero() { -one } else { one };
    (d0 + y * (dw - d0), sign * dy * (dw - d0) / width)
}

/// Stiffness K and damping B from `solref` and `dmax = solimp[1]`
/// (docs/mujoco-behaviour.md#parameters): standard format `(timeconst, dampratio)` when positive
/// (timeconst floored at `2h` when `refsafe`), direct format `(-stiffness, -damping)` otherwise;
/// mixed signs fall back to `(0.02, 1)`.
pub fn stiffness_damping<T: Scalar>(solref: [T; 2], dmax: T, h: f64, refsafe: bool) -> (T, T) {
    let z = T::zero();
    let mut r = solref;
    if (r[0] > z) != (r[1] > z) {
        r = [sc(0.02), sc(1.0)];
    }
    let dmax = clamp(dmax, MIN_IMP, MAX_IMP);
    let floor = |x: T| x.max(sc(MINVAL));
    if r[0] > z {
        let tc = if refsafe { r[0].max(sc(2.0 * h)) } else { r[0] };
        let dr = r[1];
        let k = T::one() / floor(dmax * dmax * tc * tc * dr * dr);
        let b = sc::<T>(2.0) / floor(dmax * tc);
        (k, b)
    } else {
        (-r[0] / floor(dmax * dmax), -r[1] / floor(dmax))
    }
}

/// Computes `efc_KBIP`, `efc_R`, `efc_D`, `efc_diagA` (overwritten with `R d/(1-d)`), `efc_aref`
/// and `efc_cone[*].mu` for all rows (docs/mujoco-behaviour.md#parameters).
///
/// Inputs read from `d`: `efc_type`, `efc_id`, `efc_pos`, `efc_margin`, `efc_vel`, `efc_solref`,
/// `efc_solimp`, `efc_cone`, and in `efc_diagA` the raw invweight approximation A_ii. Connect and
/// weld rows must subtract `Jdot qvel` from `efc_aref` afterwards (assembly's job). `efc_b` is not
/// touched (it needs `qacc_smooth`; see [`compute_b`]).
pub fn compute<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let n = d.nefc;
    let h = m.opt.timestep;
    let refsafe = !m.opt.disabled(disable::REFSAFE);
    let impratio: T = sc(m.opt.impratio);

    // impedance argument per row: own r, group norm for connect/weld, first row for contacts
    let mut i = 0;
    while i < n {
        let ty = d.efc_type[i];
        let mut end = i + 1;
        if ty == ConstraintType::Equality {
            while end < n && d.efc_type[end] == ty && d.efc_id[end] == d.efc_id[i] {
                end += 1;
            }
        } else if ty.is_contact() {
            // a contact's rows share its solimp and take the first row's impedance (below)
            while end < n && d.efc_type[end] == ty && d.efc_id[end] == d.efc_id[i] {
                end += 1;
            }
            let (imp, dimp) = impedance(&d.efc_solimp[i], d.efc_pos[i] - d.efc_margin[i]);
            for k in i..end {
                d.efc_KBIP[k][2] = imp;
                d.efc_KBIP[k][3] = dimp;
            }
            i = end;
            continue;
        }
        let r = if end - i > 1 {
            let mut s = T::zero();
            for k in i..end {
                let x = d.efc_pos[k] - d.efc_margin[k];
                s += x * x;
            }
            s.sqrt()
        } else {
            d.efc_pos[i] - d.efc_margin[i]
        };
        for k in i..end {
            let (imp, dimp) = impedance(&d.efc_solimp[k], r);
            d.efc_KBIP[k][2] = imp;
            d.efc_KBIP[k][3] = dimp;
        }
        i = end;
    }
    // contacts: every row takes the impedance of the first (normal / first edge) row
    for c in 0..d.efc_cone.len() {
        let EfcCone { adr, nrow, .. } = d.efc_cone[c];
        let first = d.efc_KBIP[adr];
        for k in adr + 1..adr + nrow {
            d.efc_KBIP[k][2] = first[2];
            d.efc_KBIP[k][3] = first[3];
        }
    }

    // K, B, R
    for k in 0..n {
        let ty = d.efc_type[k];
        // a contact's rows share solref and solimp: K and B of its first row
        let (kk, b) = if k > 0
            && ty.is_contact()
            && d.efc_type[k - 1] == ty
            && d.efc_id[k - 1] == d.efc_id[k]
        {
            (d.efc_KBIP[k - 1][0], d.efc_KBIP[k - 1][1])
        } else {
            stiffness_damping(d.efc_solref[k], d.efc_solimp[k][1], h, refsafe)
        };
        let kk = if ty.is_friction() { T::zero() } else { kk };
        d.efc_KBIP[k][0] = kk;
        d.efc_KBIP[k][1] = b;
        let imp = d.efc_KBIP[k][2];
        d.efc_R[k] = ((T::one() - imp) * d.efc_diagA[k] / imp).max(sc(MINVAL));
    }

    // contact friction overrides
    for c in 0..d.efc_cone.len() {
        let cone = d.efc_cone[c];
        let f = cone.friction;
        let mu = f[0] / impratio.sqrt();
        d.efc_cone[c].mu = mu;
        let adr = cone.adr;
        match d.efc_type[adr] {
            ConstraintType::ContactElliptic if cone.nrow > 1 => {
                let sfr = cone.solreffriction;
                let use_fr = sfr[0] != T::zero() || sfr[1] != T::zero();
                let r1 = d.efc_R[adr] / impratio;
                for j in 1..cone.nrow {
                    let k = adr + j;
                    d.efc_R[k] = if j == 1 {
                        r1
                    } else {
                        r1 * f[0] * f[0] / (f[j - 1] * f[j - 1])
                    };
                    // friction rows: no stiffness, damping from solreffriction if given
                    let sref = if use_fr { sfr } else { d.efc_solref[k] };
                    let (_, b) = stiffness_damping(sref, d.efc_solimp[k][1], h, refsafe);
                    d.efc_KBIP[k][0] = T::zero();
                    d.efc_KBIP[k][1] = b;
                }
            }
            ConstraintType::ContactPyramidal => {
                let r = sc::<T>(2.0) * mu * mu * d.efc_R[adr];
                for k in adr..adr + cone.nrow {
                    d.efc_R[k] = r;
                }
            }
            _ => {}
        }
    }

    // D, diagA, aref
    for k in 0..n {
        let [kk, b, imp, _] = d.efc_KBIP[k];
        let r = d.efc_R[k];
        d.efc_D[k] = T::one() / r;
        d.efc_diagA[k] = r * imp / (T::one() - imp);
        d.efc_aref[k] = -b * d.efc_vel[k] - kk * imp * (d.efc_pos[k] - d.efc_margin[k]);
    }
}

/// `efc_aref = -B efc_vel - K d (pos - margin)` from the current `efc_KBIP` (the velocity-stage
/// part of [`compute`]; docs/mujoco-behaviour.md#parameters). The connect/weld `J̇ qvel` term is
/// not included.
pub fn aref<T: Scalar>(d: &mut Data<T>) {
    for k in 0..d.nefc {
        let [kk, b, imp, _] = d.efc_KBIP[k];
        d.efc_aref[k] = -b * d.efc_vel[k] - kk * imp * (d.efc_pos[k] - d.efc_margin[k]);
    }
}

/// `efc_b = J qacc_smooth - aref` (docs/mujoco-behaviour.md#parameters).
pub fn compute_b<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let nv = m.nv;
    for i in 0..d.nefc {
        d.efc_b[i] = d.efc_J_row(i, nv).dot(&d.qacc_smooth) - d.efc_aref[i];
    }
}
