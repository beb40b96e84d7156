//! The two halves of `moreau.MjSpec` (`python/python/moreau/_spec.py`, MuJoCo 4.0.0's editable
//! model specification) that need the MJCF front end: reading a document into its elements,
//! with the errors MuJoCo raises while reading (`_spec_parse`), and compiling the document an
//! edited specification writes (`_spec_compile`).

use crate::model::MjModel;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::path::PathBuf;

/// Reads the MJCF document `xml` (or, without it, the file `path`), its `<include>`s expanded
/// (relative to the file's directory, from `assets` first), as MuJoCo's XML reader does:
/// malformed XML, schema violations, numbers that do not read, unknown keywords or default
/// classes, repeated names, several orientations and missing include files raise
/// `MjcfLoadError` here, as `mujoco.MjSpec.from_string` raises them; errors MuJoCo raises when
/// compiling are left to `_spec_compile`. Returns the elements in document order, each as
/// `(parent index or None, tag, [(attribute, value), ...], text, line)`.
#[pyfunction]
#[pyo3(signature = (xml=None, path=None, assets=None))]
fn _spec_parse<'py>(
    py: Python<'py>,
    xml: Option<String>,
    path: Option<PathBuf>,
    assets: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let vfs = crate::model::vfs_of(assets)?;
    let dir = path.as_ref().and_then(|p| p.parent().map(PathBuf::from));
    let text = match (xml, &path) {
        (Some(x), _) => x,
        (None, Some(p)) => std::fs::read_to_string(p).map_err(|e| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "Error opening file '{}': {e}",
                p.display()
            ))
        })?,
        (None, None) => {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "_spec_parse: give xml or path",
            ))
        }
    };
    let els = py
        .detach(|| moreau::parse_spec(&text, dir.as_deref(), &vfs))
        .map_err(|e| crate::errors::mjcf_error(py, &e))?;
    let out = PyList::empty(py);
    for e in els {
        let attrs = PyList::empty(py);
        for (k, v) in e.attrs {
            attrs.append((k, v))?;
        }
        out.append(PyTuple::new(
            py,
            [
                e.parent.into_pyobject(py)?.into_any(),
                e.name.into_pyobject(py)?.into_any(),
                attrs.into_any(),
                e.text.into_pyobject(py)?.into_any(),
                e.line.into_pyobject(py)?.into_any(),
            ],
        )?)?;
    }
    Ok(out)
}

/// Compiles the MJCF document `xml` with its mesh, height-field and texture files relative to
/// `modelfiledir` (from `assets` first): the model and the compiler's warnings (MuJoCo's texts,
/// which `MjSpec.compile` raises as `UserWarning`s). Errors as `MjModel.from_xml_string`'s.
#[pyfunction]
#[pyo3(signature = (xml, modelfiledir=None, assets=None))]
fn _spec_compile(
    py: Python<'_>,
    xml: String,
    modelfiledir: Option<PathBuf>,
    assets: Option<Bound<'_, PyDict>>,
) -> PyResult<(MjModel, Vec<String>)> {
    let m = crate::model::load_in(py, xml, modelfiledir, assets)?;
    let warnings = m
        .source
        .as_ref()
        .map(|s| s.warnings.clone())
        .unwrap_or_default();
    Ok((m, warnings))
}

/// Registers `_spec_parse` and `_spec_compile`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_spec_parse, m)?)?;
    m.add_function(wrap_pyfunction!(_spec_compile, m)?)
}
