//! Exceptions: MJCF loading errors with their location, and divergence of the simulation.

use moreau::data::Warning;
use moreau::MjcfError;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    moreau,
    MjcfLoadError,
    PyValueError,
    "An MJCF file that does not load: attributes `file`, `line`, `column` (1-based, 0 when \
     unknown), `element`, `attribute` (or None) and `kind` (the error class, e.g. \
     'BadNumber'). A ValueError, as MuJoCo raises for XML errors."
);

create_exception!(
    moreau,
    UnstableSimulationError,
    PyRuntimeError,
    "The simulation diverged: a NaN, infinite or huge (> 1e10) value in qpos, qvel or qacc. \
     MuJoCo prints its warning and resets the data (unless autoreset is disabled); moreau does \
     the same to the data and then raises this exception with MuJoCo's warning text. \
     Attributes: `warning` (the mjtWarning value) and `index` (the offending entry)."
);

create_exception!(
    moreau,
    FatalError,
    PyException,
    "MuJoCo's fatal error during a step (`mujoco.FatalError`): the arena's stack overflowed \
     (\"mj_stackAlloc: out of memory\", with where and how many bytes, in MuJoCo's words). \
     The step stopped there and the state was not integrated; a larger <size memory> avoids it."
);

/// Registers the exception classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("MjcfLoadError", py.get_type::<MjcfLoadError>())?;
    m.add(
        "UnstableSimulationError",
        py.get_type::<UnstableSimulationError>(),
    )?;
    m.add("FatalError", py.get_type::<FatalError>())?;
    Ok(())
}

/// The Python exception for an MJCF error, with its location as attributes.
pub fn mjcf_error(py: Python<'_>, e: &MjcfError) -> PyErr {
    let err = MjcfLoadError::new_err(e.to_string());
    let v = err.value(py);
    let set = |k: &str, x: Bound<'_, PyAny>| {
        let _ = v.setattr(k, x);
    };
    set("file", e.file.clone().into_pyobject(py).unwrap().into_any());
    set("line", e.line.into_pyobject(py).unwrap().into_any());
    set("column", e.column.into_pyobject(py).unwrap().into_any());
    set(
        "element",
        e.element.clone().into_pyobject(py).unwrap().into_any(),
    );
    set(
        "attribute",
        e.attribute.clone().into_pyobject(py).unwrap().into_any(),
    );
    set(
        "kind",
        format!("{:?}", e.kind)
            .into_pyobject(py)
            .unwrap()
            .into_any(),
    );
    err
}

/// The divergence warnings (`mj_checkPos`, `mj_checkVel`, `mj_checkAcc`), in the order the
/// exception reports them.
const DIVERGENCE: [Warning; 3] = [Warning::BadQpos, Warning::BadQvel, Warning::BadQacc];

/// A divergence seen during a call: its kind, the offending entry and the simulation time at
/// the start of the stage that diverged (the time MuJoCo's warning prints, before the reset).
#[derive(Clone, Copy, Debug)]
pub struct Divergence {
    pub warning: Warning,
    pub index: i64,
    pub time: f64,
}

/// Marks the divergence warnings' `lastinfo` with -1 before an engine call, so that
/// [`disarm`] sees a divergence even when its reset leaves the counter where it was (a second
/// divergence of the same kind: reset to 0, counted to 1 again); returns the values to restore.
pub fn arm(d: &mut moreau::Data) -> [i64; 3] {
    DIVERGENCE.map(|w| std::mem::replace(&mut d.warning[w as usize].lastinfo, -1))
}

/// After the call armed by [`arm`], which started at simulation time `time`: the first
/// divergence it counted (a counter set with an entry's index), if any; `lastinfo` is restored
/// where nothing was counted and no reset cleared it.
pub fn disarm(d: &mut moreau::Data, saved: [i64; 3], time: f64) -> Option<Divergence> {
    let mut found = None;
    for (w, old) in DIVERGENCE.into_iter().zip(saved) {
        let s = &mut d.warning[w as usize];
        if s.lastinfo == -1 {
            s.lastinfo = old;
        } else if s.number > 0 && found.is_none() {
            found = Some(Divergence {
                warning: w,
                index: s.lastinfo,
                time,
            });
        }
    }
    found
}

/// Raises [`UnstableSimulationError`] for a divergence seen during a call, with MuJoCo's
/// warning text at the time before the reset.
pub fn check_unstable(py: Python<'_>, found: Option<Divergence>) -> PyResult<()> {
    let Some(f) = found else {
        return Ok(());
    };
    let text = f.warning.text(f.index);
    let err = UnstableSimulationError::new_err(format!("{text} Time = {:.4}.", f.time));
    let v = err.value(py);
    v.setattr("warning", f.warning as usize)?;
    v.setattr("index", f.index)?;
    Err(err)
}

/// Raises [`FatalError`] if the last engine call stopped at MuJoCo's fatal stack overflow.
pub fn check_fatal(d: &moreau::Data) -> PyResult<()> {
    match d.stack_overflow {
        Some(e) => Err(FatalError::new_err(e.to_string())),
        None => Ok(()),
    }
}
