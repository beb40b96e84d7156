//! Collision scenes of `tools/reference/gen_collision_cases.py` and `gen_multiccd_cases.py`:
//! a `Model` built by hand from the recorded fields (no MJCF), and per-pose geom/body poses.

use moreau::model::{GeomType, Hfield, Mesh, Model};
use moreau::Data;
use nalgebra::{Matrix3, Vector3};
use serde_json::Value;

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}
pub fn vf(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(f).collect()
}
pub fn vi(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as i64)
        .collect()
}
pub fn arr<const N: usize>(v: &Value) -> Vec<[f64; N]> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let r = vf(r);
            let mut a = [0.0; N];
            a.copy_from_slice(&r[..N]);
            a
        })
        .collect()
}
pub fn a<const N: usize>(v: &Value) -> [f64; N] {
    let r = vf(v);
    let mut a = [0.0; N];
    a.copy_from_slice(&r[..N]);
    a
}

pub fn geom_type(t: i64) -> GeomType {
    use GeomType::*;
    [
        Plane, Hfield, Sphere, Capsule, Ellipsoid, Cylinder, Box, Mesh, Sdf,
    ][t as usize]
}

pub fn build_model(j: &Value) -> Model {
    let mut m = Model {
        ngeom: j["ngeom"].as_u64().unwrap() as usize,
        nbody: j["nbody"].as_u64().unwrap() as usize,
        npair: j["npair"].as_u64().unwrap() as usize,
        nexclude: j["nexclude"].as_u64().unwrap() as usize,
        nmesh: j["nmesh"].as_u64().unwrap() as usize,
        nhfield: j["nhfield"].as_u64().unwrap() as usize,
        ..Default::default()
    };
    m.geom_type = vi(&j["geom_type"]).into_iter().map(geom_type).collect();
    m.geom_contype = vi(&j["geom_contype"]).iter().map(|&x| x as u32).collect();
    m.geom_conaffinity = vi(&j["geom_conaffinity"])
        .iter()
        .map(|&x| x as u32)
        .collect();
    m.geom_condim = vi(&j["geom_condim"]).iter().map(|&x| x as usize).collect();
    m.geom_bodyid = vi(&j["geom_bodyid"]).iter().map(|&x| x as usize).collect();
    m.geom_dataid = vi(&j["geom_dataid"]).iter().map(|&x| x as i32).collect();
    m.geom_priority = vi(&j["geom_priority"]).iter().map(|&x| x as i32).collect();
    m.geom_solmix = vf(&j["geom_solmix"]);
    m.geom_solref = arr::<2>(&j["geom_solref"]);
    m.geom_solimp = arr::<5>(&j["geom_solimp"]);
    m.geom_size = arr::<3>(&j["geom_size"]);
    m.geom_rbound = vf(&j["geom_rbound"]);
    m.geom_aabb = arr::<6>(&j["geom_aabb"]);
    m.geom_friction = arr::<3>(&j["geom_friction"]);
    m.geom_margin = vf(&j["geom_margin"]);
    m.geom_gap = vf(&j["geom_gap"]);
    m.body_parentid = vi(&j["body_parentid"])
        .iter()
        .map(|&x| x as usize)
        .collect();
    m.body_rootid = vi(&j["body_rootid"]).iter().map(|&x| x as usize).collect();
    m.body_weldid = vi(&j["body_weldid"]).iter().map(|&x| x as usize).collect();
    m.body_mocapid = vec![-1; m.nbody];
    m.pair_dim = vi(&j["pair_dim"]).iter().map(|&x| x as usize).collect();
    m.pair_geom1 = vi(&j["pair_geom1"]).iter().map(|&x| x as usize).collect();
    m.pair_geom2 = vi(&j["pair_geom2"]).iter().map(|&x| x as usize).collect();
    m.pair_solref = arr::<2>(&j["pair_solref"]);
    m.pair_solreffriction = arr::<2>(&j["pair_solreffriction"]);
    m.pair_solimp = arr::<5>(&j["pair_solimp"]);
    m.pair_margin = vf(&j["pair_margin"]);
    m.pair_gap = vf(&j["pair_gap"]);
    m.pair_friction = arr::<5>(&j["pair_friction"]);
    m.exclude_signature = vi(&j["exclude_signature"])
        .iter()
        .map(|&x| x as u32)
        .collect();
    let verts = arr::<3>(&j["mesh_vert"]);
    let faces = arr::<3>(&j["mesh_face"]);
    let (va, vn) = (vi(&j["mesh_vertadr"]), vi(&j["mesh_vertnum"]));
    let (fa, fnum) = (vi(&j["mesh_faceadr"]), vi(&j["mesh_facenum"]));
    for k in 0..m.nmesh {
        let (v0, v1) = (va[k] as usize, (va[k] + vn[k]) as usize);
        let (f0, f1) = (fa[k] as usize, (fa[k] + fnum[k]) as usize);
        let mut mesh = Mesh {
            vert: verts[v0..v1].to_vec(),
            face: faces[f0..f1]
                .iter()
                .map(|t| [t[0] as usize, t[1] as usize, t[2] as usize])
                .collect(),
            ..Default::default()
        };
        mesh.build_polygons();
        m.mesh.push(mesh);
    }
    let hsize = arr::<4>(&j["hfield_size"]);
    let (hr, hc, ha) = (
        vi(&j["hfield_nrow"]),
        vi(&j["hfield_ncol"]),
        vi(&j["hfield_adr"]),
    );
    let hdata = vf(&j["hfield_data"]);
    for k in 0..m.nhfield {
        let n = (hr[k] * hc[k]) as usize;
        m.hfield.push(Hfield {
            size: hsize[k],
            nrow: hr[k] as usize,
            ncol: hc[k] as usize,
            data: hdata[ha[k] as usize..ha[k] as usize + n].to_vec(),
            ..Default::default()
        });
    }
    let o = &j["opt"];
    m.opt.disableflags = o["disableflags"].as_u64().unwrap() as u32;
    m.opt.enableflags = o["enableflags"].as_u64().unwrap() as u32;
    m.opt.o_margin = f(&o["o_margin"]);
    m.opt.o_solref = a::<2>(&o["o_solref"]);
    m.opt.o_solimp = a::<5>(&o["o_solimp"]);
    m.opt.o_friction = a::<5>(&o["o_friction"]);
    m.opt.ccd_tolerance = f(&o["ccd_tolerance"]);
    m.opt.ccd_iterations = o["ccd_iterations"].as_u64().unwrap() as usize;
    m.opt.impratio = f(&o["impratio"]);
    m
}

