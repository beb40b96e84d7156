//! `MjData`'s constraint islands (`mj_island`: API Reference "mjData", the island fields) and
//! its sleep fields, as read-only int32 copies in MuJoCo's shapes.
//!
//! Islands: the trees, dofs and constraint rows of each island and the maps between the
//! global and the island orders, as the solver found them (`nisland` entries per island field).
//!
//! Sleep: the engine's `tree_asleep` (`moreau::sleep`) and what follows from it: `tree_awake`,
//! `body_awake` (-1 static, 1 awake, 0 asleep), `ntree_awake`, `nv_awake`, `nbody_awake`
//! (static bodies count as awake), `body_awake_ind` (the awake bodies in order),
//! `parent_awake_ind` and `nparent_awake` (the bodies but the world whose parent is awake),
//! `dof_awake_ind` (the dofs of awake trees), as measured on MuJoCo 4.0.0. Past their counts
//! MuJoCo leaves what earlier calls wrote; moreau continues the lists of a model where nothing
//! sleeps (the identity; `parent_awake_ind` ends with 0), which is MuJoCo's while nothing has
//! slept.

use crate::arrays::copy;
use crate::data::MjData;
use pyo3::prelude::*;

/// int32 copies of usize entries.
pub(crate) fn ints(v: impl IntoIterator<Item = usize>) -> Vec<i32> {
    v.into_iter()
        .map(|x| i32::try_from(x).unwrap_or(i32::MAX))
        .collect()
}

/// A one-dimensional int32 array.
pub(crate) fn arr<'py>(py: Python<'py>, v: Vec<i32>) -> Bound<'py, PyAny> {
    let n = v.len();
    copy(py, v, &[n])
}

/// `listed`, then entry k = (k + `shift`) mod n for the remaining k < n (int32).
fn listed_then_identity(
    listed: impl IntoIterator<Item = usize>,
    n: usize,
    shift: usize,
) -> Vec<i32> {
    let mut v: Vec<usize> = listed.into_iter().collect();
    v.extend((v.len()..n).map(|k| (k + shift) % n.max(1)));
    ints(v)
}

/// `body_awake` of a static body (welded to the world).
const STATIC: i32 = -1;

