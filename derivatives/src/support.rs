//! What the analytic derivatives cover, and why not where they don't: one type, [`Support`],
//! answers for each analytic path (the transition and forward Jacobians, the inverse
//! Jacobians, the sensor Jacobians) and for the closed-form parts inside them that fall back
//! to dual passes (the smooth dynamics' `∂/∂q`, the constraint force's `∂/∂q`).
//!
//! A refusal of a whole path ([`Support::transition`], [`Support::inverse`],
//! [`Support::sensors`]) means: use the finite-difference Jacobians ([`crate::fd`]). A gap in a
//! closed-form part ([`Support::smooth_pos`], [`Support::constraint_pos`]) is not an error: the
//! path computes that part by restricted or full `Dual64` passes instead.

use moreau::data::ConstraintType;
use moreau::model::{enable, EqType, Integrator, JointType, Model, SensorType, WrapType};
use moreau::pipeline::differentiable;
use moreau::Data;

/// Whether an analytic derivative path covers a model (at a state), and if not, why.
/// [`Support::message`] (also `Display`) is the reason in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Covered.
    Covered,
    /// The noslip post-pass (`noslip_iterations > 0`) with RK4: its four stages' noslip passes
    /// are not differentiated (Euler, eulerdamp, implicit and implicitfast are).
    NoslipRk4,
    /// The noslip post-pass with constraint rows whose position derivative is not in closed form
    /// ([`Support::constraint_pos`]: connect/weld and two-object equalities, spatial-tendon rows,
    /// ball-joint limits): its derivative needs each row's `∂jar/∂q`, which only the
    /// closed-form pass records.
    NoslipRows,
    /// Sensor Jacobians at a state with constraint rows under the noslip post-pass.
    NoslipSensors,
    /// Energy sensors (`e_potential`, `e_kinetic`): the sensor passes skip the inertia and
    /// do not seed the velocities of position-stage sensors.
    EnergySensors,
    /// `invdiscrete` with an integrator other than Euler (the full dual passes run the inverse
    /// dynamics, which would convert `qacc`).
    InvdiscreteIntegrator,
    /// An inverse-dynamics configuration the engine itself does not reproduce
    /// ([`moreau::pipeline::inverse_unsupported`]; its message).
    Inverse(&'static str),
    /// Tendon armature (its `q`-dependent inertia is not in the closed-form `∂M/∂q`).
    TendonArmature,
    /// Fluid forces (not in the closed-form smooth `∂/∂q`).
    Fluid,
    /// Connect/weld rows or joint/tendon equalities coupling two objects.
    TwoObjectEquality,
    /// Rows of spatial tendons (limits, friction loss).
    SpatialTendon,
    /// Limits of ball joints.
    BallLimit,
    /// Contacts between geoms without a differentiable collider.
    Collider,
    /// The `sleep` enable flag: a perturbation wakes a sleeping tree, so the step is not
    /// differentiable there; MuJoCo 4.0.0's `mjd_transitionFD` and `mjd_inverseFD` refuse
    /// such models too ("sleeping is not supported").
    Sleep,
}

impl Support {
    /// The transition (and forward) Jacobians' analytic path ([`crate::transition`](mod@crate::transition),
    /// [`crate::forward`]). Every integrator is covered (Euler with or without eulerdamp,
    /// implicitfast, implicit, RK4), and the noslip post-pass under all but RK4 (the
    /// derivative of its converged solution, `crate::noslip`). Refused: noslip with RK4 or with
    /// rows of a kind [`Support::constraint_pos`] does not cover (model-level: connect/weld and
    /// two-object equalities, limited or frictional spatial tendons, limited ball joints),
    /// `invdiscrete` with an integrator other than Euler, and what [`Support::inverse`]
    /// refuses. [`Support::transition_at`] checks the rows of a state.
    pub fn transition(m: &Model) -> Support {
        if m.opt.noslip_iterations > 0 {
            if m.opt.integrator == Integrator::Rk4 {
                return Support::NoslipRk4;
            }
            let eq = (0..m.neq).any(|e| match m.eq_type[e] {
                EqType::Joint => m.eq_obj2id[e] >= 0,
                EqType::Tendon => m.eq_obj2id[e] >= 0 || !fixed_tendon(m, m.eq_obj1id[e] as usize),
                _ => true,
            });
            let ten = (0..m.ntendon).any(|t| {
                (m.tendon_limited[t] || m.tendon_frictionloss[t] > 0.0) && !fixed_tendon(m, t)
            });
            let ball = (0..m.njnt).any(|j| m.jnt_type[j] == JointType::Ball && m.jnt_limited[j]);
            if eq || ten || ball {
                return Support::NoslipRows;
            }
        }
        if m.opt.enabled(enable::INVDISCRETE) && m.opt.integrator != Integrator::Euler {
            return Support::InvdiscreteIntegrator;
        }
        Support::inverse(m)
    }

