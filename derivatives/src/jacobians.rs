//! The entry points: one per kind of Jacobian, each with an options struct saying how
//! (finite differences or analytic, forward or centered differences, `eps`), what (the sensor
//! Jacobians or not) and from which state (`d` already forwarded or not).
//!
//! - [`transition()`]: `A`, `B`, `C`, `D` of one step ([`TransitionJacobians`], MuJoCo's
//!   `mjd_transitionFD` layout).
//! - [`inverse()`]: `DfDq`, `DfDv`, `DfDa`, `DsD*`, `DmDq` of inverse dynamics
//!   ([`InverseJacobians`], MuJoCo's `mjd_inverseFD` layout).
//!
//! A [`Workspace`] keeps the buffers of both methods across calls ([`Workspace::transition`],
//! [`Workspace::inverse`]); the free functions use a fresh one. The analytic path refuses the
//! models [`Support`] names (then [`Error::Unsupported`]).

use crate::fd::{FdWorkspace, InverseJacobians, TransitionJacobians};
use crate::support::Support;
use crate::work::Work;
use moreau::model::Model;
use moreau::Data;
use nalgebra::DMatrix;

/// How the Jacobians are computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// Finite differences as MuJoCo's `mjd_transitionFD` / `mjd_inverseFD` ([`crate::fd`]).
    #[default]
    Fd,
    /// Analytic: the implicit function theorem at the constraint solution
    /// ([`crate::transition`](mod@crate::transition)), the analytic inverse derivatives ([`crate::inverse`](mod@crate::inverse)).
    Analytic,
}

/// Options of [`transition()`]. The default is MuJoCo's `mjd_transitionFD(m, d, 1e-6, 0, ...)`
/// with the sensor Jacobians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransitionOptions {
    /// Finite differences or analytic.
    pub method: Method,
    /// Finite-difference step (`Fd` only).
    pub eps: f64,
    /// Centered differences (`flg_centered`; `Fd` only).
    pub centered: bool,
    /// Compute the sensor Jacobians `C`, `D` (else they are `0 × n`). Without them the
    /// analytic path's forward at the state (when not [`TransitionOptions::forwarded`]) skips
    /// the sensor stages, as `mjd_transitionFD` does when `C` and `D` are NULL: `d`'s
    /// `sensordata` and what only the sensor stages compute (`subtree_linvel`,
    /// `subtree_angmom`, `cacc`, `cfrc_int`, `cfrc_ext`) are then not recomputed.
    pub sensors: bool,
    /// `d` already holds the results of `moreau::forward` at its state, used as they are
    /// (`Analytic` only: e.g. right after a step's forward; the finite differences always step).
    pub forwarded: bool,
}

impl Default for TransitionOptions {
    fn default() -> Self {
        TransitionOptions {
            method: Method::Fd,
            eps: 1e-6,
            centered: false,
            sensors: true,
            forwarded: false,
        }
    }
}

impl TransitionOptions {
    /// The analytic Jacobians (with the sensor Jacobians, running `forward` first; without
    /// them, see [`TransitionOptions::sensors`]).
    pub fn analytic() -> Self {
        TransitionOptions {
            method: Method::Analytic,
            ..Self::default()
        }
    }

    /// Finite differences with step `eps`, centered or forward.
    pub fn fd(eps: f64, centered: bool) -> Self {
        TransitionOptions {
            eps,
            centered,
            ..Self::default()
        }
    }

    /// These options with [`TransitionOptions::sensors`] set to `sensors`.
    pub fn with_sensors(self, sensors: bool) -> Self {
        TransitionOptions { sensors, ..self }
    }

    /// These options with [`TransitionOptions::forwarded`] set.
    pub fn forwarded(self) -> Self {
        TransitionOptions {
            forwarded: true,
            ..self
        }
    }
}

/// Options of [`inverse()`]. The default is MuJoCo's `mjd_inverseFD(m, d, 1e-6, 0, ...)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InverseOptions {
    /// Finite differences or analytic (the analytic path gives no sensor Jacobians: `DsD*` are
    /// `nv × 0`, and does not take `flg_actuation`).
    pub method: Method,
    /// Finite-difference step (`Fd` only).
    pub eps: f64,
    /// Centered differences (a moreau extension; `Fd` only).
    pub centered: bool,
    /// `flg_actuation`: subtract `qfrc_actuator` from the output (`Fd` only).
    pub actuation: bool,
    /// Compute the sensor Jacobians `DsDq`, `DsDv`, `DsDa` (`Fd` only; else they are `nv × 0`).
    pub sensors: bool,
}

impl Default for InverseOptions {
    fn default() -> Self {
        InverseOptions {
            method: Method::Fd,
            eps: 1e-6,
            centered: false,
            actuation: false,
            sensors: true,
        }
    }
}

