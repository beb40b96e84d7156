//! The step's integration in tangent coordinates: the rows of `q ⊕ h w` (`mjd_quatIntegrate`
//! blocks for quaternions, API Reference) and the activations `advance_act` moves, shared by
//! the Euler/implicit ([`crate::transition`](mod@crate::transition)) and RK4 ([`crate::transition_rk4`]) chain rules.

#![allow(clippy::needless_range_loop)]

use moreau::model::{JointType, Model};

/// The activations that [`moreau::pipeline::advance_act`] moves from `act` by `c act_dot`,
/// each with its factor `c` ([`moreau::pipeline::act_step`]): all but those its `actrange`
/// clamp stops (as the dual of the clamp: strict comparisons), whose row of `∂act'/∂x` is zero.
pub(crate) fn moving_acts<'a>(
    m: &'a Model,
    h: f64,
    act: &'a [f64],
    act_dot: &'a [f64],
) -> impl Iterator<Item = (usize, f64)> + 'a {
    let stateful = |u: usize| usize::try_from(m.actuator_actadr[u]).ok().map(|a| (u, a));
    (0..m.nu).filter_map(stateful).flat_map(move |(u, adr)| {
        let cf = moreau::pipeline::act_step(m, u, h);
        (adr..adr + m.actuator_actnum[u]).filter_map(move |i| {
            let x = act[i] + act_dot[i] * cf;
            let r = m.actuator_actrange[u];
            let clamped = m.actuator_actlimited[u] && (x < r[0] || x > r[1]);
            (!clamped).then_some((i, cf))
        })
    })
}

/// Tangent rows of `q ⊕ h w` (row-major `nv × c`, every entry written into `out`) from
/// `dw = ∂w/∂x` (row-major `nv × c`), the first `nv` columns being the position tangent
/// (identity), at the velocity `w` (`mjd_quatIntegrate` blocks for quaternions, API Reference).
pub(crate) fn integrate_rows(m: &Model, w: &[f64], dw: &[f64], c: usize, h: f64, out: &mut [f64]) {
    for j in 0..m.njnt {
        let da = m.jnt_dofadr[j];
        let (nlin, rot) = match m.jnt_type[j] {
            JointType::Free => (3, Some(da + 3)),
            JointType::Ball => (0, Some(da)),
            _ => (1, None),
        };
        for i in da..da + nlin {
            let t = &mut out[i * c..(i + 1) * c];
            for (t, v) in t.iter_mut().zip(&dw[i * c..(i + 1) * c]) {
                *t = h * *v;
            }
            t[i] += 1.0;
        }
        if let Some(r) = rot {
            let wr = nalgebra::Vector3::new(w[r], w[r + 1], w[r + 2]);
            let (dq, dvel, _) = crate::quat::quat_integrate_deriv(&wr, h);
            let dvel = dvel * h;
            let rows3 = &dw[r * c..(r + 3) * c];
            for e in 0..3 {
                let t = &mut out[(r + e) * c..(r + e + 1) * c];
                let (g0, g1, g2) = (dvel[(e, 0)], dvel[(e, 1)], dvel[(e, 2)]);
                for k in 0..c {
                    t[k] = g0 * rows3[k] + g1 * rows3[c + k] + g2 * rows3[2 * c + k];
                }
                for f in 0..3 {
                    t[r + f] += dq[(e, f)];
                }
            }
        }
    }
}
