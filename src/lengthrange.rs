//! Compile-time actuator length ranges (MuJoCo's `mj_setLengthRange`, MJCF
//! `<compiler><lengthrange>`).
//!
//! Implemented: the selection (`mode`: none / muscle / all), `useexisting` (keep a range with
//! `lo < hi` already set) and `uselimit`: for a joint (hinge/slide) or tendon transmission whose
//! target is limited, the range is copied from `jnt_range` / `tendon_range` **without applying the
//! gear** (as MuJoCo 4.0.0 does, checked numerically). Not implemented: the simulation-based
//! estimate used otherwise (it needs the constraint solver for joint limits): those actuators
//! are reported by [`set_length_range`] and keep their range.

use crate::model::{BiasType, DynType, GainType, JointType, Model, TrnType};

/// Which actuators get a computed range (`lengthrange/mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthRangeMode {
    None,
    Muscle,
    All,
}

/// Options of `<compiler><lengthrange>` that matter here (MuJoCo defaults: muscle, true, false).
#[derive(Clone, Copy, Debug)]
pub struct LengthRangeOpt {
    pub mode: LengthRangeMode,
    pub useexisting: bool,
    pub uselimit: bool,
}

impl Default for LengthRangeOpt {
    fn default() -> Self {
        LengthRangeOpt {
            mode: LengthRangeMode::Muscle,
            useexisting: true,
            uselimit: false,
        }
    }
}

/// True if actuator `i` is a muscle (any of dyn/gain/bias of muscle type).
pub fn is_muscle(m: &Model, i: usize) -> bool {
    m.actuator_dyntype[i] == DynType::Muscle
        || m.actuator_gaintype[i] == GainType::Muscle
        || m.actuator_biastype[i] == BiasType::Muscle
}

/// Fills `actuator_lengthrange` where it can (see the module docs). Returns the ids of the
/// selected actuators whose range would need the simulation-based estimate (left unchanged).
pub fn set_length_range(m: &mut Model, opt: &LengthRangeOpt) -> Vec<usize> {
    let mut todo = Vec::new();
    for i in 0..m.nu {
        let selected = match opt.mode {
            LengthRangeMode::None => false,
            LengthRangeMode::Muscle => is_muscle(m, i),
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
                TrnType::Joint | TrnType::JointInParent
                    if m.jnt_limited[id]
                        && matches!(m.jnt_type[id], JointType::Hinge | JointType::Slide) =>
                {
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
        todo.push(i);
    }
    todo
}
