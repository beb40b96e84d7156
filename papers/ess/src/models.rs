//! The systems of Anderson & Revzen's experiments, with their exact solutions where they exist:
//! the 3D piecewise-affine system of Table 1 (§4), the 1D hopper (§5.1) and the plate
//! in SE(2) on a bed of springs (§5.2).

use crate::system::EventSelectedSystem;
use nalgebra::{DMatrix, DVector, Matrix3, Matrix4, Vector3, Vector4};

/// The 3D affine ESS of Anderson & Revzen Table 1, with guards the coordinate planes.
///
/// Event functions `h = (x, y, −z)`, so every guard is crossed upwards from the paper's
/// initial condition `(−0.4, −0.15, 0.3)`; `signs = (x ≥ 0, y ≥ 0, z ≤ 0)` as in Table 1.
#[derive(Clone, Copy, Debug, Default)]
pub struct Table1;

impl Table1 {
    /// The affine piece `(A, b)` with `ẋ = A x + b` for a sign pattern.
    pub fn piece(signs: &[bool]) -> (Matrix3<f64>, Vector3<f64>) {
        let (xp, yp, zn) = (signs[0], signs[1], signs[2]);
        let mut a = Matrix3::zeros();
        let mut b = Vector3::zeros();
        // Table 1(a): ẋ
        match (xp, yp) {
            (false, false) => {
                a[(0, 1)] = -1.0;
                b[0] = 1.0;
            }
            (true, false) => {
                a[(0, 1)] = -2.0;
                b[0] = 1.0;
            }
            (false, true) => {
                a[(0, 1)] = 1.0;
                b[0] = 1.0;
            }
            (true, true) => {
                a[(0, 0)] = 10.0;
                b[0] = 1.0;
            }
        }
        // Table 1(b): ẏ
        match (xp, yp) {
            (false, false) => {
                a[(1, 0)] = 1.0;
                b[1] = 1.0;
            }
            (true, false) => {
                a[(1, 0)] = 0.5;
                b[1] = 2.0;
            }
            (false, true) => {
                a[(1, 0)] = -1.0;
                b[1] = 1.0;
            }
            (true, true) => {
                a[(1, 1)] = 1.0;
                b[1] = 1.0;
            }
        }
        // Table 1(c): ż
        if zn {
            a[(2, 2)] = 3.0;
            b[2] = -1.0;
        } else {
            a[(2, 2)] = -1.0;
            b[2] = -1.0;
        }
        (a, b)
    }

    fn h(s: &Vector3<f64>) -> [f64; 3] {
        [s[0], s[1], -s[2]]
    }
}

impl EventSelectedSystem for Table1 {
    fn state_dim(&self) -> usize {
        3
    }
    fn num_events(&self) -> usize {
        3
    }
    fn vector_field(&self, x: &DVector<f64>, signs: &[bool], dx: &mut DVector<f64>) {
        let (a, b) = Self::piece(signs);
        let s = Vector3::new(x[0], x[1], x[2]);
        dx.copy_from(&(a * s + b));
    }
    fn events(&self, x: &DVector<f64>, h: &mut DVector<f64>) {
        h[0] = x[0];
        h[1] = x[1];
        h[2] = -x[2];
    }
    fn event_jacobian(&self, _x: &DVector<f64>, dh: &mut DMatrix<f64>) {
        dh.fill(0.0);
        dh[(0, 0)] = 1.0;
        dh[(1, 1)] = 1.0;
        dh[(2, 2)] = -1.0;
    }
    fn vector_field_jacobian(&self, _x: &DVector<f64>, signs: &[bool], df: &mut DMatrix<f64>) {
        let (a, _) = Self::piece(signs);
        df.copy_from(&a);
    }
}

