//! Hard-contact Gauss-Seidel solvers on the velocity-level contact problem (Le Lidec &
//! Carpentier, "Reconciling RaiSim with the Maximum Dissipation Principle").
//!
//! The problem: contact impulses `λ = (λ⁽¹⁾, …, λ⁽ⁿᶜ⁾)`, each `λ⁽ⁱ⁾ = (λ_N, λ_T1, λ_T2)` in its
//! contact frame, contact velocities `c = G λ + g` with the Delassus matrix `G = J M⁻¹ Jᵀ`
//! (`3nc × 3nc`, row-major) and the free contact velocity `g` (`3nc`; normal components already
//! shifted by the reference velocity `c*`, see [`crate::hard`]). The NCP (Le Lidec & Carpentier,
//! eq. 6) is `K_μ ∋ λ⁽ⁱ⁾ ⊥ c⁽ⁱ⁾ + Γ(c⁽ⁱ⁾) ∈ K_μ*` with the de Saxcé term `Γ(c) = (μ‖c_T‖, 0, 0)`.
//!
//! Three solvers, all per-contact (block) Gauss-Seidel sweeps:
//! * [`GsVariant::RaiSim`]: Algorithm 1 of Le Lidec & Carpentier without the correction (Hwangbo et
//!   al.'s per-contact iteration): takeoff if `g̃_N > 0`, stiction if `λ_v0 = −G⁽ⁱⁱ⁾⁻¹ g̃ ∈ K`,
//!   else the QCQP (7) on the ellipse `∂K ∩ V_N`, solved by bisection on the polar angle.
//! * [`GsVariant::RaiSimDs`]: the same with the de Saxcé correction of the sliding case (Algorithm
//!   1, lines 13-15; problem 13).
//! * [`GsVariant::Pgs`]: projected Gauss-Seidel on the exact Coulomb cone (normal update with the
//!   Signorini projection, then the tangential update projected on the disk `‖λ_T‖ ≤ μ λ_N`);
//!   its fixed points satisfy the NCP (6) exactly and it is the reference.
//!
//! The two RaiSim variants relax each update, `λ⁽ⁱ⁾ ← (1−α) λ⁽ⁱ⁾ + α λ*`, with the schedule
//! `α ← γ α + (1−γ) α_min` after every contact update (Algorithm 1, lines 17-18).

#![allow(clippy::needless_range_loop)]

use nalgebra::{Matrix3, Vector3};

/// Which case of Algorithm 1 a per-contact update took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactCase {
    /// `g̃_N > 0`: the contact opens, `λ* = 0`.
    Takeoff,
    /// `λ_v0 = −G⁽ⁱⁱ⁾⁻¹ g̃` is inside the cone: sticking, `c⁽ⁱ⁾ = 0`.
    Stiction,
    /// On the ellipse `∂K ∩ V_N`: sliding with `c_N = 0`.
    Sliding,
}

/// The per-contact Gauss-Seidel solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GsVariant {
    RaiSim,
    RaiSimDs,
    Pgs,
}

/// Iteration controls of the Gauss-Seidel solvers.
#[derive(Clone, Copy, Debug)]
pub struct GsOptions {
    /// Maximum number of sweeps over the contacts (`M` in Algorithm 1).
    pub max_iter: usize,
    /// Stop when the largest change of an impulse component in a sweep is below
    /// `tol · max(1, max|λ|)` (a relative criterion, as RaiSim's).
    pub tol: f64,
    /// Relaxation schedule (RaiSim variants only): initial `α`, its decay `γ` and its floor
    /// `α_min`.
    pub alpha0: f64,
    pub gamma: f64,
    pub alpha_min: f64,
}

impl Default for GsOptions {
    fn default() -> Self {
        GsOptions {
            max_iter: 200,
            tol: 1e-12,
            alpha0: 1.0,
            gamma: 0.99,
            alpha_min: 0.7,
        }
    }
}

/// Outcome of a Gauss-Seidel solve.
#[derive(Clone, Debug, Default)]
pub struct GsInfo {
    /// Sweeps performed.
    pub iterations: usize,
    /// Largest impulse change in the last sweep.
    pub last_change: f64,
    /// True if the relative criterion was met.
    pub converged: bool,
}

