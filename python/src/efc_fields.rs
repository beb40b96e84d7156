//! The `MjData` getters of [`crate::efc`]'s fields: the dual problem's matrices `efc_Y`,
//! `efc_AR` with their row arrays and `nY` (formed and kept by `crate::efc::dual_cached`),
//! and `tendon_efcadr`.

use crate::arrays::copy;
use crate::data::MjData;
use crate::efc::dual_cached;
use crate::islands::arr;
use moreau::data::ConstraintType;
use moreau::model::EqType;
use pyo3::prelude::*;

macro_rules! dual_fields {
    ($($getter:ident = $field:ident : $t:ty, $doc:literal;)*) => {
        #[pymethods]
        impl MjData {
            $(
                #[doc = $doc]
                #[getter]
                #[allow(non_snake_case)]
                fn $getter<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
                    let m = &self.model.bind(py).borrow().model;
                    let v: Vec<$t> = dual_cached(m, &self.data, &self.dual).$field;
                    let n = v.len();
                    copy(py, v, &[n])
                }
            )*
        }
    };
}

dual_fields! {
    efc_Y = y: f64, "`efc_Y = J L⁻¹ D^(−1/2)`, MuJoCo's layout (PGS or noslip only; read-only copy).";
    efc_Y_rownnz = y_rownnz: i32, "Entries of each row of a sparse `efc_Y` (read-only int32 copy).";
    efc_Y_rowadr = y_rowadr: i32, "Address of each row of a sparse `efc_Y` (read-only int32 copy).";
    efc_Y_colind = y_colind: i32, "Column of each entry of a sparse `efc_Y` (read-only int32 copy).";
    efc_AR = ar: f64, "`efc_AR = J M⁻¹ Jᵀ + R`, MuJoCo's layout (PGS or noslip only; read-only copy).";
    efc_AR_rownnz = ar_rownnz: i32, "Entries of each row of a sparse `efc_AR` (read-only int32 copy).";
    efc_AR_rowadr = ar_rowadr: i32, "Address of each row of a sparse `efc_AR` (read-only int32 copy).";
    efc_AR_colind = ar_colind: i32, "Column of each entry of a sparse `efc_AR` (read-only int32 copy).";
}

#[pymethods]
impl MjData {
    /// Number of entries of `efc_Y` (`nY`: `nefc × nv` when dense; 0 unless PGS or the noslip
    /// pass formed it).
    #[getter]
    #[allow(non_snake_case)]
    fn nY(&self, py: Python<'_>) -> usize {
        dual_cached(&self.model.bind(py).borrow().model, &self.data, &self.dual)
            .y
            .len()
    }
}

#[pymethods]
impl MjData {
    /// `tendon_efcadr`: per tendon, the first constraint row involving it (-1: none; read-only
    /// int32 copy).
    #[getter]
    fn tendon_efcadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let m = &self.model.bind(py).borrow().model;
        let d = &self.data;
        let mut adr = vec![-1i32; m.ntendon];
        for r in (0..d.nefc).rev() {
            let id = d.efc_id[r];
            let mut set = |t: i64| {
                if let Some(a) = usize::try_from(t).ok().and_then(|t| adr.get_mut(t)) {
                    *a = r as i32;
                }
            };
            match d.efc_type[r] {
                ConstraintType::FrictionTendon | ConstraintType::LimitTendon => set(id as i64),
                ConstraintType::Equality if m.eq_type.get(id) == Some(&EqType::Tendon) => {
                    set(m.eq_obj1id[id] as i64);
                    set(m.eq_obj2id[id] as i64);
                }
                _ => {}
            }
        }
        arr(py, adr)
    }
}