/// Exact solution of [`Table1`] by matrix exponentials of each affine piece, with
/// guard-crossing times found by bisection on the exact piece (independent of the
/// integrator).
#[derive(Clone, Debug)]
pub struct Table1Exact {
    /// `(t_start, state, signs)` of each piece.
    pieces: Vec<(f64, Vector3<f64>, [bool; 3])>,
}

impl Table1Exact {
    /// Solves from `x0` at `t = 0` up to `tf`, crossing each guard (upwards) at most once.
    pub fn new(x0: Vector3<f64>, tf: f64) -> Self {
        let h0 = Table1::h(&x0);
        let mut signs = [h0[0] >= 0.0, h0[1] >= 0.0, h0[2] >= 0.0];
        let mut pieces = vec![(0.0, x0, signs)];
        let (mut t, mut s) = (0.0, x0);
        loop {
            let prop = |tau: f64| Self::flow(&s, &signs, tau);
            // Earliest upward root of any not-yet-crossed guard, scanning then bisecting.
            let scan = 1e-3;
            let mut hit: Option<(f64, usize)> = None;
            let mut a = 0.0;
            while t + a < tf && hit.is_none() {
                let b = (a + scan).min(tf - t);
                let hb = Table1::h(&prop(b));
                for k in 0..3 {
                    if !signs[k] && hb[k] >= 0.0 {
                        let (mut lo, mut hi) = (a, b);
                        for _ in 0..200 {
                            let mid = 0.5 * (lo + hi);
                            if mid <= lo || mid >= hi {
                                break;
                            }
                            if Table1::h(&prop(mid))[k] >= 0.0 {
                                hi = mid;
                            } else {
                                lo = mid;
                            }
                        }
                        if hit.is_none_or(|(tt, _)| hi < tt) {
                            hit = Some((hi, k));
                        }
                    }
                }
                a = b;
            }
            match hit {
                Some((tau, k)) => {
                    s = prop(tau);
                    t += tau;
                    signs[k] = true;
                    pieces.push((t, s, signs));
                }
                None => break,
            }
        }
        Self { pieces }
    }

    /// `exp(M τ)` applied to `(s, 1)` with `M = [[A, b], [0, 0]]`.
    fn flow(s: &Vector3<f64>, signs: &[bool; 3], tau: f64) -> Vector3<f64> {
        let (a, b) = Table1::piece(signs);
        let mut m = Matrix4::zeros();
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&a);
        m.fixed_view_mut::<3, 1>(0, 3).copy_from(&b);
        let e = (m * tau).exp() * Vector4::new(s[0], s[1], s[2], 1.0);
        Vector3::new(e[0], e[1], e[2])
    }

    /// Guard-crossing times of the exact solution.
    pub fn crossing_times(&self) -> Vec<f64> {
        self.pieces.iter().skip(1).map(|p| p.0).collect()
    }

    /// The exact state at time `t >= 0`.
    pub fn at(&self, t: f64) -> Vector3<f64> {
        let p = self
            .pieces
            .iter()
            .rev()
            .find(|p| p.0 <= t)
            .unwrap_or(&self.pieces[0]);
        Self::flow(&p.1, &p.2, t - p.0)
    }
}

/// The undamped 1D hopper of Anderson & Revzen §5.1: state `(z, ż)`,
/// `z̈ = −g` if `z > L0`, `z̈ = −g + k (L0 − z)/m` if `z ≤ L0`,
/// with paired events `h1 = z − L0` (lift-off) and `h2 = L0 − z` (touch-down).
#[derive(Clone, Copy, Debug)]
pub struct Hopper {
    /// Gravity.
    pub g: f64,
    /// Leg stiffness.
    pub k: f64,
    /// Mass.
    pub m: f64,
    /// Rest length (contact height).
    pub l0: f64,
}

impl Default for Hopper {
    fn default() -> Self {
        Self {
            g: 9.81,
            k: 500.0,
            m: 1.0,
            l0: 1.0,
        }
    }
}