// ------------------------------------------------------------------ cone helpers

/// `λ ∈ K_μ`: `λ_N ≥ 0` and `‖λ_T‖ ≤ μ λ_N` (ordering N, T1, T2).
pub fn in_cone(l: &Vector3<f64>, mu: f64) -> bool {
    l[0] >= 0.0 && l[1].hypot(l[2]) <= mu * l[0]
}

/// The de Saxcé term `Γ(c, μ) = (μ‖c_T‖, 0, 0)`.
pub fn de_saxce(c: &Vector3<f64>, mu: f64) -> Vector3<f64> {
    Vector3::new(mu * c[1].hypot(c[2]), 0.0, 0.0)
}

// ------------------------------------------------------------------ the ellipse problem

/// The ellipse `∂K_μ ∩ V_N` with `V_N = {λ : G_N λ + g_N = 0}` (`g_N ≤ 0`) in polar form: the
/// tangential part is `r(θ) (cos θ, sin θ)` with `r(θ) = −μ g_N / (G_NN + μ G_NT·u(θ))` and
/// `λ_N = r/μ`. Its projection on the tangent plane is a conic with a focus at the origin and
/// eccentricity `μ ‖G_NT‖ / G_NN`; angles with a non-positive denominator are not on it.
struct Ellipse<'a> {
    G: &'a Matrix3<f64>,
    /// Linear term of the objective `½ λᵀGλ + qᵀλ`.
    q: &'a Vector3<f64>,
    gn: f64,
    mu: f64,
}

impl Ellipse<'_> {
    fn den(&self, th: f64) -> f64 {
        self.G[(0, 0)] + self.mu * (self.G[(0, 1)] * th.cos() + self.G[(0, 2)] * th.sin())
    }

    /// Point on the ellipse, or None where the angle is not on it.
    fn point(&self, th: f64) -> Option<Vector3<f64>> {
        let den = self.den(th);
        if den <= 0.0 {
            return None;
        }
        let r = -self.mu * self.gn / den;
        Some(Vector3::new(r / self.mu, r * th.cos(), r * th.sin()))
    }

    fn f(&self, th: f64) -> f64 {
        match self.point(th) {
            Some(l) => 0.5 * l.dot(&(self.G * l)) + self.q.dot(&l),
            None => f64::INFINITY,
        }
    }

    /// `df/dθ = (Gλ + q)ᵀ dλ/dθ`; off the ellipse, `sign_off` (±∞) stands for the derivative
    /// (the objective grows without bound towards the ends of an open conic).
    fn df(&self, th: f64, sign_off: f64) -> f64 {
        let den = self.den(th);
        if den <= 0.0 {
            return sign_off;
        }
        let (s, c) = th.sin_cos();
        let r = -self.mu * self.gn / den;
        let dr = -r * self.mu * (-self.G[(0, 1)] * s + self.G[(0, 2)] * c) / den;
        let w = Vector3::new(1.0 / self.mu, c, s);
        let dw = Vector3::new(0.0, -s, c);
        let l = w * r;
        let dl = w * dr + dw * r;
        (self.G * l + self.q).dot(&dl)
    }

    /// Minimizes the objective over the ellipse: coarse sampling of θ for a bracket around the
    /// best sample, then bisection on the sign of `df/dθ` (where the bracket's end slopes do
    /// not straddle zero, the sampling is refined around the best sample instead).
    fn minimize(&self) -> Vector3<f64> {
        const NS: usize = 32;
        let (mut lo, mut hi) = (0.0, 2.0 * std::f64::consts::PI);
        let mut best = 0.0;
        for _zoom in 0..6 {
            let step = (hi - lo) / NS as f64;
            let mut fbest = f64::INFINITY;
            for k in 0..=NS {
                let th = lo + step * k as f64;
                let f = self.f(th);
                if f < fbest {
                    fbest = f;
                    best = th;
                }
            }
            let (a, b) = (best - step, best + step);
            let (da, db) = (self.df(a, f64::NEG_INFINITY), self.df(b, f64::INFINITY));
            if da <= 0.0 && db >= 0.0 {
                let (mut a, mut b) = (a, b);
                for _ in 0..200 {
                    let mid = 0.5 * (a + b);
                    if mid <= a || mid >= b {
                        break;
                    }
                    if self.df(mid, 0.0) > 0.0 {
                        b = mid;
                    } else {
                        a = mid;
                    }
                }
                best = 0.5 * (a + b);
                break;
            }
            lo = a;
            hi = b;
        }
        self.point(best).unwrap_or_else(Vector3::zeros)
    }
}

