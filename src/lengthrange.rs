//! Compile-time actuator length ranges (MuJoCo's `mj_setLengthRange`, MJCF
//! `<compiler><lengthrange>`; checked against MuJoCo 4.0.0 in tests/engine/camera_rangefinder_oracle.rs).
//!
//! Selection: `mode` none / muscle / muscleuser / all, where an actuator is a muscle if its gain
//! or bias type is `muscle` (the dynamics type does not count, as in MuJoCo); `useexisting`
//! keeps a range with `lo < hi`; `uselimit`: a joint / jointinparent or tendon transmission
//! whose target is limited copies `jnt_range` / `tendon_range` **without applying the gear**
//! (as MuJoCo 4.0.0 does). Otherwise the range is estimated by simulation ([`simulate`]).
//!
//! Actuators with the same transmission (type, target, gear, crank length) have the same
//! simulated range: it is computed once. The simulations together are bounded by
//! [`MAX_STEPS`] steps (1,000 distinct transmissions at the default options); a model past it
//! is refused by name instead of compiling for minutes.

use crate::data::{Data, Warning};
use crate::integrator::{step1, step2};
use crate::model::{disable, BiasType, GainType, Model, TrnType};
use crate::smooth::crb::solve_m;

/// Most simulation steps the length-range computation of one model may take (each distinct
/// transmission costs `2 ⌈inttotal / timestep⌉`, 2,000 at the default options).
pub const MAX_STEPS: f64 = 2e6;

/// Which actuators get a computed range (`lengthrange/mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthRangeMode {
    None,
    Muscle,
    /// Muscles and actuators with user gain or bias.
    MuscleUser,
    All,
}

/// `<compiler><lengthrange>` options (`mjLROpt`; defaults as `mj_defaultLROpt`).
#[derive(Clone, Copy, Debug)]
pub struct LengthRangeOpt {
    pub mode: LengthRangeMode,
    pub useexisting: bool,
    pub uselimit: bool,
    /// Target acceleration used to compute the force.
    pub accel: f64,
    /// Largest applied force norm; 0: no limit.
    pub maxforce: f64,
    /// Time constant of the velocity decay (at least 0.01).
    pub timeconst: f64,
    /// Simulation timestep; 0: the model's.
    pub timestep: f64,
    /// Simulated time per direction.
    pub inttotal: f64,
    /// Final interval over which the length extremes are recorded.
    pub interval: f64,
    /// Largest allowed spread of the length over `interval`, relative to the range.
    pub tolrange: f64,
}

impl Default for LengthRangeOpt {
    fn default() -> Self {
        LengthRangeOpt {
            mode: LengthRangeMode::Muscle,
            useexisting: true,
            uselimit: false,
            accel: 20.0,
            maxforce: 0.0,
            timeconst: 1.0,
            timestep: 0.01,
            inttotal: 10.0,
            interval: 2.0,
            tolrange: 0.05,
        }
    }
}

/// True if actuator `i` is a muscle for the length-range selection: muscle gain or bias.
pub fn is_muscle(m: &Model, i: usize) -> bool {
    m.actuator_gaintype[i] == GainType::Muscle || m.actuator_biastype[i] == BiasType::Muscle
}

fn is_user(m: &Model, i: usize) -> bool {
    m.actuator_gaintype[i] == GainType::User || m.actuator_biastype[i] == BiasType::User
}

