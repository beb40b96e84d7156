//! Constraint islands (MuJoCo 4.0.0's `mj_island`; on by default, disable bit `island`).
//!
//! Vertices are the kinematic trees (a tree = the dofs below one dof-less ancestor chain,
//! numbered in dof order); each constraint joins the trees it touches. Contacts use their geoms'
//! body trees, connect/weld their two bodies' trees, every other row the trees of the nonzero
//! columns of its Jacobian row. Static (tree -1) sides count as self-edges. Islands are the
//! connected components of trees that have at least one edge, numbered in the order of their
//! smallest tree; dofs and rows keep their relative order inside an island (`map_idof2dof`,
//! `map_iefc2efc`). Dofs in no island come last in `map_idof2dof` and get `qacc_smooth`.
//! Allocation-free after the first call at a given problem size.

use crate::data::scratch::IslandScratch;
use crate::data::Data;
use crate::math::Scalar;
use crate::model::{disable, EqType, Model, ObjType};

impl IslandScratch {
    fn find(&mut self, mut t: usize) -> usize {
        while self.parent[t] != t {
            self.parent[t] = self.parent[self.parent[t]];
            t = self.parent[t];
        }
        t
    }

    /// Adds the edge (a, b); -1 on one side is a self-edge of the other.
    fn edge(&mut self, a: i32, b: i32) {
        let (a, b) = match (usize::try_from(a), usize::try_from(b)) {
            (Ok(a), Ok(b)) => (a, b),
            (Ok(a), Err(_)) => (a, a),
            (Err(_), Ok(b)) => (b, b),
            _ => return,
        };
        self.has_edge[a] = true;
        self.has_edge[b] = true;
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb)] = ra.min(rb);
        }
    }
}

/// The two trees MuJoCo reads off a contact or connect/weld row without scanning the Jacobian.
fn special_trees<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    s: &IslandScratch,
    i: usize,
) -> Option<[i32; 2]> {
    use crate::data::ConstraintType as C;
    let id = d.efc_id[i];
    match d.efc_type[i] {
        C::ContactFrictionless | C::ContactPyramidal | C::ContactElliptic => {
            let g = d.contact.get(id)?.geom;
            let tree =
                |g: usize| -> Option<i32> { s.body_treeid.get(*m.geom_bodyid.get(g)?).copied() };
            Some([tree(g[0])?, tree(g[1])?])
        }
        C::Equality if matches!(m.eq_type[id], EqType::Connect | EqType::Weld) => {
            let body = |o: i32| -> Option<usize> {
                let o = usize::try_from(o).ok()?;
                Some(if m.eq_objtype[id] == ObjType::Site {
                    *m.site_bodyid.get(o)?
                } else {
                    o
                })
            };
            Some([
                *s.body_treeid.get(body(m.eq_obj1id[id])?)?,
                *s.body_treeid.get(body(m.eq_obj2id[id])?)?,
            ])
        }
        _ => None,
    }
}

