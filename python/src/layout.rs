//! MuJoCo's layouts of fields moreau stores otherwise: quaternions as (w, x, y, z), rotation
//! matrices row-major, the sparse inertia `M` (and the factors `qLD`, `qH`) in MuJoCo's compressed
//! rows, and the frame quaternions MuJoCo 4.0.0's `mj_kinematics` stores (`xiquat`,
//! `geom_xquat`, `site_xquat`), computed on demand.

use moreau::{Data, Model};
use nalgebra::{Matrix3, Quaternion};

/// A quaternion as MuJoCo's (w, x, y, z) numbers.
pub(crate) fn wxyz(q: &Quaternion<f64>) -> [f64; 4] {
    [q.w, q.i, q.j, q.k]
}

/// A 3×3 matrix as MuJoCo's 9 row-major numbers.
pub(crate) fn row_major(r: &Matrix3<f64>) -> [f64; 9] {
    let t = r.transpose();
    let mut out = [0.0; 9];
    out.copy_from_slice(t.as_slice());
    out
}

/// The dofs of row `i` of MuJoCo's sparse inertia `M` (`M_colind`): `i`'s ancestors from the
/// root down, then `i`; moreau's `qM` row at `dof_Madr[i]` holds the same entries from `i` up.
/// A dof of a simple body (`dof_simplenum > 0`, [`moreau::simple_body`]) has only its diagonal:
/// MuJoCo leaves out the structural zeros of its row.
pub(crate) fn m_row(m: &Model, i: usize) -> Vec<usize> {
    let mut row = vec![i];
    if moreau::simple_body(m, m.dof_bodyid[i]) {
        return row;
    }
    let mut j = m.dof_parentid[i];
    while let Ok(p) = usize::try_from(j) {
        row.push(p);
        j = m.dof_parentid[p];
    }
    row.reverse();
    row
}

/// MuJoCo's `M_rownnz`, `M_rowadr`, `M_colind`: the lower triangle of the inertia in compressed
/// rows, each row's columns ascending (API Reference "mjModel").
pub(crate) fn m_sparsity(m: &Model) -> [Vec<i32>; 3] {
    let (mut nnz, mut adr, mut col) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..m.nv {
        let row = m_row(m, i);
        adr.push(col.len() as i32);
        nnz.push(row.len() as i32);
        col.extend(row.iter().map(|&c| c as i32));
    }
    [nnz, adr, col]
}

/// A matrix in moreau's `qM` layout (`qM`, `qLD`) in MuJoCo's layout of `M` ([`m_sparsity`]):
/// each row reversed.
pub(crate) fn to_m_layout(m: &Model, tree: &[f64], out: &mut [f64]) {
    let mut k = 0;
    for i in 0..m.nv {
        let n = m_row(m, i).len();
        let a = m.dof_Madr[i];
        for (o, x) in out[k..k + n].iter_mut().zip(tree[a..a + n].iter().rev()) {
            *o = *x;
        }
        k += n;
    }
}

/// The orientations MuJoCo 4.0.0's `mj_kinematics` stores as quaternions besides `xquat`:
/// `xiquat` (body inertial frames, `xquat · body_iquat`), `geom_xquat`, `site_xquat`
/// (`xquat` of the body times the local `geom_quat` / `site_quat`), `(n, 4)` as (w, x, y, z)
/// flattened into `out`; `None` for another name. Without `out`, the length.
pub(crate) fn frame_quats(
    m: &Model,
    d: &Data,
    name: &str,
    out: Option<&mut [f64]>,
) -> Option<usize> {
    let (body, local): (&[usize], &[[f64; 4]]) = match name {
        "xiquat" => (&[], &m.body_iquat),
        "geom_xquat" => (&m.geom_bodyid, &m.geom_quat),
        "site_xquat" => (&m.site_bodyid, &m.site_quat),
        _ => return None,
    };
    if let Some(out) = out {
        for (k, q) in local.iter().enumerate() {
            let b = if body.is_empty() { k } else { body[k] };
            let x = d.xquat[b] * Quaternion::new(q[0], q[1], q[2], q[3]);
            out[4 * k..4 * k + 4].copy_from_slice(&wxyz(&x));
        }
    }
    Some(4 * local.len())
}

/// `M`, `qLD` and `qH` in MuJoCo's layout ([`to_m_layout`]) flattened into `out`, or the quaternion
/// fields of [`frame_quats`]; `None` for another name. Without `out`, the length.
pub(crate) fn model_layout(
    m: &Model,
    d: &Data,
    name: &str,
    out: Option<&mut [f64]>,
) -> Option<usize> {
    let tree = match name {
        "M" => &d.qM,
        "qLD" => &d.qLD,
        "qH" => &d.qH,
        _ => return frame_quats(m, d, name, out),
    };
    let n: usize = (0..m.nv).map(|i| m_row(m, i).len()).sum();
    if let Some(out) = out {
        to_m_layout(m, &tree[..], &mut out[..n]);
    }
    Some(n)
}
