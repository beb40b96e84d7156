//! Test-only helpers for the sensor and inverse-dynamics oracles: `Model` with sensor fields from
//! the JSON written by tools/reference/gen_sensor_cases.py.
#![allow(dead_code)]

use crate::common::*;
use moreau::model::{Model, ObjType, SensorType};
use serde_json::Value;

pub fn load(name: &str) -> Value {
    let path = format!("{}/tests/reference/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn sensor_type(x: i64) -> SensorType {
    use SensorType::*;
    match x {
        0 => Touch,
        1 => Accelerometer,
        2 => Velocimeter,
        3 => Gyro,
        4 => Force,
        5 => Torque,
        6 => Magnetometer,
        7 => Rangefinder,
        9 => JointPos,
        10 => JointVel,
        11 => TendonPos,
        12 => TendonVel,
        13 => ActuatorPos,
        14 => ActuatorVel,
        15 => ActuatorFrc,
        16 => JointActFrc,
        18 => BallQuat,
        19 => BallAngVel,
        20 => JointLimitPos,
        21 => JointLimitVel,
        22 => JointLimitFrc,
        23 => TendonLimitPos,
        24 => TendonLimitVel,
        25 => TendonLimitFrc,
        26 => FramePos,
        27 => FrameQuat,
        28 => FrameXAxis,
        29 => FrameYAxis,
        30 => FrameZAxis,
        31 => FrameLinVel,
        32 => FrameAngVel,
        33 => FrameLinAcc,
        34 => FrameAngAcc,
        35 => SubtreeCom,
        36 => SubtreeLinVel,
        37 => SubtreeAngMom,
        45 => Clock,
        _ => panic!("sensor type {x} not in moreau's subset"),
    }
}

fn obj_type(x: i64) -> ObjType {
    match x {
        0 => ObjType::Unknown,
        1 => ObjType::Body,
        2 => ObjType::XBody,
        3 => ObjType::Joint,
        4 => ObjType::Dof,
        5 => ObjType::Geom,
        6 => ObjType::Site,
        7 => ObjType::Camera,
        18 => ObjType::Tendon,
        19 => ObjType::Actuator,
        _ => panic!("object type {x}"),
    }
}

pub fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// `build_model` plus the sensor fields, `opt.magnetic` and `opt.integrator`.
pub fn build_sensor_model(j: &Value) -> Model {
    let mut m = build_model(j);
    m.nsensor = j["nsensor"].as_u64().unwrap() as usize;
    m.nsensordata = j["nsensordata"].as_u64().unwrap() as usize;
    m.sensor_type = ints(&j["sensor_type"])
        .into_iter()
        .map(sensor_type)
        .collect();
    m.sensor_objtype = ints(&j["sensor_objtype"])
        .into_iter()
        .map(obj_type)
        .collect();
    m.sensor_reftype = ints(&j["sensor_reftype"])
        .into_iter()
        .map(obj_type)
        .collect();
    m.sensor_objid = ints(&j["sensor_objid"]).iter().map(|&x| x as i32).collect();
    m.sensor_refid = ints(&j["sensor_refid"]).iter().map(|&x| x as i32).collect();
    m.sensor_dim = ints(&j["sensor_dim"]).iter().map(|&x| x as usize).collect();
    m.sensor_adr = ints(&j["sensor_adr"]).iter().map(|&x| x as usize).collect();
    m.sensor_cutoff = fv(&j["sensor_cutoff"]);
    m.sensor_noise = fv(&j["sensor_noise"]);
    m.sensor_name = vec![String::new(); m.nsensor];
    let mg = fv(&j["opt"]["magnetic"]);
    m.opt.magnetic = [mg[0], mg[1], mg[2]];
    m.opt.integrator = match j["opt"]["integrator"].as_i64().unwrap() {
        0 => moreau::model::Integrator::Euler,
        1 => moreau::model::Integrator::Rk4,
        2 => moreau::model::Integrator::Implicit,
        3 => moreau::model::Integrator::ImplicitFast,
        x => panic!("integrator {x}"),
    };
    m
}