impl EventSelectedSystem for Hopper {
    fn state_dim(&self) -> usize {
        2
    }
    fn num_events(&self) -> usize {
        2
    }
    fn vector_field(&self, x: &DVector<f64>, signs: &[bool], dx: &mut DVector<f64>) {
        // Stance is the side h2 = L0 − z >= 0.
        dx[0] = x[1];
        dx[1] = if signs[1] {
            -self.g + self.k * (self.l0 - x[0]) / self.m
        } else {
            -self.g
        };
    }
    fn events(&self, x: &DVector<f64>, h: &mut DVector<f64>) {
        h[0] = x[0] - self.l0;
        h[1] = self.l0 - x[0];
    }
    fn event_jacobian(&self, _x: &DVector<f64>, dh: &mut DMatrix<f64>) {
        dh.fill(0.0);
        dh[(0, 0)] = 1.0;
        dh[(1, 0)] = -1.0;
    }
    fn vector_field_jacobian(&self, _x: &DVector<f64>, signs: &[bool], df: &mut DMatrix<f64>) {
        df.fill(0.0);
        df[(0, 1)] = 1.0;
        if signs[1] {
            df[(1, 0)] = -self.k / self.m;
        }
    }
}

impl Hopper {
    /// Closed-form `(z, ż)` at time `t` when released at rest from height `z0 > L0` at `t = 0`:
    /// parabolic flights and harmonic stances, periodic with period `2 t_fall + t_stance`.
    pub fn exact(&self, z0: f64, t: f64) -> (f64, f64) {
        let t_fall = (2.0 * (z0 - self.l0) / self.g).sqrt();
        let v_td = -self.g * t_fall;
        let w = (self.k / self.m).sqrt();
        let u0 = self.m * self.g / self.k; // L0 − z_eq
        let phi = (v_td / w).atan2(u0);
        let t_stance = (2.0 * std::f64::consts::PI + 2.0 * phi) / w;
        let period = 2.0 * t_fall + t_stance;
        let p = t.rem_euclid(period);
        if p < t_fall {
            (z0 - 0.5 * self.g * p * p, -self.g * p)
        } else if p < t_fall + t_stance {
            let s = p - t_fall;
            let (c, sn) = ((w * s).cos(), (w * s).sin());
            let u = u0 * c + v_td / w * sn;
            let du = -u0 * w * sn + v_td * c;
            (self.l0 - u0 + u, du)
        } else {
            let s = p - t_fall - t_stance;
            (
                self.l0 - v_td * s - 0.5 * self.g * s * s,
                -v_td - self.g * s,
            )
        }
    }
}

/// A plate in SE(2) falling on `N` evenly spaced vertical spring-dampers with
/// frictionless rolling contacts (Anderson & Revzen §5.2).
///
/// State `(x, z, θ, ẋ, ż, θ̇)`. Events `h_i = L0 + tan θ (x − x_si) − z` (touch-down of
/// spring `i`, `i < N`) and `h_{N+i} = −h_i` (lift-off). In stance (`h_i ≥ 0`, signalled by
/// `signs[i]`) spring `i` pushes with `s_i = k h_i + c ḣ_i` along `−∇_q h_i`, the plate
/// normal (frictionless). Per-spring `k`, `c` are the totals divided by `N`, so the
/// dynamics do not stiffen with `N`.
#[derive(Clone, Debug)]
pub struct Plate {
    /// Spring x-positions `x_si`.
    pub springs: Vec<f64>,
    /// Per-spring stiffness.
    pub k: f64,
    /// Per-spring damping.
    pub c: f64,
    /// Spring rest length.
    pub l0: f64,
    /// Plate mass.
    pub mass: f64,
    /// Plate moment of inertia.
    pub inertia: f64,
    /// Gravity.
    pub g: f64,
}

