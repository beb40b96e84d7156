//! `MjSpec`: an MJCF document to compile, with MuJoCo's `from_string`, `from_file` and
//! `compile`. Only these: moreau has no editable model specification (no element access, no
//! `to_xml`); `compile` raises each warning of the compiler as a `UserWarning`, as MuJoCo
//! 4.0.0's `MjSpec.compile` does (`MjModel.from_xml_string` only prints it, in both).

use crate::model::MjModel;
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::ffi::CString;

/// An MJCF document and its assets, compiled by `compile` (a subset of `mujoco.MjSpec`).
#[pyclass(module = "moreau")]
pub struct MjSpec {
    xml: Option<String>,
    path: Option<String>,
    assets: Option<Py<PyDict>>,
}

#[pymethods]
impl MjSpec {
    /// The document `xml`; `include` (the files `<include>` names) and `assets` (meshes,
    /// height fields, textures) map file names to their bytes, MuJoCo's VFS. The document is
    /// read and compiled by `compile`, which raises every error (MuJoCo raises the XML's own
    /// errors here).
    #[staticmethod]
    #[pyo3(signature = (xml, include=None, assets=None))]
    fn from_string(
        py: Python<'_>,
        xml: String,
        include: Option<Bound<'_, PyDict>>,
        assets: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        Ok(MjSpec {
            xml: Some(xml),
            path: None,
            assets: files(py, include, assets)?,
        })
    }

    /// The document at `filename` (its files relative to its directory); `include` and
    /// `assets` as in `from_string`. The file is read when compiling.
    #[staticmethod]
    #[pyo3(signature = (filename, include=None, assets=None))]
    fn from_file(
        py: Python<'_>,
        filename: std::path::PathBuf,
        include: Option<Bound<'_, PyDict>>,
        assets: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        Ok(MjSpec {
            xml: None,
            path: Some(filename.to_string_lossy().into_owned()),
            assets: files(py, include, assets)?,
        })
    }

    /// Compiles the document into an `MjModel`: errors as `MjModel.from_xml_string`'s
    /// (`ValueError`); each warning of the compiler (a `sleep="init"` tree that cannot sleep)
    /// raised as a `UserWarning` with MuJoCo's text, as `mujoco.MjSpec.compile` does.
    fn compile(&self, py: Python<'_>) -> PyResult<MjModel> {
        let assets = self.assets.as_ref().map(|a| a.bind(py).clone());
        let m = crate::model::load(py, self.xml.clone(), self.path.clone(), assets)?;
        let warnings = m
            .source
            .as_ref()
            .map(|s| s.warnings.clone())
            .unwrap_or_default();
        for w in warnings {
            let text = CString::new(w.replace('\0', " ")).unwrap_or_default();
            PyErr::warn(py, &py.get_type::<PyUserWarning>(), &text, 1)?;
        }
        Ok(m)
    }
}

/// `include` and `assets` as one dictionary (the loader's VFS), `None` without either.
fn files(
    py: Python<'_>,
    include: Option<Bound<'_, PyDict>>,
    assets: Option<Bound<'_, PyDict>>,
) -> PyResult<Option<Py<PyDict>>> {
    if include.is_none() && assets.is_none() {
        return Ok(None);
    }
    let all = PyDict::new(py);
    for d in [include, assets].into_iter().flatten() {
        all.update(d.as_mapping())?;
    }
    Ok(Some(all.unbind()))
}

/// Registers `MjSpec`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MjSpec>()
}