/// Fills `actuator_lengthrange` of the selected actuators (see the module docs). Errors (with
/// MuJoCo's message) when a simulation is unstable, gives an empty range or does not settle.
pub fn set_length_range(m: &mut Model, opt: &LengthRangeOpt) -> Result<(), String> {
    let mut sim: Option<Model> = None;
    // (transmission, range) of the simulations done
    let mut done: Vec<(Transmission, [f64; 2])> = Vec::new();
    let mut steps = 0.0;
    for i in 0..m.nu {
        let selected = match opt.mode {
            LengthRangeMode::None => false,
            LengthRangeMode::Muscle => is_muscle(m, i),
            LengthRangeMode::MuscleUser => is_muscle(m, i) || is_user(m, i),
            LengthRangeMode::All => true,
        };
        if !selected {
            continue;
        }
        let lr = m.actuator_lengthrange[i];
        if opt.useexisting && lr[0] < lr[1] {
            continue;
        }
        let id = m.actuator_trnid[i][0];
        if opt.uselimit && id >= 0 {
            let id = id as usize;
            match m.actuator_trntype[i] {
                TrnType::Joint | TrnType::JointInParent if m.jnt_limited[id] => {
                    m.actuator_lengthrange[i] = m.jnt_range[id];
                    continue;
                }
                TrnType::Tendon if m.tendon_limited[id] => {
                    m.actuator_lengthrange[i] = m.tendon_range[id];
                    continue;
                }
                _ => {}
            }
        }
        let key = transmission(m, i);
        if let Some(&(_, r)) = done.iter().find(|(k, _)| *k == key) {
            m.actuator_lengthrange[i] = r;
            if let Some(sm) = &mut sim {
                sm.actuator_lengthrange[i] = r;
            }
            continue;
        }
        let sm = sim.get_or_insert_with(|| {
            // MuJoCo's compiler: these disable flags replace the model's, timestep from the options
            let mut s = m.clone();
            s.opt.disableflags = disable::FRICTIONLOSS
                | disable::CONTACT
                | disable::SPRING
                | disable::DAMPER
                | disable::GRAVITY
                | disable::ACTUATION;
            if opt.timestep > 0.0 {
                s.opt.timestep = opt.timestep;
            }
            s
        });
        steps += 2.0 * (opt.inttotal / sm.opt.timestep).ceil();
        if steps.is_nan() || steps > MAX_STEPS {
            return Err(format!(
                "Lengthrange computation in actuator {i} would exceed {MAX_STEPS:e} simulation \
                 steps (inttotal {} / timestep {} per direction, for each distinct \
                 transmission): set the actuator's lengthrange or lengthrange's inttotal and \
                 timestep",
                opt.inttotal, sm.opt.timestep
            ));
        }
        let r = simulate(sm, i, opt)?;
        m.actuator_lengthrange[i] = r;
        sm.actuator_lengthrange[i] = r;
        done.push((key, r));
    }
    Ok(())
}

/// What the simulated length range of an actuator depends on (with actuation disabled):
/// transmission type, targets, gear and crank length, compared bit for bit.
#[derive(PartialEq)]
struct Transmission {
    trntype: TrnType,
    trnid: [i32; 2],
    gear: [u64; 6],
    cranklength: u64,
}

fn transmission(m: &Model, i: usize) -> Transmission {
    Transmission {
        trntype: m.actuator_trntype[i],
        trnid: m.actuator_trnid[i],
        gear: m.actuator_gear[i].map(f64::to_bits),
        cranklength: m.actuator_cranklength[i].to_bits(),
    }
}