#[pymethods]
impl MjData {
    /// Island of each dof, -1 outside every island (`nv`).
    #[getter]
    fn dof_island<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        match self.islands() {
            true => arr(py, self.data.dof_island.clone()),
            false => arr(py, vec![-1; self.data.qvel.len()]),
        }
    }
    /// Island of each constraint row (`nefc`).
    #[getter]
    fn efc_island<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        match self.islands() {
            true => arr(
                py,
                self.data
                    .efc_island
                    .iter()
                    .take(self.data.nefc)
                    .copied()
                    .collect(),
            ),
            false => arr(py, vec![0; self.data.nefc]),
        }
    }
    /// Island of each kinematic tree, -1 outside every island (`ntree`).
    #[getter]
    fn tree_island<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        match self.islands() {
            true => arr(py, self.data.tree_island.clone()),
            false => arr(py, vec![-1; self.ntree(py)]),
        }
    }
    /// Number of dofs of each island (`nisland`).
    #[getter]
    fn island_nv<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.per_island(py, |d| &d.island_nv)
    }
    /// Start of each island in the island dof order (`nisland`).
    #[getter]
    fn island_idofadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.per_island(py, |d| &d.island_idofadr)
    }
    /// First dof of each island (`nisland`).
    #[getter]
    fn island_dofadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.per_island(py, |d| &d.island_dofadr)
    }
    /// Number of trees of each island (`nisland`).
    #[getter]
    fn island_ntree<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.per_island(py, |d| &d.island_ntree)
    }
    /// Start of each island in the island tree order (`nisland`).
    #[getter]
    fn island_itreeadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.per_island(py, |d| &d.island_itreeadr)
    }
    /// Number of constraint rows of each island (`nisland`).
    #[getter]
    fn island_nefc<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.per_island(py, |d| &d.island_nefc)
    }
    /// Start of each island in the island row order (`nisland`).
    #[getter]
    fn island_iefcadr<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.per_island(py, |d| &d.island_iefcadr)
    }
    /// Number of equality rows of each island (`nisland`).
    #[getter]
    fn island_ne<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.per_island(py, |d| &d.island_ne)
    }
    /// Number of friction-loss rows of each island (`nisland`).
    #[getter]
    fn island_nf<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.per_island(py, |d| &d.island_nf)
    }
    /// Island order of each dof (`nv`).
    #[getter]
    fn map_dof2idof<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.map(py, &self.data.map_dof2idof, self.data.qvel.len())
    }
    /// Dof of each island-order dof (`nv`).
    #[getter]
    fn map_idof2dof<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.map(py, &self.data.map_idof2dof, self.data.qvel.len())
    }
    /// Island order of each constraint row (`nefc`).
    #[getter]
    fn map_efc2iefc<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.map(py, &self.data.map_efc2iefc, self.data.nefc)
    }
    /// Row of each island-order row (`nefc`).
    #[getter]
    fn map_iefc2efc<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.map(py, &self.data.map_iefc2efc, self.data.nefc)
    }
    /// Tree of each island-order tree (`ntree`).
    #[getter]
    fn map_itree2tree<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.map(py, &self.data.map_itree2tree, self.ntree(py))
    }

    /// `qacc` in island order (`nidof`).
    #[getter]
    fn iacc<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_dofs(slf, "qacc")
    }
    /// `qacc_smooth` in island order (`nidof`).
    #[getter]
    fn iacc_smooth<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_dofs(slf, "qacc_smooth")
    }
    /// `qfrc_smooth` in island order (`nidof`).
    #[getter]
    fn ifrc_smooth<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_dofs(slf, "qfrc_smooth")
    }
    /// `qfrc_constraint` in island order (`nidof`).
    #[getter]
    fn ifrc_constraint<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_dofs(slf, "qfrc_constraint")
    }
    /// `efc_D` in island order (`nefc`).
    #[getter]
    fn iefc_D<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_rows(slf, "efc_D")
    }
    /// `efc_R` in island order (`nefc`).
    #[getter]
    fn iefc_R<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_rows(slf, "efc_R")
    }
    /// `efc_aref` in island order (`nefc`).
    #[getter]
    fn iefc_aref<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_rows(slf, "efc_aref")
    }
    /// `efc_frictionloss` in island order (`nefc`).
    #[getter]
    fn iefc_frictionloss<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_rows(slf, "efc_frictionloss")
    }
    /// `efc_id` in island order (`nefc`).
    #[getter]
    fn iefc_id<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_rows(slf, "efc_id")
    }
    /// `efc_type` in island order (`nefc`).
    #[getter]
    fn iefc_type<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_rows(slf, "efc_type")
    }
    /// `efc_force` in island order (`nefc`).
    #[getter]
    fn iefc_force<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_rows(slf, "efc_force")
    }
    /// `efc_state` in island order (`nefc`): the rows' final states, as MuJoCo's island solve
    /// writes them (measured on MuJoCo 4.0.0 over the zoo: equal under CG and Newton; MuJoCo's
    /// own `efc_state` keeps the state at `qacc_smooth` with islands on, moreau's is final).
    #[getter]
    fn iefc_state<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::island_rows(slf, "efc_state")
    }

    /// Number of awake bodies, the static ones included (none of a sleeping tree).
    #[getter]
    fn nbody_awake(&self, py: Python<'_>) -> usize {
        let (bt, _) = self.sleep_trees(py);
        bt.iter().filter(|&&t| !self.tree_sleeps(t)).count()
    }
    /// Number of awake trees.
    #[getter]
    fn ntree_awake(&self) -> usize {
        self.data.tree_asleep.iter().filter(|&&a| a < 0).count()
    }
    /// Number of awake dofs.
    #[getter]
    fn nv_awake(&self, py: Python<'_>) -> usize {
        let (_, dt) = self.sleep_trees(py);
        dt.iter().filter(|&&t| !self.tree_sleeps(t)).count()
    }
    /// Number of bodies but the world whose parent is awake (or static).
    #[getter]
    fn nparent_awake(&self, py: Python<'_>) -> usize {
        self.awake_parents(py).len()
    }
    /// Per body: -1 static (welded to the world), 1 awake, 0 asleep (`mjtSleepState`).
    #[getter]
    fn body_awake<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let (bt, _) = self.sleep_trees(py);
        let m = &self.model.bind(py).borrow().model;
        let v = (0..m.nbody)
            .map(|b| match m.body_weldid[b] == 0 {
                true => STATIC,
                false => i32::from(!self.tree_sleeps(bt[b])),
            })
            .collect();
        arr(py, v)
    }
    /// The awake (or static) bodies in order, then the identity (`nbody`).
    #[getter]
    fn body_awake_ind<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let (bt, _) = self.sleep_trees(py);
        let awake = (0..bt.len()).filter(|&b| !self.tree_sleeps(bt[b]));
        arr(py, listed_then_identity(awake, bt.len(), 0))
    }
    /// The bodies but the world whose parent is awake (or static) in order, then the rest of
    /// `1, …, nbody − 1, 0` (`nbody`).
    #[getter]
    fn parent_awake_ind<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let n = self.data.xpos.len();
        arr(py, listed_then_identity(self.awake_parents(py), n, 1))
    }
    /// The dofs of awake trees in order, then the identity (`nv`).
    #[getter]
    fn dof_awake_ind<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let (_, dt) = self.sleep_trees(py);
        let awake = (0..dt.len()).filter(|&i| !self.tree_sleeps(dt[i]));
        arr(py, listed_then_identity(awake, dt.len(), 0))
    }
    /// Per tree: 1 awake, 0 asleep.
    #[getter]
    fn tree_awake<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let v = self
            .data
            .tree_asleep
            .iter()
            .map(|&a| i32::from(a < 0))
            .collect();
        arr(py, v)
    }
    /// Per tree: negative while awake (MuJoCo's countdown: −11 after a reset, +1 per step at
    /// rest), else asleep and the next tree of its sleeping cycle (`moreau::sleep`).
    #[getter]
    fn tree_asleep<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        arr(py, self.data.tree_asleep.clone())
    }
    /// Whether the energy's potential part is up to date (`flg_energypos`).
    #[getter]
    fn flg_energypos(&self) -> bool {
        self.data.flg_energypos
    }
    /// Whether the energy's kinetic part is up to date (`flg_energyvel`).
    #[getter]
    fn flg_energyvel(&self) -> bool {
        self.data.flg_energyvel
    }
}