/// One per-contact update of RaiSim (`ds = false`) or RaiSim+DS (`ds = true`): Algorithm 1,
/// lines 3-15, for the block `Gii = G⁽ⁱⁱ⁾`, the velocity `gt = g̃⁽ⁱ⁾` the contact would have
/// without its own impulse, friction `mu` and the current impulse `lam` (used by the de Saxcé
/// correction). Returns `λ*` and the case taken.
pub fn raisim_contact(
    Gii: &Matrix3<f64>,
    gt: &Vector3<f64>,
    mu: f64,
    lam: &Vector3<f64>,
    ds: bool,
) -> (Vector3<f64>, ContactCase) {
    if gt[0] > 0.0 {
        return (Vector3::zeros(), ContactCase::Takeoff);
    }
    let chol = Gii.cholesky();
    let lv0 = match &chol {
        Some(c) => -c.solve(gt),
        None => Vector3::zeros(),
    };
    if chol.is_some() && in_cone(&lv0, mu) {
        return (lv0, ContactCase::Stiction);
    }
    if mu <= 0.0 {
        // Frictionless: only the normal impulse that zeroes the normal velocity.
        let ln = (-gt[0] / Gii[(0, 0)]).max(0.0);
        return (Vector3::new(ln, 0.0, 0.0), ContactCase::Sliding);
    }
    let q = if ds {
        gt + de_saxce(&(Gii * lam + gt), mu)
    } else {
        *gt
    };
    let e = Ellipse {
        G: Gii,
        q: &q,
        gn: gt[0],
        mu,
    };
    (e.minimize(), ContactCase::Sliding)
}

/// The largest eigenvalue of the symmetric 2×2 block `[[a, b], [b, c]]`.
fn max_eig2(a: f64, b: f64, c: f64) -> f64 {
    0.5 * (a + c) + (0.25 * (a - c) * (a - c) + b * b).sqrt()
}

/// One PGS update of contact `i`: with `c = G⁽ⁱⁱ⁾λ + gt` (current velocity), the normal impulse
/// `λ_N ← max(0, λ_N − c_N/G_NN)`, then `λ_T ← P_{‖·‖≤μλ_N}(λ_T − c_T/ρ)` with ρ the largest
/// eigenvalue of `G_TT`.
pub fn pgs_contact(
    Gii: &Matrix3<f64>,
    gt: &Vector3<f64>,
    mu: f64,
    lam: &Vector3<f64>,
) -> Vector3<f64> {
    let mut l = *lam;
    let c = Gii * l + gt;
    let ln = (l[0] - c[0] / Gii[(0, 0)]).max(0.0);
    let dn = ln - l[0];
    l[0] = ln;
    let ct = [c[1] + Gii[(1, 0)] * dn, c[2] + Gii[(2, 0)] * dn];
    let rho = max_eig2(Gii[(1, 1)], Gii[(1, 2)], Gii[(2, 2)]);
    let mut t = [l[1] - ct[0] / rho, l[2] - ct[1] / rho];
    let nt = t[0].hypot(t[1]);
    let rad = mu * ln;
    if nt > rad {
        let s = if nt > 0.0 { rad / nt } else { 0.0 };
        t = [t[0] * s, t[1] * s];
    }
    l[1] = t[0];
    l[2] = t[1];
    l
}

/// Block `(i, j)` of the `3nc × 3nc` row-major matrix `G`.
pub fn block(G: &[f64], nc: usize, i: usize, j: usize) -> Matrix3<f64> {
    block_n(G, 3 * nc, i, j)
}