impl InverseOptions {
    /// The analytic Jacobians.
    pub fn analytic() -> Self {
        InverseOptions {
            method: Method::Analytic,
            ..Self::default()
        }
    }

    /// Finite differences with step `eps`, with or without `flg_actuation`, centered or
    /// forward (the argument order of `mjd_inverseFD`).
    pub fn fd(eps: f64, actuation: bool, centered: bool) -> Self {
        InverseOptions {
            eps,
            centered,
            actuation,
            ..Self::default()
        }
    }

    /// These options with [`InverseOptions::sensors`] set to `sensors`.
    pub fn with_sensors(self, sensors: bool) -> Self {
        InverseOptions { sensors, ..self }
    }
}

/// Why a Jacobian could not be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The analytic path does not cover the model (use finite differences).
    Unsupported(Support),
    /// The analytic path failed at this state (e.g. a singular implicit step matrix).
    Failed(&'static str),
    /// An option the chosen method does not take.
    Option(&'static str),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Unsupported(s) => f.write_str(s.message()),
            Error::Failed(e) | Error::Option(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for Error {}

impl From<Support> for Error {
    fn from(s: Support) -> Self {
        Error::Unsupported(s)
    }
}

/// Buffers of both methods, reused across calls (no reallocation after the first call with a
/// model of the same sizes; another model rebuilds them).
#[derive(Default)]
pub struct Workspace {
    /// The analytic path's buffers and `Data<Dual64>`.
    analytic: Work,
    /// The finite differences' buffers (created on first use).
    fd: Option<Box<FdWorkspace>>,
    /// The last analytic results.
    transition: Option<TransitionJacobians>,
    inverse: Option<InverseJacobians>,
}

impl Workspace {
    fn fd(&mut self, m: &Model, sensors: bool) -> &mut FdWorkspace {
        let fd = self.fd.get_or_insert_with(|| Box::new(FdWorkspace::new(m)));
        fd.sensors = sensors;
        fd
    }

    /// [`transition()`] with this workspace's buffers; the result lives in the workspace.
    pub fn transition(
        &mut self,
        m: &Model,
        d: &mut Data<f64>,
        opts: &TransitionOptions,
    ) -> Result<&TransitionJacobians, Error> {
        self.analytic.lin.clear_step();
        match opts.method {
            Method::Fd => {
                if m.opt.enabled(moreau::model::enable::SLEEP) {
                    return Err(Error::Unsupported(Support::Sleep));
                }
                Ok(self
                    .fd(m, opts.sensors)
                    .transition(m, d, opts.eps, opts.centered))
            }
            Method::Analytic => {
                Support::transition(m).check()?;
                if !opts.forwarded {
                    // without C, D the sensor stages are skipped, as mjd_transitionFD's
                    // unperturbed step skips them when C and D are NULL (A, B read none of
                    // their results)
                    moreau::pipeline::forward_skip(
                        m,
                        d,
                        moreau::pipeline::Skip::None,
                        !opts.sensors,
                    );
                }
                Support::transition_at(m, d).check()?;
                if opts.sensors {
                    Support::sensors(m, d).check()?;
                }
                // the last result's matrices are reused for this one's A and B
                let reuse = self.transition.take();
                let t = crate::transition::forwarded(m, d, &mut self.analytic, opts.sensors, reuse)
                    .map_err(Error::Failed)?;
                Ok(self.transition.insert(t))
            }
        }
    }

    /// `a_int` of the last analytic Euler or implicit(fast) [`Workspace::transition`]: the
    /// acceleration the integrator applies (`v' = v + h a_int`; `qacc` for Euler without
    /// implicit damping); `None` after any other transition.
    pub fn a_int(&self) -> Option<&[f64]> {
        self.analytic.lin.step.as_ref().map(|s| s.aint.as_slice())
    }

    /// Jacobian of the step last linearized by an analytic Euler or implicit(fast)
    /// [`Workspace::transition`] (same `d`, still holding that step's forwarded results) with
    /// respect to `P` model parameters `θ`, rows as `A`'s (`(2nv + na) × P`, positions in tangent
    /// coordinates). The caller gives the parameters' partial derivatives at fixed state and
    /// acceleration: `force` (`nv × P`), `−∂g/∂θ` of forward dynamics' optimality condition
    /// `g = qfrc_inverse(q, v, qacc) − qfrc_ext` (the constraint force at its active set), and
    /// `he_rhs` (`nv × P`), `∂M/∂θ (qacc − a_int) − ∂(He − M)/∂θ a_int` of the integrator's
    /// `He a_int = M qacc` ([`Workspace::a_int`]). Reuses the step's factorizations: one
    /// back-substitution per parameter. Errors after an RK4 or finite-difference transition.
    pub fn transition_params(
        &mut self,
        m: &Model,
        d: &Data<f64>,
        force: &DMatrix<f64>,
        he_rhs: &DMatrix<f64>,
    ) -> Result<DMatrix<f64>, Error> {
        crate::transition::params(m, d, &mut self.analytic, force, he_rhs).map_err(Error::Failed)
    }

    /// [`inverse()`] with this workspace's buffers; the result lives in the workspace.
    pub fn inverse(
        &mut self,
        m: &Model,
        d: &mut Data<f64>,
        opts: &InverseOptions,
    ) -> Result<&InverseJacobians, Error> {
        match opts.method {
            Method::Fd => {
                if m.opt.enabled(moreau::model::enable::SLEEP) {
                    return Err(Error::Unsupported(Support::Sleep));
                }
                Ok(self
                    .fd(m, opts.sensors)
                    .inverse(m, d, opts.eps, opts.actuation, opts.centered))
            }
            Method::Analytic => {
                if opts.actuation {
                    return Err(Error::Option(
                        "flg_actuation (the analytic inverse Jacobians are of qfrc_inverse)",
                    ));
                }
                Support::inverse(m).check()?;
                let (dq, dv, da, dm) = crate::inverse::analytic(m, d).map_err(Error::Failed)?;
                let z = || DMatrix::zeros(m.nv, 0);
                Ok(self.inverse.insert(InverseJacobians {
                    DfDq: dq,
                    DfDv: dv,
                    DfDa: da,
                    DsDq: z(),
                    DsDv: z(),
                    DsDa: z(),
                    DmDq: dm,
                }))
            }
        }
    }
}

/// The transition Jacobians of one step at the state, controls and warm start of `d`: `A`
/// (`(2nv+na) × (2nv+na)`), `B` (`(2nv+na) × nu`), with [`TransitionOptions::sensors`] `C`
/// (`nsensordata × (2nv+na)`) and `D` (`nsensordata × nu`); rows are outputs, positions in
/// tangent coordinates (MuJoCo's `mjd_transitionFD`). `d`'s state is not advanced; its
/// intermediate results are those of the last evaluation.
///
/// ```
/// use moreau_derivatives::{transition, TransitionOptions};
///
/// // a pendulum driven by a motor
/// let xml = r#"<mujoco><worldbody><body><joint name="swing" axis="0 1 0"/>
///     <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05"/></body></worldbody>
///     <actuator><motor joint="swing"/></actuator></mujoco>"#;
/// let m = moreau::load_from_str(xml, &moreau::Vfs::new())?;
/// let mut d: moreau::Data = moreau::Data::new(&m);
/// d.qpos[0] = 0.3;
/// let analytic = transition(&m, &mut d, &TransitionOptions::analytic())?;
/// let fd = transition(&m, &mut d, &TransitionOptions::fd(1e-6, true))?;
/// // x = (qpos tangent, qvel): A is 2×2, B 2×1
/// assert_eq!(analytic.A.shape(), (2, 2));
/// assert_eq!(analytic.B.shape(), (2, 1));
/// assert!((&analytic.A - &fd.A).amax() < 1e-6);
/// assert!((&analytic.B - &fd.B).amax() < 1e-6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn transition(
    m: &Model,
    d: &mut Data<f64>,
    opts: &TransitionOptions,
) -> Result<TransitionJacobians, Error> {
    let mut w = Workspace::default();
    w.transition(m, d, opts)?;
    match opts.method {
        Method::Analytic => Ok(w.transition.take().expect("set by Workspace::transition")),
        Method::Fd => Ok(w
            .fd
            .take()
            .expect("set by Workspace::transition")
            .transition),
    }
}

/// The inverse-dynamics Jacobians at the state and `qacc` of `d`, in MuJoCo's transposed layout
/// (`D[i][j] = ∂out_j/∂in_i`, `mjd_inverseFD`): `DfDq`, `DfDv`, `DfDa` (`nv × nv`), `DsDq`,
/// `DsDv`, `DsDa` (`nv × nsensordata`; `nv × 0` from the analytic path), `DmDq` (`nv × nM`,
/// row `i` = `∂qM/∂q_i` in qM's layout). Runs the inverse dynamics on `d`.
pub fn inverse(
    m: &Model,
    d: &mut Data<f64>,
    opts: &InverseOptions,
) -> Result<InverseJacobians, Error> {
    let mut w = Workspace::default();
    w.inverse(m, d, opts)?;
    match opts.method {
        Method::Analytic => Ok(w.inverse.take().expect("set by Workspace::inverse")),
        Method::Fd => Ok(w.fd.take().expect("set by Workspace::inverse").inverse),
    }
}
