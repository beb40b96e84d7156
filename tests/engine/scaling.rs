//! Loading and stepping scale linearly: each dimension of a model (bodies, joints, geoms, sites,
//! actuators, tendons, sensors, include files) grows 10×, and the number of allocations made by
//! loading grows between 5× and 20× (a quadratic cost would give ~100×); stepping allocates
//! nothing. Counted on this thread by the counting allocator, not timed. Trees are wide (the
//! dof tree's depth, and with it MuJoCo's own nM, is bounded).
//!
//! The cost of a step, in instructions, is measured by `tools/scaling/step.sh` (callgrind on
//! [`step_cost_child`], which steps the same models).

use crate::alloc_counter;
use alloc_counter::{allocations, bytes_allocated};

/// `n` free-floating arms (a body with a hinge, a child with a slide), each with a geom and a
/// site, an actuator, a tendon and a sensor, every arm in its own include file.
fn model(n: usize) -> (String, moreau::Vfs) {
    let mut vfs = moreau::Vfs::new();
    let mut world = String::new();
    let mut act = String::new();
    let mut ten = String::new();
    let mut sen = String::new();
    for i in 0..n {
        let x = (i % 100) as f64;
        let y = (i / 100) as f64;
        vfs.add(
            format!("arm{i}.xml"),
            format!(
                "<mujoco><body name='b{i}' pos='{x} {y} 1'><joint name='h{i}' axis='0 1 0'/>\
                 <geom size='.1' contype='0' conaffinity='0'/><site name='s{i}'/>\
                 <body name='c{i}' pos='0 0 -.3'><joint name='l{i}' type='slide'/>\
                 <geom size='.05' contype='0' conaffinity='0'/></body></body></mujoco>"
            ),
        );
        world.push_str(&format!("<include file='arm{i}.xml'/>"));
        act.push_str(&format!("<motor joint='h{i}'/>"));
        ten.push_str(&format!(
            "<fixed name='t{i}'><joint joint='h{i}' coef='1'/><joint joint='l{i}' coef='.5'/></fixed>"
        ));
        sen.push_str(&format!(
            "<jointpos joint='l{i}'/><tendonpos tendon='t{i}'/>"
        ));
    }
    let xml = format!(
        "<mujoco><option jacobian='sparse'/><worldbody>{world}</worldbody><actuator>{act}</actuator>\
         <tendon>{ten}</tendon><sensor>{sen}</sensor></mujoco>"
    );
    (xml, vfs)
}

/// (allocations, bytes) of loading the model of size `n` and of 10 steps.
fn cost(n: usize) -> ((usize, usize), usize) {
    let (xml, vfs) = model(n);
    let (a0, b0) = (allocations(), bytes_allocated());
    let m = moreau::load_from_str(&xml, &vfs).unwrap();
    let mut d = moreau::Data::<f64>::new(&m);
    let load = (allocations() - a0, bytes_allocated() - b0);
    assert_eq!((m.nbody, m.njnt, m.nu, m.ntendon), (2 * n + 1, 2 * n, n, n));
    d.ctrl.iter_mut().for_each(|c| *c = 0.1);
    moreau::step(&m, &mut d);
    let a1 = allocations();
    for _ in 0..10 {
        moreau::step(&m, &mut d);
    }
    (load, allocations() - a1)
}

#[test]
fn loading_and_stepping_scale_linearly() {
    let ((a1, b1), s1) = cost(30);
    let ((a2, b2), s2) = cost(300);
    let ra = a2 as f64 / a1 as f64;
    let rb = b2 as f64 / b1 as f64;
    eprintln!(
        "loading, n 30 -> 300: allocations {a1} -> {a2} ({ra:.1}×), bytes {b1} -> {b2} ({rb:.1}×)"
    );
    assert!(
        (5.0..20.0).contains(&ra),
        "allocations grew {ra:.1}× ({a1} -> {a2})"
    );
    // Bytes: only an upper bound. `Data::new` reserves the constraint arrays a step can create
    // up to a fixed size (`data::EFC_RESERVE_BYTES`), a floor that dominates the small model's
    // bytes (measured 63.6 MB -> 90.5 MB, 1.4×); what must not happen is superlinear growth.
    assert!(rb < 20.0, "bytes grew {rb:.1}× ({b1} -> {b2})");
    // stepping allocates nothing at either size
    assert_eq!((s1, s2), (0, 0), "allocations in 10 steps");
}

/// The child of `tools/scaling/step.sh`: with `MOREAU_SCALING_N` set, loads the model of that
/// size and takes `MOREAU_SCALING_STEPS` steps (default 100) for callgrind to count.
#[test]
fn step_cost_child() {
    let Ok(n) = std::env::var("MOREAU_SCALING_N") else {
        return;
    };
    let n: usize = n.parse().expect("MOREAU_SCALING_N is a number");
    let steps: usize = std::env::var("MOREAU_SCALING_STEPS")
        .map(|s| s.parse().expect("MOREAU_SCALING_STEPS is a number"))
        .unwrap_or(100);
    let (xml, vfs) = model(n);
    let m = moreau::load_from_str(&xml, &vfs).unwrap();
    let mut d = moreau::Data::<f64>::new(&m);
    d.ctrl.iter_mut().for_each(|c| *c = 0.1);
    for _ in 0..steps {
        moreau::step(&m, &mut d);
    }
    assert!(d.qpos.iter().all(|x| x.is_finite()));
}