impl MjData {
    /// Whether tree `t` (-1: static) is asleep.
    fn tree_sleeps(&self, t: i32) -> bool {
        usize::try_from(t).is_ok_and(|t| self.data.tree_asleep.get(t).is_some_and(|&a| a >= 0))
    }

    /// The bodies but the world whose parent is awake or static, in order.
    fn awake_parents(&self, py: Python<'_>) -> Vec<usize> {
        let (bt, _) = self.sleep_trees(py);
        let m = &self.model.bind(py).borrow().model;
        (1..m.nbody)
            .filter(|&b| !self.tree_sleeps(bt[m.body_parentid[b]]))
            .collect()
    }

    /// The tree of each body and of each dof (-1: static).
    fn sleep_trees(&self, py: Python<'_>) -> (Vec<i32>, Vec<i32>) {
        let m = &self.model.bind(py).borrow().model;
        let bt = crate::fields::trees(m).0;
        let dt = m.dof_bodyid.iter().map(|&b| bt[b]).collect();
        (bt, dt)
    }

    /// Whether the last solve found islands; without (no rows, or the `island` flag disabled)
    /// MuJoCo reports every dof and tree in no island (-1) and zero maps, while moreau's
    /// fields keep what the last island discovery left.
    fn islands(&self) -> bool {
        self.data.nisland > 0
    }

    /// Number of kinematic trees (MuJoCo's `ntree`): the root dofs.
    fn ntree(&self, py: Python<'_>) -> usize {
        let m = &self.model.bind(py).borrow().model;
        m.dof_parentid.iter().filter(|p| **p < 0).count()
    }

    /// The first `nidof` entries of the dof vector `field` in island order (`map_idof2dof`), a
    /// copy; empty without islands, as MuJoCo's.
    fn island_dofs<'py>(slf: &Bound<'py, Self>, field: &str) -> PyResult<Bound<'py, PyAny>> {
        let (map, n) = {
            let d = &slf.borrow().data;
            let n = if d.nisland > 0 { d.nidof } else { 0 };
            (ints(d.map_idof2dof.iter().take(n).copied()), n)
        };
        Self::take(slf, field, map, n)
    }

    /// The constraint-row array `field` in island order (`map_iefc2efc`), a copy; in row order
    /// without islands.
    fn island_rows<'py>(slf: &Bound<'py, Self>, field: &str) -> PyResult<Bound<'py, PyAny>> {
        let (map, n) = {
            let d = &slf.borrow().data;
            let n = d.nefc;
            let map = match d.nisland > 0 {
                true => ints(d.map_iefc2efc.iter().take(n).copied()),
                false => ints(0..n),
            };
            (map, n)
        };
        Self::take(slf, field, map, n)
    }

    /// `field[map]` (NumPy's `take`: a copy with the field's dtype).
    fn take<'py>(
        slf: &Bound<'py, Self>,
        field: &str,
        map: Vec<i32>,
        n: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let idx = copy(slf.py(), map, &[n]);
        slf.getattr(field)?.call_method1("take", (idx,))
    }

    /// A map's first `n` entries, zeros without islands ([`MjData::islands`]).
    fn map<'py>(&self, py: Python<'py>, map: &[usize], n: usize) -> Bound<'py, PyAny> {
        match self.islands() {
            true => arr(py, ints(map.iter().take(n).copied())),
            false => arr(py, vec![0; n]),
        }
    }

    /// The first `nisland` entries of an island field.
    fn per_island<'py>(
        &self,
        py: Python<'py>,
        field: impl Fn(&moreau::Data) -> &Vec<usize>,
    ) -> Bound<'py, PyAny> {
        let n = self.data.nisland;
        arr(py, ints(field(&self.data).iter().take(n).copied()))
    }
}
