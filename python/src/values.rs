//! Values of one model array in MuJoCo's dtype (float64, float32, int32 or uint8), owned or
//! borrowed: what `crate::model::array_values` reads and the batch's per-simulation fields
//! hold.

/// Owned values.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    F64(Vec<f64>),
    F32(Vec<f32>),
    I32(Vec<i32>),
    U8(Vec<u8>),
}

/// Borrowed values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValuesRef<'a> {
    F64(&'a [f64]),
    F32(&'a [f32]),
    I32(&'a [i32]),
    U8(&'a [u8]),
}

impl Values {
    /// Number of entries.
    pub fn len(&self) -> usize {
        match self {
            Values::F64(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::I32(v) => v.len(),
            Values::U8(v) => v.len(),
        }
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// No entries, of the same type.
    pub fn empty_like(&self) -> Values {
        match self {
            Values::F64(_) => Values::F64(Vec::new()),
            Values::F32(_) => Values::F32(Vec::new()),
            Values::I32(_) => Values::I32(Vec::new()),
            Values::U8(_) => Values::U8(Vec::new()),
        }
    }

    /// Entries `at..at + n`.
    pub fn slice(&self, at: usize, n: usize) -> ValuesRef<'_> {
        match self {
            Values::F64(v) => ValuesRef::F64(&v[at..at + n]),
            Values::F32(v) => ValuesRef::F32(&v[at..at + n]),
            Values::I32(v) => ValuesRef::I32(&v[at..at + n]),
            Values::U8(v) => ValuesRef::U8(&v[at..at + n]),
        }
    }

    /// Appends `other`'s entries; false (and nothing appended) if its type differs.
    pub fn extend(&mut self, other: &Values) -> bool {
        match (self, other) {
            (Values::F64(a), Values::F64(b)) => a.extend_from_slice(b),
            (Values::F32(a), Values::F32(b)) => a.extend_from_slice(b),
            (Values::I32(a), Values::I32(b)) => a.extend_from_slice(b),
            (Values::U8(a), Values::U8(b)) => a.extend_from_slice(b),
            _ => return false,
        }
        true
    }

    /// Overwrites entries `at..` with `other`'s; false (and nothing written) if its type
    /// differs or it does not fit.
    pub fn write(&mut self, at: usize, other: &Values) -> bool {
        fn put<T: Copy>(a: &mut [T], at: usize, b: &[T]) -> bool {
            match a.get_mut(at..at + b.len()) {
                Some(dst) => {
                    dst.copy_from_slice(b);
                    true
                }
                None => false,
            }
        }
        match (self, other) {
            (Values::F64(a), Values::F64(b)) => put(a, at, b),
            (Values::F32(a), Values::F32(b)) => put(a, at, b),
            (Values::I32(a), Values::I32(b)) => put(a, at, b),
            (Values::U8(a), Values::U8(b)) => put(a, at, b),
            _ => false,
        }
    }

    /// The whole as borrowed values.
    pub fn as_ref(&self) -> ValuesRef<'_> {
        self.slice(0, self.len())
    }
}

/// The values of a NumPy array of float64, float32, int32, uint8 or bool (as uint8),
/// flattened.
pub fn from_array(a: &pyo3::Bound<'_, pyo3::PyAny>) -> pyo3::PyResult<Values> {
    use numpy::PyReadonlyArrayDyn;
    use pyo3::types::PyAnyMethods;
    if let Ok(x) = a.extract::<PyReadonlyArrayDyn<'_, f64>>() {
        return Ok(Values::F64(x.as_array().iter().copied().collect()));
    }
    if let Ok(x) = a.extract::<PyReadonlyArrayDyn<'_, f32>>() {
        return Ok(Values::F32(x.as_array().iter().copied().collect()));
    }
    if let Ok(x) = a.extract::<PyReadonlyArrayDyn<'_, i32>>() {
        return Ok(Values::I32(x.as_array().iter().copied().collect()));
    }
    if let Ok(x) = a.extract::<PyReadonlyArrayDyn<'_, u8>>() {
        return Ok(Values::U8(x.as_array().iter().copied().collect()));
    }
    if let Ok(x) = a.extract::<PyReadonlyArrayDyn<'_, bool>>() {
        return Ok(Values::U8(
            x.as_array().iter().map(|&b| u8::from(b)).collect(),
        ));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(
        "not a float64, float32, int32, uint8 or bool array",
    ))
}

impl From<Vec<f64>> for Values {
    fn from(v: Vec<f64>) -> Self {
        Values::F64(v)
    }
}

impl From<Vec<f32>> for Values {
    fn from(v: Vec<f32>) -> Self {
        Values::F32(v)
    }
}

/// Floats of one precision, the type of a model array's borrowed values.
pub trait Float: Copy {
    /// `v`'s floats if they are of this precision.
    fn of(v: ValuesRef<'_>) -> Option<&[Self]>;
}

impl Float for f64 {
    fn of(v: ValuesRef<'_>) -> Option<&[f64]> {
        match v {
            ValuesRef::F64(x) => Some(x),
            _ => None,
        }
    }
}

impl Float for f32 {
    fn of(v: ValuesRef<'_>) -> Option<&[f32]> {
        match v {
            ValuesRef::F32(x) => Some(x),
            _ => None,
        }
    }
}

impl ValuesRef<'_> {
    /// Copies these floats into `dst`; false (and nothing written) for another type or length.
    pub fn put_into<T: Float>(self, dst: &mut [T]) -> bool {
        match T::of(self) {
            Some(src) if src.len() == dst.len() => {
                dst.copy_from_slice(src);
                true
            }
            _ => false,
        }
    }
}