impl Plate {
    /// `n` springs over `[−1, 1]` under a 3 m plate of 1 kg, total stiffness 2000 N/m and
    /// total damping 5 N·s/m.
    pub fn new(n: usize) -> Self {
        let n = n.max(1);
        let springs = (0..n)
            .map(|i| {
                if n == 1 {
                    0.0
                } else {
                    -1.0 + 2.0 * i as f64 / (n - 1) as f64
                }
            })
            .collect();
        Self {
            springs,
            k: 2000.0 / n as f64,
            c: 5.0 / n as f64,
            l0: 1.0,
            mass: 1.0,
            inertia: 9.0 / 12.0,
            g: 9.81,
        }
    }

    /// Number of springs `N` (the system has `2N` events).
    pub fn num_springs(&self) -> usize {
        self.springs.len()
    }
}

/// Impedance `d` of the MJCF plate contacts ([`Plate::mjcf_xml`]): MuJoCo's minimum `mjMINIMP`.
pub const PLATE_MJCF_IMPEDANCE: f64 = 1e-4;

/// Radius of the MJCF spring-tip spheres ([`Plate::mjcf_xml`]): at most half the spring spacing
/// at `N = 100`, so the tips' bounding intervals do not overlap in the sweep-and-prune (an
/// `O(N²)` broad-phase artifact otherwise). Deep compressions put the sphere's centre inside the
/// 1 m thick plate box, where the sphere–box collider still measures depth from the bottom face.
pub const PLATE_MJCF_TIP_RADIUS: f64 = 0.01;

impl Plate {
    /// The equivalent MJCF scene for moreau's MuJoCo-style engine: the plate is a body with
    /// `slide x`, `slide z` and a `hinge` about `−y` (so `qpos = (x, z, θ)` with the paper's
    /// sign of `θ`), mass [`Plate::mass`] and `I_yy` [`Plate::inertia`], whose collision geom is
    /// a 3 m long, 1 m thick box with its bottom face through the body origin (the paper's plate line). Each
    /// spring is a world sphere at `x_si` whose top is at height `l0` (the spring's free tip),
    /// so a contact is active exactly when the spring is compressed, with penetration
    /// `h cos θ`. Frictionless (`condim 1`) contacts, timestep `h`.
    ///
    /// Matching the springs: with constant impedance `d` (`solimp = (d, d, ·)`) and direct
    /// `solref = (−Ks, −Bs)`, MuJoCo's row has `k = Ks/d²`, `b = Bs/d`,
    /// `R = (1−d)/d · w` (`w` = `diag_a`, the invweight approximation of `A_ii`), and the
    /// unclamped force is `f = −(A+R)⁻¹(a0 − aref)`. For `R ≫ A` this is
    /// `f ≈ R⁻¹(aref − a0) = −(Ks r + Bs v)/((1−d) w) − d a0/((1−d) w)`, so
    /// `Ks = k_i (1−d) w` and `Bs = c_i (1−d) w` give the paper's `k_i r + c_i ṙ` up to
    /// relative errors `O(N d)` (the `(A+R)⁻¹` coupling; ≤ 1% at `N = 100`, `d = 1e-4`)
    /// and a force `d a0/w` that cancels a fraction `d` of the applied acceleration.
    /// `diag_a` is the plate's `body_invweight0[·][0]` (`2/(3m)`; see [`Plate::mjcf_model`]).
    pub fn mjcf_xml(&self, diag_a: f64, h: f64) -> String {
        let d = PLATE_MJCF_IMPEDANCE;
        let rho = PLATE_MJCF_TIP_RADIUS;
        let ks = self.k * (1.0 - d) * diag_a;
        let bs = self.c * (1.0 - d) * diag_a;
        let mut tips = String::new();
        for (i, xs) in self.springs.iter().enumerate() {
            tips.push_str(&format!(
                "    <geom name=\"tip{i}\" type=\"sphere\" size=\"{rho}\" \
                 pos=\"{xs:.17} 0 {:.17}\" priority=\"1\"/>\n",
                self.l0 - rho
            ));
        }
        format!(
            r#"<mujoco model="plate_on_{n}_springs">
  <option timestep="{h}" gravity="0 0 {g}"/>
  <default>
    <geom condim="1" solref="{sr0:e} {sr1:e}" solimp="{d} {d} 0.001 0.5 2"/>
  </default>
  <worldbody>
{tips}    <body name="plate">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="theta" type="hinge" axis="0 -1 0"/>
      <inertial pos="0 0 0" mass="{m}" diaginertia="{i} {i} {i}"/>
      <geom name="plate" type="box" size="1.5 0.5 0.5" pos="0 0 0.5"/>
    </body>
  </worldbody>
</mujoco>
"#,
            n = self.springs.len(),
            g = -self.g,
            sr0 = -ks,
            sr1 = -bs,
            m = self.mass,
            i = self.inertia,
        )
    }

