//! Test-only helpers for tests/reference/phys8_cases.json (gen_phys8_cases.py): the pipeline
//! model builder plus the fields the spatial-tendon, fluid and transmission cases use.
#![allow(dead_code)]

use super::*;
use moreau::model::{GeomType, Model};
use serde_json::Value;

pub fn load() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/phys8_cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

pub fn gtype(x: u64) -> GeomType {
    [
        GeomType::Plane,
        GeomType::Hfield,
        GeomType::Sphere,
        GeomType::Capsule,
        GeomType::Ellipsoid,
        GeomType::Cylinder,
        GeomType::Box,
        GeomType::Mesh,
        GeomType::Sdf,
    ][x as usize]
}

pub fn rows<const N: usize>(v: &Value) -> Vec<[f64; N]> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let x = fv(r);
            let mut a = [0.0; N];
            a.copy_from_slice(&x);
            a
        })
        .collect()
}

/// `common::build_model` plus the fields the spatial-tendon, fluid and transmission cases use.
pub fn build(j: &Value) -> Model {
    let mut m = build_model(j);
    m.geom_type = j["geom_type"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| gtype(x.as_u64().unwrap()))
        .collect();
    m.geom_size = rows(&j["geom_size"]);
    m.geom_fluid = rows(&j["geom_fluid"]);
    m.tendon_limited = j["tendon_limited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_bool().unwrap_or_else(|| x.as_i64().unwrap() != 0))
        .collect();
    m.tendon_range = rows(&j["tendon_range"]);
    m.jnt_range = rows(&j["jnt_range"]);
    let w = fv(&j["opt"]["wind"]);
    m.opt.wind = [w[0], w[1], w[2]];
    m
}
