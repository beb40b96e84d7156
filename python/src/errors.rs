//! Exceptions: MJCF loading errors with their location, and divergence of the simulation.

use moreau::data::{Warning, NWARNING};
use moreau::MjcfError;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
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

/// Registers the exception classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("MjcfLoadError", py.get_type::<MjcfLoadError>())?;
    m.add(
        "UnstableSimulationError",
        py.get_type::<UnstableSimulationError>(),
    )?;
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

/// Warning counters of a `Data`, to see which warnings a call raised.
pub type Counters = [u64; NWARNING];

/// The current warning counters.
pub fn counters(d: &moreau::Data) -> Counters {
    let mut c = [0; NWARNING];
    for (x, w) in c.iter_mut().zip(&d.warning) {
        *x = w.number;
    }
    c
}

/// MuJoCo's text of the divergence warnings (`mju_warningText`).
fn warning_text(w: usize, info: i64, time: f64) -> String {
    let what = match w {
        x if x == Warning::BadQpos as usize => "QPOS",
        x if x == Warning::BadQvel as usize => "QVEL",
        _ => "QACC",
    };
    format!(
        "Nan, Inf or huge value in {what} at DOF {info}. The simulation is unstable. Time = {time:.4}."
    )
}

/// Raises [`UnstableSimulationError`] if a divergence warning (bad qpos, qvel or qacc) was
/// recorded since `before`.
pub fn check_unstable(py: Python<'_>, d: &moreau::Data, before: &Counters) -> PyResult<()> {
    for w in [Warning::BadQpos, Warning::BadQvel, Warning::BadQacc] {
        let k = w as usize;
        if d.warning[k].number > before[k] {
            let err =
                UnstableSimulationError::new_err(warning_text(k, d.warning[k].lastinfo, d.time));
            let v = err.value(py);
            v.setattr("warning", k)?;
            v.setattr("index", d.warning[k].lastinfo)?;
            return Err(err);
        }
    }
    Ok(())
}
