//! The system interface: an event-selected system `(f, h)` (Anderson & Revzen §2.1), a
//! finite-difference Jacobian of its vector field, and a system built from closures.

use nalgebra::{DMatrix, DVector};

/// An event-selected system `(f, h)` (Anderson & Revzen §2.1).
///
/// Requirements from §2.1: `f(·, signs)` smooth for each sign pattern, `h` smooth, and
/// liveness `Dh_k(x) · f(x, ·) > 0` in a neighbourhood of guard `k`.
pub trait EventSelectedSystem {
    /// State dimension `n`.
    fn state_dim(&self) -> usize;
    /// Number of event functions `m`.
    fn num_events(&self) -> usize;
    /// `f(x, y)` where only the signs of `y = h(x)` matter (§2.1 requirement 2):
    /// `signs[k]` is true on the side `h_k >= 0`. Writes `dx/dt` into `dx` (length `n`).
    fn vector_field(&self, x: &DVector<f64>, signs: &[bool], dx: &mut DVector<f64>);
    /// Event functions `h(x)` (length `m`); guard `k` is the zero set of `h_k`.
    fn events(&self, x: &DVector<f64>, h: &mut DVector<f64>);
    /// One event function `h_k(x)`, used when locating the entry into `N^ε`. Override when
    /// `m` is large; the default evaluates all of `h`.
    fn event(&self, x: &DVector<f64>, k: usize) -> f64 {
        let mut h = DVector::zeros(self.num_events());
        self.events(x, &mut h);
        h[k]
    }
    /// Jacobian `Dh(x)`, an `m × n` matrix (§2.2; need not be closed form).
    fn event_jacobian(&self, x: &DVector<f64>, dh: &mut DMatrix<f64>);
    /// Jacobian `D_x f(x, signs)` (`n × n`) of one smooth piece, used only for the
    /// B-derivative. Default: central finite differences.
    fn vector_field_jacobian(&self, x: &DVector<f64>, signs: &[bool], df: &mut DMatrix<f64>) {
        fd_jacobian(self, x, signs, df);
    }
}

/// Central-difference `D_x f` at fixed signs (default for
/// [`EventSelectedSystem::vector_field_jacobian`]).
pub fn fd_jacobian<S: EventSelectedSystem + ?Sized>(
    sys: &S,
    x: &DVector<f64>,
    signs: &[bool],
    df: &mut DMatrix<f64>,
) {
    let n = x.len();
    let mut xp = x.clone();
    let mut fp = DVector::zeros(n);
    let mut fm = DVector::zeros(n);
    for i in 0..n {
        let step = f64::EPSILON.cbrt() * x[i].abs().max(1.0);
        xp[i] = x[i] + step;
        sys.vector_field(&xp, signs, &mut fp);
        xp[i] = x[i] - step;
        sys.vector_field(&xp, signs, &mut fm);
        xp[i] = x[i];
        for r in 0..n {
            df[(r, i)] = (fp[r] - fm[r]) / (2.0 * step);
        }
    }
}

type FieldFn<'a> = dyn Fn(&DVector<f64>, &[bool], &mut DVector<f64>) + 'a;
type EventFn<'a> = dyn Fn(&DVector<f64>, &mut DVector<f64>) + 'a;
type MatFn<'a> = dyn Fn(&DVector<f64>, &mut DMatrix<f64>) + 'a;
type FieldJacFn<'a> = dyn Fn(&DVector<f64>, &[bool], &mut DMatrix<f64>) + 'a;

/// An [`EventSelectedSystem`] made of closures `f`, `h`, `Dh` (and optionally `D_x f`).
pub struct ClosureSystem<'a> {
    n: usize,
    m: usize,
    f: Box<FieldFn<'a>>,
    h: Box<EventFn<'a>>,
    dh: Box<MatFn<'a>>,
    df: Option<Box<FieldJacFn<'a>>>,
}

impl<'a> ClosureSystem<'a> {
    /// System of dimension `n` with `m` events from `f(x, signs, dx)`, `h(x, h)` and `Dh(x, dh)`.
    pub fn new(
        n: usize,
        m: usize,
        f: impl Fn(&DVector<f64>, &[bool], &mut DVector<f64>) + 'a,
        h: impl Fn(&DVector<f64>, &mut DVector<f64>) + 'a,
        dh: impl Fn(&DVector<f64>, &mut DMatrix<f64>) + 'a,
    ) -> Self {
        Self {
            n,
            m,
            f: Box::new(f),
            h: Box::new(h),
            dh: Box::new(dh),
            df: None,
        }
    }

    /// Supplies an analytic `D_x f(x, signs)` for the B-derivative.
    pub fn with_field_jacobian(
        mut self,
        df: impl Fn(&DVector<f64>, &[bool], &mut DMatrix<f64>) + 'a,
    ) -> Self {
        self.df = Some(Box::new(df));
        self
    }
}

impl EventSelectedSystem for ClosureSystem<'_> {
    fn state_dim(&self) -> usize {
        self.n
    }
    fn num_events(&self) -> usize {
        self.m
    }
    fn vector_field(&self, x: &DVector<f64>, signs: &[bool], dx: &mut DVector<f64>) {
        (self.f)(x, signs, dx)
    }
    fn events(&self, x: &DVector<f64>, h: &mut DVector<f64>) {
        (self.h)(x, h)
    }
    fn event_jacobian(&self, x: &DVector<f64>, dh: &mut DMatrix<f64>) {
        (self.dh)(x, dh)
    }
    fn vector_field_jacobian(&self, x: &DVector<f64>, signs: &[bool], df: &mut DMatrix<f64>) {
        match &self.df {
            Some(d) => d(x, signs, df),
            None => fd_jacobian(self, x, signs, df),
        }
    }
}
