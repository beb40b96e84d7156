//! The page of `moreau view` from Python (`moreau.viewer.html`): the pure-Python layer
//! (`python/moreau/viewer.py`) turns paths, dicts and arrays into the JSON trajectory format of
//! `moreau simulate`; this builds the page with the `moreau-viewer` crate.

use crate::model::MjModel;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The self-contained HTML page (three.js, the model and the trajectories inside; no network
/// needed) drawing `m` and playing `trajectories` overlaid: a list of `(name, json)` with
/// `json` a trajectory object as `moreau simulate` writes it (`qpos` rows, optionally `time`,
/// `qvel`, `act`, `ctrl`, `contact` and overlays `*_qpos`). An empty list draws the model at
/// `qpos0`. Raises `ValueError` for a trajectory that does not fit the model.
#[pyfunction]
#[pyo3(signature = (m, trajectories, title=None, max_fps=120.0))]
pub fn viewer_page(
    py: Python<'_>,
    m: PyRef<'_, MjModel>,
    trajectories: Vec<(String, String)>,
    title: Option<String>,
    max_fps: f64,
) -> PyResult<String> {
    if max_fps.is_nan() || max_fps < 0.0 {
        return Err(PyValueError::new_err(
            "max_fps must be a non-negative number",
        ));
    }
    let model = &m.model;
    py.detach(move || {
        let mut trajs = Vec::new();
        for (name, text) in &trajectories {
            let v: serde_json::Value = serde_json::from_str(text)
                .map_err(|e| format!("trajectory '{name}': not JSON: {e}"))?;
            let t = moreau_viewer::from_json(model, &v, name)
                .map_err(|e| format!("trajectory '{name}': {e}"))?;
            trajs.extend(t);
        }
        let opts = moreau_viewer::Options { title, max_fps };
        moreau_viewer::page(model, &trajs, &opts)
    })
    .map_err(PyValueError::new_err)
}

/// Registers `viewer_page`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(viewer_page, m)?)
}