/// Contact block `(i, j)` of the `n × n` row-major matrix `G`.
fn block_n(G: &[f64], n: usize, i: usize, j: usize) -> Matrix3<f64> {
    Matrix3::from_fn(|a, b| G[(3 * i + a) * n + 3 * j + b])
}

/// Solves the contact problem `(G, g, μ)` with the chosen Gauss-Seidel variant, starting from
/// (and writing) `lambda` (`3nc`). The RaiSim variants relax with the α schedule of `opts`.
pub fn solve(
    variant: GsVariant,
    G: &[f64],
    g: &[f64],
    mu: &[f64],
    opts: &GsOptions,
    lambda: &mut [f64],
) -> GsInfo {
    solve_mixed(variant, G, g, mu, 0, opts, lambda)
}

/// [`solve`] for a problem of `nc = mu.len()` contacts followed by `nl` scalar unilateral rows
/// (joint limits: `λ_r ≥ 0 ⊥ c_r ≥ 0`), `G` of size `(3nc + nl)²`. Each sweep updates the
/// contact blocks with `variant`, then every unilateral row by the exact one-row solution
/// `λ_r ← max(0, λ_r − c_r / G_rr)` (for a frictionless 1-D contact, RaiSim's takeoff /
/// stiction cases and PGS coincide with it; these rows are not relaxed).
pub fn solve_mixed(
    variant: GsVariant,
    G: &[f64],
    g: &[f64],
    mu: &[f64],
    nl: usize,
    opts: &GsOptions,
    lambda: &mut [f64],
) -> GsInfo {
    let nc = mu.len();
    let n = 3 * nc + nl;
    assert_eq!(G.len(), n * n);
    assert_eq!(g.len(), n);
    assert_eq!(lambda.len(), n);
    let diag: Vec<Matrix3<f64>> = (0..nc).map(|i| block_n(G, n, i, i)).collect();
    let mut info = GsInfo::default();
    let mut alpha = opts.alpha0;
    for it in 0..opts.max_iter {
        let mut change: f64 = 0.0;
        for i in 0..nc {
            let li = Vector3::new(lambda[3 * i], lambda[3 * i + 1], lambda[3 * i + 2]);
            // g̃ = g_i + Σ_{j≠i} G_ij λ_j = g_i + G_i· λ − G_ii λ_i
            let mut gt = Vector3::new(g[3 * i], g[3 * i + 1], g[3 * i + 2]);
            for a in 0..3 {
                let row = &G[(3 * i + a) * n..(3 * i + a + 1) * n];
                gt[a] += row
                    .iter()
                    .zip(lambda.iter())
                    .map(|(x, y)| x * y)
                    .sum::<f64>();
            }
            gt -= diag[i] * li;
            let new = match variant {
                GsVariant::Pgs => pgs_contact(&diag[i], &gt, mu[i], &li),
                GsVariant::RaiSim | GsVariant::RaiSimDs => {
                    let (ls, _) =
                        raisim_contact(&diag[i], &gt, mu[i], &li, variant == GsVariant::RaiSimDs);
                    let l = li * (1.0 - alpha) + ls * alpha;
                    alpha = opts.gamma * alpha + (1.0 - opts.gamma) * opts.alpha_min;
                    l
                }
            };
            change = change.max((new - li).amax());
            lambda[3 * i..3 * i + 3].copy_from_slice(new.as_slice());
        }
        for r in 3 * nc..n {
            let row = &G[r * n..(r + 1) * n];
            let c = g[r]
                + row
                    .iter()
                    .zip(lambda.iter())
                    .map(|(x, y)| x * y)
                    .sum::<f64>();
            let d = row[r];
            let new = if d > 0.0 {
                (lambda[r] - c / d).max(0.0)
            } else {
                lambda[r]
            };
            change = change.max((new - lambda[r]).abs());
            lambda[r] = new;
        }
        info.iterations = it + 1;
        info.last_change = change;
        let scale = lambda.iter().fold(1.0f64, |s, x| s.max(x.abs()));
        if change <= opts.tol * scale {
            info.converged = true;
            break;
        }
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symmetric positive definite 3×3 block with normal–tangent coupling, like a cube
    /// corner's (G_NN = 4, G_NT = ±1.5, in units of 1/m).
    fn cube_corner_block() -> Matrix3<f64> {
        Matrix3::new(4.0, 1.5, -1.5, 1.5, 2.5, 0.75, -1.5, 0.75, 2.5)
    }

    /// Brute force: the minimum of `½λᵀGλ + qᵀλ` over the ellipse `∂K ∩ V_N`, on a fine grid of
    /// the tangential direction, independent of the polar formula: for each direction `u`, the
    /// point `(λ_N, μλ_N u)` of the cone boundary on the plane solves a scalar linear equation.
    fn brute_ellipse(G: &Matrix3<f64>, gn: f64, q: &Vector3<f64>, mu: f64) -> Vector3<f64> {
        let mut best = (f64::INFINITY, Vector3::zeros());
        let n = 400_000;
        for k in 0..n {
            let th = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
            let dir = Vector3::new(1.0, mu * th.cos(), mu * th.sin());
            // G_N·(λ_N dir) + gn = 0
            let a = G.row(0).transpose().dot(&dir);
            if a <= 0.0 {
                continue;
            }
            let l = dir * (-gn / a);
            let f = 0.5 * l.dot(&(G * l)) + q.dot(&l);
            if f < best.0 {
                best = (f, l);
            }
        }
        best.1
    }

    /// Brute force over the whole cone: projected gradient descent on `½λᵀGλ + qᵀλ` (a convex
    /// QP over K), the reference for the stiction case.
    fn brute_cone_qp(G: &Matrix3<f64>, q: &Vector3<f64>, mu: f64) -> Vector3<f64> {
        let mut l = Vector3::zeros();
        let step = 1.0 / G.symmetric_eigenvalues().max();
        for _ in 0..200_000 {
            let y = l - (G * l + q) * step;
            l = crate::ncp::proj_cone(&y, mu);
        }
        l
    }

    #[test]
    fn takeoff_gives_zero() {
        let G = cube_corner_block();
        let gt = Vector3::new(0.3, -1.0, 2.0);
        let (l, case) = raisim_contact(&G, &gt, 0.5, &Vector3::new(1.0, 0.1, 0.0), true);
        assert_eq!(case, ContactCase::Takeoff);
        assert_eq!(l, Vector3::zeros());
    }

    #[test]
    fn stiction_zeroes_velocity_and_matches_cone_qp() {
        let G = cube_corner_block();
        // The velocity that a force inside the cone (ratio 0.22 < μ) cancels.
        let gt = -(G * Vector3::new(1.0, 0.2, -0.1));
        let mu = 0.8;
        for ds in [false, true] {
            let (l, case) = raisim_contact(&G, &gt, mu, &Vector3::zeros(), ds);
            assert_eq!(case, ContactCase::Stiction);
            let c = G * l + gt;
            assert!(c.amax() < 1e-14, "c = {c}");
            assert!(in_cone(&l, mu));
            let r = brute_cone_qp(&G, &gt, mu);
            assert!((l - r).amax() < 1e-9, "{l} vs {r}");
        }
    }

    #[test]
    fn sliding_raisim_matches_brute_force_on_ellipse() {
        let G = cube_corner_block();
        let gt = Vector3::new(-0.2, 1.0, 0.4);
        let mu = 0.5;
        let (l, case) = raisim_contact(&G, &gt, mu, &Vector3::zeros(), false);
        assert_eq!(case, ContactCase::Sliding);
        // On the cone boundary and on the plane c_N = 0.
        assert!((l[1].hypot(l[2]) - mu * l[0]).abs() < 1e-12);
        assert!((G * l + gt)[0].abs() < 1e-12);
        let r = brute_ellipse(&G, gt[0], &gt, mu);
        assert!((l - r).amax() < 1e-4, "{l} vs {r}");
        // The ellipse minimizer beats every grid point (it is a true minimum).
        let f = |x: &Vector3<f64>| 0.5 * x.dot(&(G * x)) + gt.dot(x);
        assert!(f(&l) <= f(&r) + 1e-14);
        // RaiSim's sliding force is not opposite to the sliding velocity when G_NT ≠ 0
        // (Le Lidec & Carpentier, eq. 10): the MDP is violated.
        let c = G * l + gt;
        let cos = -(l[1] * c[1] + l[2] * c[2]) / (l[1].hypot(l[2]) * c[1].hypot(c[2]));
        assert!(cos < 1.0 - 1e-3, "cos = {cos}");
    }

    #[test]
    fn sliding_raisim_kkt_matches_eq10() {
        // KKT of (7) (Le Lidec & Carpentier, eq. 10): c_T ∝ −λ_T − (μ² λ_N / G_NN) G_NT.
        let G = cube_corner_block();
        let gt = Vector3::new(-0.3, -0.8, 0.9);
        let mu = 0.6;
        let (l, _) = raisim_contact(&G, &gt, mu, &Vector3::zeros(), false);
        let c = G * l + gt;
        let d = [
            -l[1] - mu * mu * l[0] / G[(0, 0)] * G[(0, 1)],
            -l[2] - mu * mu * l[0] / G[(0, 0)] * G[(0, 2)],
        ];
        let cross = c[1] * d[1] - c[2] * d[0];
        let dot = c[1] * d[0] + c[2] * d[1];
        assert!(cross.abs() < 1e-9 * dot.abs(), "cross {cross} dot {dot}");
        assert!(dot > 0.0);
    }

    #[test]
    fn sliding_ds_fixed_point_satisfies_mdp() {
        // Iterating the corrected update on one contact (the correction uses the latest
        // estimate) converges to the NCP solution: c_N = 0, λ on ∂K, λ_T ∥ −c_T.
        let G = cube_corner_block();
        let gt = Vector3::new(-0.2, 1.0, 0.4);
        let mu = 0.5;
        let mut l = Vector3::zeros();
        for _ in 0..500 {
            let (ls, case) = raisim_contact(&G, &gt, mu, &l, true);
            assert_eq!(case, ContactCase::Sliding);
            l = l * 0.3 + ls * 0.7;
        }
        let c = G * l + gt;
        assert!(c[0].abs() < 1e-10);
        assert!((l[1].hypot(l[2]) - mu * l[0]).abs() < 1e-10);
        let cos = -(l[1] * c[1] + l[2] * c[2]) / (l[1].hypot(l[2]) * c[1].hypot(c[2]));
        assert!((1.0 - cos).abs() < 1e-10, "cos = {cos}");
        // Same point as PGS on the exact cone, and as the brute-force ellipse minimizer of
        // the corrected objective (13) with the converged correction.
        let mut p = Vector3::zeros();
        for _ in 0..20_000 {
            p = pgs_contact(&G, &gt, mu, &p);
        }
        assert!((l - p).amax() < 1e-8, "{l} vs {p}");
        let q = gt + de_saxce(&c, mu);
        let r = brute_ellipse(&G, gt[0], &q, mu);
        assert!((l - r).amax() < 1e-4, "{l} vs {r}");
        let e = crate::ncp::contact_errors(&l, &c, mu, 1.0);
        assert!(e.abs() < 1e-9, "{e:?}");
    }

    #[test]
    fn frictionless_and_open_conic() {
        let G = cube_corner_block();
        let gt = Vector3::new(-0.5, 1.0, 0.0);
        let (l, _) = raisim_contact(&G, &gt, 0.0, &Vector3::zeros(), false);
        assert_eq!((l[1], l[2]), (0.0, 0.0));
        assert!(((G * l + gt)[0]).abs() < 1e-14);
        // μ large enough that μ‖G_NT‖ > G_NN: the plane cuts the cone in an open conic; the
        // minimizer still lies on it and matches the brute force.
        let mu = 2.5;
        // λ_v0 = (1, 3, 0) is outside the cone (ratio 3 > μ).
        let gt = -(G * Vector3::new(1.0, 3.0, 0.0));
        let (l, case) = raisim_contact(&G, &gt, mu, &Vector3::zeros(), false);
        assert_eq!(case, ContactCase::Sliding);
        let r = brute_ellipse(&G, gt[0], &gt, mu);
        assert!((l - r).amax() < 1e-3 * (1.0 + r.amax()), "{l} vs {r}");
    }
}