/// Island discovery (`mj_island`): fills `nisland`, `nidof`, `tree_island`, `island_ntree`,
/// `island_itreeadr`, `map_itree2tree`, `dof_island`, `island_nv`, `island_idofadr`,
/// `island_dofadr`, `map_dof2idof`, `map_idof2dof`, `efc_island`, `island_nefc`,
/// `island_iefcadr`, `island_ne`, `island_nf`, `map_efc2iefc`, `map_iefc2efc`. With the
/// `island` flag disabled or no rows: `nisland = nidof = 0`. A row that touches no tree (an
/// all-zero Jacobian row MuJoCo reports as an error) also gives `nisland = 0`, i.e. the
/// single global solve.
pub fn island<T: Scalar>(m: &Model, d: &mut Data<T>) {
    d.nisland = 0;
    d.nidof = 0;
    let nefc = d.nefc;
    if m.opt.disabled(disable::ISLAND) || nefc == 0 {
        d.island_scratch.done = None;
        return;
    }
    let mut s = std::mem::take(&mut d.island_scratch);
    let ntree = s.ntree;
    let nv = m.nv;
    for t in 0..ntree {
        s.parent[t] = t;
        s.has_edge[t] = false;
    }
    s.efc_tree.resize(nefc, 0);
    let mut ok = true;
    let mut i = 0;
    while i < nefc {
        // rows of the same constraint share its trees
        if i > 0 && d.efc_type[i] == d.efc_type[i - 1] && d.efc_id[i] == d.efc_id[i - 1] {
            s.efc_tree[i] = s.efc_tree[i - 1];
            i += 1;
            continue;
        }
        let mut first: i32 = -1;
        if let Some([a, b]) = special_trees(m, d, &s, i) {
            s.edge(a, b);
            first = if a >= 0 { a } else { b };
        } else if let Some(cols) = d.efc_J_row(i, nv).cols {
            // sparse row: the same scan over its pattern
            let vals = d.efc_J_row(i, nv).vals;
            let mut prev: i32 = -1;
            let mut next = 0;
            for (&j, &v) in cols.iter().zip(vals) {
                if j < next || v == T::zero() {
                    continue;
                }
                let t = s.dof_treeid[j];
                if first < 0 {
                    first = t as i32;
                    s.edge(first, first);
                } else {
                    s.edge(prev, t as i32);
                }
                prev = t as i32;
                next = s.tree_dofadr[t] + s.tree_dofnum[t];
            }
        } else {
            let row = &d.efc_J[i * nv..(i + 1) * nv];
            let mut prev: i32 = -1;
            let mut j = 0;
            while j < nv {
                if row[j] != T::zero() {
                    let t = s.dof_treeid[j];
                    if first < 0 {
                        first = t as i32;
                        s.edge(first, first);
                    } else {
                        s.edge(prev, t as i32);
                    }
                    prev = t as i32;
                    j = s.tree_dofadr[t] + s.tree_dofnum[t];
                } else {
                    j += 1;
                }
            }
        }
        if first < 0 {
            ok = false;
            break;
        }
        s.efc_tree[i] = first as usize;
        i += 1;
    }
    if !ok {
        s.done = None;
        d.island_scratch = s;
        return;
    }

    // everything below depends only on the rows' trees and kinds and on the trees' roots: when
    // these equal the last call's, so do its results, still in `d` (only this function writes
    // them; `nisland` and `nidof` are also cleared without rows, so they are restored)
    let same = s.done.is_some() && s.key.len() == nefc + ntree && {
        let mut eq = true;
        for r in 0..nefc {
            eq &= s.key[r] == (s.efc_tree[r], row_kind(d.efc_type[r]));
        }
        for t in 0..ntree {
            let root = if s.has_edge[t] { s.find(t) } else { usize::MAX };
            eq &= s.key[nefc + t].0 == root;
        }
        eq
    };
    if same {
        if let Some((nisland, nidof)) = s.done {
            d.nisland = nisland;
            d.nidof = nidof;
        }
        d.island_scratch = s;
        return;
    }
    s.key.clear();
    for r in 0..nefc {
        s.key.push((s.efc_tree[r], row_kind(d.efc_type[r])));
    }
    for t in 0..ntree {
        let root = if s.has_edge[t] { s.find(t) } else { usize::MAX };
        s.key.push((root, 0));
    }

    // islands numbered by their smallest tree (flood fill in tree order)
    let mut nisland = 0;
    d.tree_island.resize(ntree, -1);
    for t in 0..ntree {
        d.tree_island[t] = -1;
    }
    for t in 0..ntree {
        if !s.has_edge[t] {
            continue;
        }
        let r = s.find(t);
        if r == t {
            d.tree_island[t] = nisland as i32;
            nisland += 1;
        } else {
            d.tree_island[t] = d.tree_island[r];
        }
    }
    d.nisland = nisland;
    for v in [
        &mut d.island_ntree,
        &mut d.island_itreeadr,
        &mut d.island_nv,
        &mut d.island_idofadr,
        &mut d.island_dofadr,
        &mut d.island_nefc,
        &mut d.island_iefcadr,
        &mut d.island_ne,
        &mut d.island_nf,
    ] {
        v.clear();
        v.resize(nisland, 0);
    }

    // trees
    for t in 0..ntree {
        if let Ok(k) = usize::try_from(d.tree_island[t]) {
            d.island_ntree[k] += 1;
        }
    }
    cumsum(&d.island_ntree, &mut d.island_itreeadr);
    d.map_itree2tree.resize(ntree, 0);
    let ntree_in: usize = d.island_ntree.iter().sum();
    s.count.clear();
    s.count.resize(nisland + 1, 0);
    for t in 0..ntree {
        let pos = match usize::try_from(d.tree_island[t]) {
            Ok(k) => d.island_itreeadr[k] + s.count[k],
            Err(_) => ntree_in + s.count[nisland],
        };
        let k = usize::try_from(d.tree_island[t]).unwrap_or(nisland);
        s.count[k] += 1;
        d.map_itree2tree[pos] = t;
    }

    // dofs
    d.dof_island.resize(nv, -1);
    for j in 0..nv {
        let k = d.tree_island[s.dof_treeid[j]];
        d.dof_island[j] = k;
        if let Ok(k) = usize::try_from(k) {
            d.island_nv[k] += 1;
        }
    }
    cumsum(&d.island_nv, &mut d.island_idofadr);
    let nidof: usize = d.island_nv.iter().sum();
    d.nidof = nidof;
    d.map_dof2idof.resize(nv, 0);
    d.map_idof2dof.resize(nv, 0);
    s.count.clear();
    s.count.resize(nisland + 1, 0);
    for j in 0..nv {
        let (k, base) = match usize::try_from(d.dof_island[j]) {
            Ok(k) => (k, d.island_idofadr[k]),
            Err(_) => (nisland, nidof),
        };
        let idof = base + s.count[k];
        s.count[k] += 1;
        d.map_dof2idof[j] = idof;
        d.map_idof2dof[idof] = j;
    }
    for k in 0..nisland {
        d.island_dofadr[k] = d.map_idof2dof[d.island_idofadr[k]];
    }

    // rows
    use crate::data::ConstraintType as C;
    d.efc_island.resize(nefc, 0);
    for i in 0..nefc {
        let k = d.tree_island[s.efc_tree[i]] as usize;
        d.efc_island[i] = k as i32;
        d.island_nefc[k] += 1;
        match d.efc_type[i] {
            C::Equality => d.island_ne[k] += 1,
            C::FrictionDof | C::FrictionTendon => d.island_nf[k] += 1,
            _ => {}
        }
    }
    cumsum(&d.island_nefc, &mut d.island_iefcadr);
    d.map_efc2iefc.resize(nefc, 0);
    d.map_iefc2efc.resize(nefc, 0);
    s.count.clear();
    s.count.resize(nisland + 1, 0);
    for i in 0..nefc {
        let k = d.efc_island[i] as usize;
        let ic = d.island_iefcadr[k] + s.count[k];
        s.count[k] += 1;
        d.map_efc2iefc[i] = ic;
        d.map_iefc2efc[ic] = i;
    }
    s.done = Some((nisland, nidof));
    d.island_scratch = s;
}

/// What [`island`] reads of a row's type: equality (0), friction loss (1), other (2).
fn row_kind(t: crate::data::ConstraintType) -> u8 {
    use crate::data::ConstraintType as C;
    match t {
        C::Equality => 0,
        C::FrictionDof | C::FrictionTendon => 1,
        _ => 2,
    }
}

fn cumsum(n: &[usize], adr: &mut [usize]) {
    let mut a = 0;
    for (x, y) in n.iter().zip(adr.iter_mut()) {
        *y = a;
        a += x;
    }
}