/// The simulation estimate for actuator `i` (`mj_setLengthRange`): for each direction `side`
/// (−1 then +1), from `qpos0` at rest, every step multiplies `qvel` by
/// `exp(−h / max(0.01, timeconst))`, runs the position and velocity stages, applies
/// `qfrc_applied = side · accel · moment / |M⁻¹ moment|` (norm capped at `maxforce` if > 0) and
/// finishes the step (`mj_step2`), until `time ≥ inttotal`. The actuator length (from the start of
/// each step) is recorded over the last `interval`: the range is (min of side −1, max of side +1);
/// each side's spread must not exceed `tolrange` times the range. `m` must already carry the
/// length-range options (disable flags, timestep). A step whose divergence check resets the state
/// (e.g. a body placed at 1e308) is an error: restarted from rest, the simulation would diverge
/// again at the same step and never finish.
pub fn simulate(m: &Model, i: usize, opt: &LengthRangeOpt) -> Result<[f64; 2], String> {
    const MINVAL: f64 = 1e-15;
    const RESETS: [Warning; 3] = [Warning::BadQpos, Warning::BadQvel, Warning::BadQacc];
    let nv = m.nv;
    let mut d = Data::<f64>::alloc(m);
    let mut moment = vec![0.0; nv];
    let mut x = vec![0.0; nv];
    let decay = (-m.opt.timestep / opt.timeconst.max(0.01)).exp();
    let mut lmin = [0.0; 2];
    let mut lmax = [0.0; 2];
    let mut range = [0.0; 2];
    for side in 0..2 {
        d.reset_state(m);
        let mut updated = false;
        while d.time < opt.inttotal {
            d.qvel.iter_mut().for_each(|v| *v *= decay);
            step1(m, &mut d);
            d.moment_row_dense(i, &mut moment);
            x.copy_from_slice(&moment);
            solve_m(m, &d, &mut x);
            let nrm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            let s = (2.0 * side as f64 - 1.0) * opt.accel / nrm.max(MINVAL);
            for (f, mo) in d.qfrc_applied.iter_mut().zip(&moment) {
                *f = mo * s;
            }
            let nrm = d.qfrc_applied.iter().map(|v| v * v).sum::<f64>().sqrt();
            if opt.maxforce > 0.0 && nrm > opt.maxforce {
                let s = opt.maxforce / nrm.max(MINVAL);
                d.qfrc_applied.iter_mut().for_each(|f| *f *= s);
            }
            step2(m, &mut d);
            let len = d.actuator_length[i];
            if d.time == 0.0 {
                return Err(format!("Unstable lengthrange simulation in actuator {i}"));
            }
            // A divergence check reset the state (to `qpos0` at rest, time 0): the simulation
            // would start over from where this side began, diverge at the same step and never
            // reach `inttotal` (MuJoCo 4.0.0 does not return on such a model).
            if let Some(w) = RESETS
                .into_iter()
                .find(|&w| d.warning[w as usize].number > 0)
            {
                return Err(format!(
                    "Unstable lengthrange simulation in actuator {i}: {}",
                    w.text(d.warning[w as usize].lastinfo)
                ));
            }
            if d.time > opt.inttotal - opt.interval {
                if len < lmin[side] || !updated {
                    lmin[side] = len;
                }
                if len > lmax[side] || !updated {
                    lmax[side] = len;
                }
                updated = true;
            }
        }
        range[side] = if side == 0 { lmin[0] } else { lmax[1] };
    }
    let dif = range[1] - range[0];
    if dif <= 0.0 {
        return Err(format!(
            "Invalid lengthrange ({}, {}) in actuator {i}",
            fmt_g(range[0]),
            fmt_g(range[1])
        ));
    }
    for side in 0..2 {
        if lmax[side] - lmin[side] > opt.tolrange * dif {
            return Err(format!(
                "Lengthrange computation did not converge in actuator {i}: eval ({}, {}), range ({}, {})",
                lmin[side], lmax[side], range[0], range[1]
            ));
        }
    }
    Ok(range)
}

/// `x` as C's `printf("%g")` writes it (MuJoCo's error messages use it): six significant digits,
/// fixed notation for decimal exponents −4 to 5, otherwise `d.ddddde±XX`, trailing zeros dropped.
fn fmt_g(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let e = format!("{x:.5e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..6).contains(&exp) {
        let digits = (5 - exp).max(0) as usize;
        trim(&format!("{x:.digits$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant), exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_g;

    /// `"%g" % x` in Python (C's `printf`) for each value.
    #[test]
    fn fmt_g_is_printf_g() {
        let cases = [
            (2147483648.0, "2.14748e+09"),
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (0.1, "0.1"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (999999.5, "1e+06"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (-0.5, "-0.5"),
            (1e308, "1e+308"),
            (5e-324, "4.94066e-324"),
            (0.3, "0.3"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(fmt_g(x), want, "{x:e}");
        }
    }
}
