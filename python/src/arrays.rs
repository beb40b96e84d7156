//! NumPy arrays over model and data memory, copies, and argument checking.
//!
//! A *view* is a NumPy array whose data pointer is inside a Rust `Vec` owned by an `MjModel` or
//! `MjData`, with that Python object as the array's base, as MuJoCo's bindings return views
//! into `mjModel` / `mjData`. This is sound because the `Vec`s behind views are sized once
//! (`Data::new`, the MJCF compiler) and never reallocated afterwards: the functions of this
//! package that replace model or data contents copy into the existing buffers
//! ([`crate::model::assign_model`], [`crate::data::copy_data`]). Fields whose Rust layout is
//! not MuJoCo's (quaternions, rotation matrices, variable-length constraint arrays, contacts)
//! are returned as read-only copies, so writing to them raises instead of being lost.

use numpy::npyffi::{objects::_PyArray_GET_ITEM_DATA, NPY_ARRAY_WRITEABLE};
use numpy::{
    ndarray, AllowTypeChange, Element, PyArray1, PyArrayDyn, PyArrayLikeDyn, PyArrayMethods,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// A view of `shape` elements at `ptr` with `owner` as the array's base object.
///
/// # Safety
/// `ptr` must point to `shape.iter().product()` initialized elements that stay valid and are
/// not reallocated while `owner` is alive.
pub unsafe fn view_raw<'py, T: Element>(
    owner: &Bound<'py, PyAny>,
    ptr: *const T,
    shape: &[usize],
) -> Bound<'py, PyAny> {
    // SAFETY: forwarded to the caller.
    unsafe {
        let v = ndarray::ArrayViewD::from_shape_ptr(ndarray::IxDyn(shape), ptr);
        PyArrayDyn::borrow_from_array(&v, owner.clone()).into_any()
    }
}

/// A 1-D view of `s`.
///
/// # Safety
/// As [`view_raw`]: `s` must live in a buffer owned by `owner` that is never reallocated.
pub unsafe fn view1<'py, T: Element>(owner: &Bound<'py, PyAny>, s: &[T]) -> Bound<'py, PyAny> {
    unsafe { view_raw(owner, s.as_ptr(), &[s.len()]) }
}

/// A `(len, N)` view of fixed-size rows.
///
/// # Safety
/// As [`view1`].
pub unsafe fn view_rows<'py, T: Element, const N: usize>(
    owner: &Bound<'py, PyAny>,
    s: &[[T; N]],
) -> Bound<'py, PyAny> {
    unsafe { view_raw(owner, s.as_ptr().cast::<T>(), &[s.len(), N]) }
}

/// A `(len, R)` view of nalgebra column vectors (`Vector3`, `Vector6`), stored contiguously.
///
/// # Safety
/// As [`view1`].
pub unsafe fn view_vecs<'py, const R: usize>(
    owner: &Bound<'py, PyAny>,
    s: &[nalgebra::SVector<f64, R>],
) -> Bound<'py, PyAny> {
    const { assert!(std::mem::size_of::<nalgebra::SVector<f64, R>>() == R * 8) };
    unsafe { view_raw(owner, s.as_ptr().cast::<f64>(), &[s.len(), R]) }
}

/// Clears the WRITEABLE flag: a copy of a field, so writes raise instead of being lost.
pub fn readonly<'py>(a: Bound<'py, PyAny>) -> Bound<'py, PyAny> {
    if let Ok(arr) = a.cast::<numpy::PyUntypedArray>() {
        // SAFETY: the array was just created by us and nothing holds a mutable borrow of it.
        unsafe { (*_PyArray_GET_ITEM_DATA(arr.as_array_ptr())).flags &= !NPY_ARRAY_WRITEABLE };
    }
    a
}

/// A read-only copy with the given shape.
pub fn copy<'py, T: Element>(py: Python<'py>, v: Vec<T>, shape: &[usize]) -> Bound<'py, PyAny> {
    let a = PyArray1::from_vec(py, v);
    let a = if shape.len() == 1 {
        a.into_any()
    } else {
        a.reshape(shape.to_vec())
            .expect("copy: shape matches the length")
            .into_any()
    };
    readonly(a)
}