    /// Compiles [`Plate::mjcf_xml`] with the plate's own `body_invweight0` as `diag_a` (one
    /// compile to read it, one with the matched `solref`).
    pub fn mjcf_model(&self, h: f64) -> Result<moreau::model::Model, moreau::MjcfError> {
        let vfs = moreau::Vfs::new();
        let m0 = moreau::load_from_str(&self.mjcf_xml(1.0, h), &vfs)?;
        let w = m0.body_invweight0[m0.nbody - 1][0];
        moreau::load_from_str(&self.mjcf_xml(w, h), &vfs)
    }
}

impl EventSelectedSystem for Plate {
    fn state_dim(&self) -> usize {
        6
    }
    fn num_events(&self) -> usize {
        2 * self.springs.len()
    }
    fn vector_field(&self, s: &DVector<f64>, signs: &[bool], dx: &mut DVector<f64>) {
        let (x, z, th, vx, vz, vth) = (s[0], s[1], s[2], s[3], s[4], s[5]);
        let (tn, sec2) = (th.tan(), 1.0 / th.cos().powi(2));
        let mut q = [0.0, -self.mass * self.g, 0.0];
        for (i, &xs) in self.springs.iter().enumerate() {
            if !signs[i] {
                continue;
            }
            let h = self.l0 + tn * (x - xs) - z;
            let dh = [tn, -1.0, sec2 * (x - xs)];
            let hd = dh[0] * vx + dh[1] * vz + dh[2] * vth;
            let f = self.k * h + self.c * hd;
            for j in 0..3 {
                q[j] -= f * dh[j];
            }
        }
        dx[0] = vx;
        dx[1] = vz;
        dx[2] = vth;
        dx[3] = q[0] / self.mass;
        dx[4] = q[1] / self.mass;
        dx[5] = q[2] / self.inertia;
    }
    fn events(&self, s: &DVector<f64>, h: &mut DVector<f64>) {
        let n = self.springs.len();
        let tn = s[2].tan();
        for (i, &xs) in self.springs.iter().enumerate() {
            let v = self.l0 + tn * (s[0] - xs) - s[1];
            h[i] = v;
            h[n + i] = -v;
        }
    }
    fn event(&self, s: &DVector<f64>, k: usize) -> f64 {
        let n = self.springs.len();
        let v = self.l0 + s[2].tan() * (s[0] - self.springs[k % n]) - s[1];
        if k < n {
            v
        } else {
            -v
        }
    }
    fn event_jacobian(&self, s: &DVector<f64>, dh: &mut DMatrix<f64>) {
        let n = self.springs.len();
        let (tn, sec2) = (s[2].tan(), 1.0 / s[2].cos().powi(2));
        dh.fill(0.0);
        for (i, &xs) in self.springs.iter().enumerate() {
            let row = [tn, -1.0, sec2 * (s[0] - xs)];
            for j in 0..3 {
                dh[(i, j)] = row[j];
                dh[(n + i, j)] = -row[j];
            }
        }
    }
}