    /// [`Support::transition`] and, under the noslip post-pass, every constraint row of the
    /// (forwarded) state of `d` in closed form ([`Support::NoslipRows`]).
    pub fn transition_at(m: &Model, d: &Data<f64>) -> Support {
        let s = Support::transition(m);
        if s != Support::Covered || m.opt.noslip_iterations == 0 {
            return s;
        }
        if Support::constraint_pos(m, d) != Support::Covered {
            return Support::NoslipRows;
        }
        Support::Covered
    }

    /// The analytic inverse-dynamics Jacobians ([`crate::inverse`](mod@crate::inverse)): what the engine's inverse
    /// dynamics reproduces (refused: `invdiscrete` with RK4, a fatal error in MuJoCo).
    pub fn inverse(m: &Model) -> Support {
        if m.opt.enabled(enable::SLEEP) {
            return Support::Sleep;
        }
        match moreau::pipeline::inverse_unsupported(m) {
            Some(e) => Support::Inverse(e),
            None => Support::Covered,
        }
    }

    /// The sensor Jacobians `C`, `D` ([`crate::sensor`]) at the state of `d`.
    pub fn sensors(m: &Model, d: &Data<f64>) -> Support {
        if m.opt.noslip_iterations > 0 && d.nefc > 0 {
            return Support::NoslipSensors;
        }
        if m.sensor_type
            .iter()
            .any(|t| matches!(t, SensorType::EPotential | SensorType::EKinetic))
        {
            return Support::EnergySensors;
        }
        Support::Covered
    }

    /// The closed-form `∂/∂q` of the smooth dynamics ([`crate::rne`]): the RNE, `M`, joint
    /// springs, gravity compensation and `xfrc_applied`. Not covered (the callers then use dual
    /// passes): tendon armature, fluid forces.
    pub fn smooth_pos(m: &Model) -> Support {
        if m.tendon_armature.iter().any(|&a| a != 0.0) {
            return Support::TendonArmature;
        }
        if m.opt.density != 0.0 || m.opt.viscosity != 0.0 {
            return Support::Fluid;
        }
        Support::Covered
    }

    /// The closed-form `∂(Jᵀ f)/∂q` of the constraint rows of `d` ([`crate::constraint_pos`]).
    /// Not covered (a restricted dual pass instead): connect/weld and two-object equalities,
    /// spatial-tendon rows, ball-joint limits, contacts without a differentiable collider.
    pub fn constraint_pos(m: &Model, d: &Data<f64>) -> Support {
        for r in 0..d.nefc {
            let s = Support::constraint_pos_row(m, d, r);
            if s != Support::Covered {
                return s;
            }
        }
        Support::Covered
    }