/// A writeable copy with the given shape (an output the caller owns).
pub fn owned<'py>(py: Python<'py>, v: Vec<f64>, shape: &[usize]) -> Bound<'py, PyAny> {
    PyArray1::from_vec(py, v)
        .reshape(shape.to_vec())
        .expect("owned: shape matches the length")
        .into_any()
}

/// `view[...] = value` with NumPy's broadcasting and its errors (the setter of a view field).
pub fn assign(view: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
    view.set_item(pyo3::types::PyEllipsis::get(view.py()), value)
}

/// An input array of `n` float64 values (any array-like; converted).
pub fn input(x: &Bound<'_, PyAny>, n: usize, what: &str) -> PyResult<Vec<f64>> {
    let a: PyArrayLikeDyn<'_, f64, AllowTypeChange> = x
        .extract()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be an array of numbers")))?;
    if a.len() != n {
        return Err(PyTypeError::new_err(format!(
            "{what} should be of size {n}, got shape {:?}",
            a.shape()
        )));
    }
    Ok(a.as_array().iter().copied().collect())
}

/// Checks that `x` is a writeable, C-contiguous float64 array of `n` elements with `shape` (when
/// given), MuJoCo's requirement on output arguments, and returns it.
pub fn output<'py>(
    x: &Bound<'py, PyAny>,
    n: usize,
    shape: Option<(usize, usize)>,
    what: &str,
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let shape_msg = || match shape {
        Some((r, c)) => format!("{what} should be of shape ({r}, {c})"),
        None => format!("{what} should be of size {n}"),
    };
    let a = x.cast::<PyArrayDyn<f64>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be a float64 numpy array ({})",
            shape_msg()
        ))
    })?;
    let ok_shape = match shape {
        Some((r, c)) => a.shape() == [r, c] || (a.len() == 0 && r * c == 0),
        None => a.len() == n,
    };
    if !ok_shape {
        return Err(PyTypeError::new_err(format!(
            "{}, got {:?}",
            shape_msg(),
            a.shape()
        )));
    }
    if !a.is_c_contiguous() {
        return Err(PyTypeError::new_err(format!("{what} must be C-contiguous")));
    }
    // SAFETY: reading the flags of a live array while attached to the interpreter.
    let writeable =
        unsafe { (*_PyArray_GET_ITEM_DATA(a.as_array_ptr())).flags } & NPY_ARRAY_WRITEABLE != 0;
    if !writeable {
        return Err(PyValueError::new_err(format!("{what} is read-only")));
    }
    Ok(a.clone())
}

/// Copies `v` into the output array `a` (checked by [`output`]).
pub fn write(a: &Bound<'_, PyArrayDyn<f64>>, v: &[f64]) -> PyResult<()> {
    let mut rw = a.try_readwrite()?;
    let s = rw
        .as_slice_mut()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    s.copy_from_slice(v);
    Ok(())
}

/// Copies a row-major `rows × cols` matrix given as an nalgebra `DMatrix` into `a`.
pub fn write_matrix(a: &Bound<'_, PyArrayDyn<f64>>, m: &nalgebra::DMatrix<f64>) -> PyResult<()> {
    let mut rw = a.try_readwrite()?;
    let s = rw
        .as_slice_mut()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let c = m.ncols();
    for i in 0..m.nrows() {
        for j in 0..c {
            s[i * c + j] = m[(i, j)];
        }
    }
    Ok(())
}

/// A new `rows × cols` float64 array holding `m` (row-major).
pub fn matrix<'py>(py: Python<'py>, m: &nalgebra::DMatrix<f64>) -> Bound<'py, PyAny> {
    let (r, c) = (m.nrows(), m.ncols());
    let mut v = Vec::with_capacity(r * c);
    for i in 0..r {
        for j in 0..c {
            v.push(m[(i, j)]);
        }
    }
    owned(py, v, &[r, c])
}