pub fn mat(v: &Value) -> Matrix3<f64> {
    Matrix3::from_row_slice(&vf(v))
}
pub fn vec3(v: &Value) -> Vector3<f64> {
    Vector3::from_row_slice(&vf(v))
}

/// Replaces the hull polygons built by `Mesh::build_polygons` with MuJoCo's (`mesh_polyvert`,
/// `mesh_polynormal`, `mesh_polymap`), which list each polygon from a different starting corner.
pub fn mujoco_polygons(m: &mut Model, j: &Value) {
    let (pn, pa) = (vi(&j["mesh_polynum"]), vi(&j["mesh_polyadr"]));
    let (pv, pva, pvn) = (
        vi(&j["mesh_polyvert"]),
        vi(&j["mesh_polyvertadr"]),
        vi(&j["mesh_polyvertnum"]),
    );
    let nrm = arr::<3>(&j["mesh_polynormal"]);
    let (pm, pma, pmn) = (
        vi(&j["mesh_polymap"]),
        vi(&j["mesh_polymapadr"]),
        vi(&j["mesh_polymapnum"]),
    );
    let va = vi(&j["mesh_vertadr"]);
    for (k, mesh) in m.mesh.iter_mut().enumerate() {
        let p0 = pa[k] as usize;
        let np = pn[k] as usize;
        mesh.polyvert = (p0..p0 + np)
            .map(|p| {
                let a = pva[p] as usize;
                pv[a..a + pvn[p] as usize]
                    .iter()
                    .map(|&x| x as usize)
                    .collect()
            })
            .collect();
        mesh.polynormal = nrm[p0..p0 + np].to_vec();
        let v0 = va[k] as usize;
        mesh.polymap = (0..mesh.vert.len())
            .map(|v| {
                let a = pma[v0 + v] as usize;
                pm[a..a + pmn[v0 + v] as usize]
                    .iter()
                    .map(|&x| x as usize)
                    .collect()
            })
            .collect();
    }
}

/// Sets the recorded geom and body poses of one pose record.
pub fn set_pose(d: &mut Data<f64>, p: &Value) {
    for (g, v) in p["geom_xpos"].as_array().unwrap().iter().enumerate() {
        d.geom_xpos[g] = vec3(v);
    }
    for (g, v) in p["geom_xmat"].as_array().unwrap().iter().enumerate() {
        d.geom_xmat[g] = mat(v);
    }
    for (b, v) in p["xpos"].as_array().unwrap().iter().enumerate() {
        d.xpos[b] = vec3(v);
    }
    for (b, v) in p["xmat"].as_array().unwrap().iter().enumerate() {
        d.xmat[b] = mat(v);
    }
}