    /// [`Support::constraint_pos`] of row `r` of `d` alone.
    pub(crate) fn constraint_pos_row(m: &Model, d: &Data<f64>, r: usize) -> Support {
        let id = d.efc_id[r];
        match d.efc_type[r] {
            ConstraintType::Equality => match m.eq_type[id] {
                EqType::Joint if m.eq_obj2id[id] < 0 => {}
                EqType::Tendon
                    if m.eq_obj2id[id] < 0 && fixed_tendon(m, m.eq_obj1id[id] as usize) => {}
                _ => return Support::TwoObjectEquality,
            },
            ConstraintType::FrictionDof => {}
            ConstraintType::FrictionTendon | ConstraintType::LimitTendon => {
                if !fixed_tendon(m, id) {
                    return Support::SpatialTendon;
                }
            }
            ConstraintType::LimitJoint => {
                if !matches!(m.jnt_type[id], JointType::Hinge | JointType::Slide) {
                    return Support::BallLimit;
                }
            }
            _ => {
                let c = &d.contact[id];
                let (t1, t2) = (m.geom_type[c.geom[0]], m.geom_type[c.geom[1]]);
                if !differentiable(t1, t2) {
                    return Support::Collider;
                }
            }
        }
        Support::Covered
    }

    /// True if covered.
    pub fn is_covered(self) -> bool {
        self == Support::Covered
    }

    /// The reason in words (`"covered"` if covered).
    pub fn message(self) -> &'static str {
        match self {
            Support::Covered => "covered",
            Support::NoslipRk4 => {
                "the noslip post-pass with RK4 (its stages' noslip passes are not differentiated \
                 analytically, use finite differences)"
            }
            Support::NoslipRows => {
                "the noslip post-pass with connect/weld or two-object equality, spatial-tendon or \
                 ball-limit rows (not differentiated analytically, use finite differences)"
            }
            Support::NoslipSensors => {
                "sensor Jacobians with the noslip post-pass (its force has no IFT derivative)"
            }
            Support::EnergySensors => "energy sensors (e_potential, e_kinetic)",
            Support::InvdiscreteIntegrator => "invdiscrete with an integrator other than Euler",
            Support::Inverse(e) => e,
            Support::TendonArmature => "tendon armature",
            Support::Fluid => "fluid forces",
            Support::TwoObjectEquality => "connect/weld or two-object equality rows",
            Support::SpatialTendon => "spatial-tendon rows",
            Support::BallLimit => "ball-joint limits",
            Support::Collider => "contacts without a differentiable collider",
            Support::Sleep => "sleeping is not supported (the sleep enable flag)",
        }
    }

    /// `Ok(())` if covered, else `Err(self)`.
    pub fn check(self) -> Result<(), Support> {
        if self.is_covered() {
            Ok(())
        } else {
            Err(self)
        }
    }
}

impl std::fmt::Display for Support {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

/// True if tendon `t` is fixed (all its wraps are joints: a constant Jacobian).
pub(crate) fn fixed_tendon(m: &Model, t: usize) -> bool {
    let a = m.tendon_adr[t];
    m.wrap_type[a..a + m.tendon_num[t]]
        .iter()
        .all(|w| *w == WrapType::Joint)
}

#[cfg(test)]
mod tests {
    use crate::{inverse, transition, Error, InverseOptions, Support, TransitionOptions};

    /// A model with the `sleep` flag is refused by every Jacobian path, finite differences
    /// included, as MuJoCo 4.0.0's `mjd_transitionFD`/`mjd_inverseFD` refuse it; the same
    /// model without the flag is covered.
    #[test]
    fn sleep_models_are_refused() {
        let xml = |flag: &str| {
            format!(
                r#"<mujoco><option>{flag}</option><worldbody><body><joint/>
                <geom size=".1"/></body></worldbody></mujoco>"#
            )
        };
        let vfs = moreau::Vfs::new();
        let m = moreau::load_from_str(&xml(r#"<flag sleep="enable"/>"#), &vfs).unwrap();
        let mut d = moreau::Data::new(&m);
        let no = Err(Error::Unsupported(Support::Sleep));
        for o in [
            TransitionOptions::analytic(),
            TransitionOptions::fd(1e-6, false),
        ] {
            assert_eq!(transition(&m, &mut d, &o).map(|_| ()), no);
        }
        for o in [
            InverseOptions::analytic(),
            InverseOptions::fd(1e-6, false, false),
        ] {
            assert_eq!(inverse(&m, &mut d, &o).map(|_| ()), no);
        }
        let m = moreau::load_from_str(&xml(""), &vfs).unwrap();
        assert_eq!(Support::transition(&m), Support::Covered);
    }
}
