//! The errors of the integrator and the ODE solver.

use std::fmt;

/// Errors of the hybrid integrators (returned as values, never panics on bad input).
#[derive(Clone, Debug, PartialEq)]
pub enum HybridError {
    /// An option is out of range (e.g. `eps <= 0`, `rtol < 0`).
    InvalidOptions(&'static str),
    /// A vector's length differs from the system's dimension.
    DimensionMismatch {
        /// What was checked.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// The initial state or time contains NaN or infinity.
    NonFiniteInput,
    /// `f` or `h` returned NaN or infinity at time `t`.
    NonFiniteValue {
        /// Time of the offending evaluation.
        t: f64,
    },
    /// The adaptive step size fell below round-off at time `t`.
    StepSizeUnderflow {
        /// Time reached.
        t: f64,
        /// Step size that was too small.
        h: f64,
    },
    /// More than `max_steps` integration steps were attempted.
    MaxStepsExceeded {
        /// Time reached.
        t: f64,
    },
    /// More than `max_events` guard crossings (e.g. Zeno behaviour).
    MaxEventsExceeded {
        /// Time reached.
        t: f64,
    },
    /// Liveness (`Dh_k · f > 0`, §2.1 requirement 4) failed at a projection point.
    LivenessViolated {
        /// Guard index.
        guard: usize,
        /// Time of the projection.
        t: f64,
    },
}

impl fmt::Display for HybridError {
    fn fmt(&self, fm: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidOptions(s) => write!(fm, "invalid options: {s}"),
            Self::DimensionMismatch {
                what,
                expected,
                got,
            } => write!(fm, "{what}: expected length {expected}, got {got}"),
            Self::NonFiniteInput => write!(fm, "non-finite initial state or time"),
            Self::NonFiniteValue { t } => write!(fm, "non-finite f or h at t = {t}"),
            Self::StepSizeUnderflow { t, h } => {
                write!(fm, "step size underflow (h = {h:e}) at t = {t}")
            }
            Self::MaxStepsExceeded { t } => {
                write!(fm, "maximum number of steps exceeded at t = {t}")
            }
            Self::MaxEventsExceeded { t } => {
                write!(fm, "maximum number of events exceeded at t = {t}")
            }
            Self::LivenessViolated { guard, t } => {
                write!(fm, "liveness violated for guard {guard} at t = {t}")
            }
        }
    }
}

impl std::error::Error for HybridError {}
