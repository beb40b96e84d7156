//! Loading and stepping scale linearly: each dimension of a model (bodies, joints, geoms, sites,
//! actuators, tendons, sensors, include files) grows 10×, and the number of allocations made by
//! loading grows between 5× and 20× (a quadratic cost would give ~100×); stepping allocates
//! nothing. Counted on this thread by the counting allocator, not timed. Trees are wide (the
//! dof tree's depth, and with it MuJoCo's own nM, is bounded). The geoms dimension also grows
//! the collision pairs: contacts on a plane and a pile that the broad phase must prune.
//!
//! The cost of a step and of the load, in instructions, is measured by `tools/scaling/step.sh`
//! (callgrind on [`step_cost_child`], which loads and steps the same models).

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

/// The geoms and collision pairs: `n` free spheres resting on a plane a metre apart (`n`
/// sphere–plane contacts), beside a pile of `n` free spheres in a cubic lattice 0.25 apart,
/// radius 0.1, above the plane (every sphere's interval on the sweep axis overlaps those of its
/// lattice layer and the next, but their bounding spheres do not meet: the broad phase must
/// prune all of them, and the pile falls as one, so it stays so).
fn contact_model(n: usize) -> String {
    let side = (n as f64).cbrt().ceil() as usize;
    let mut world = String::from("<geom type='plane' size='0 0 1'/>");
    for i in 0..n {
        let (x, y) = ((i % 100) as f64, (i / 100) as f64);
        world.push_str(&format!(
            "<body pos='{x} {y} .0999'><freejoint/><geom size='.1'/></body>"
        ));
        let (a, b, c) = (i % side, (i / side) % side, i / (side * side));
        let (x, y, z) = (a as f64 * 0.25, b as f64 * 0.25, 5.0 + c as f64 * 0.25);
        world.push_str(&format!(
            "<body pos='{x} {y} {z}'><freejoint/><geom size='.1'/></body>"
        ));
    }
    format!("<mujoco><worldbody>{world}</worldbody></mujoco>")
}

/// The model of size `n` of `MOREAU_SCALING_MODEL` (`arms`, the default, or `contacts`).
fn model_named(name: &str, n: usize) -> (String, moreau::Vfs) {
    match name {
        "contacts" => (contact_model(n), moreau::Vfs::new()),
        _ => model(n),
    }
}

/// (allocations, bytes) of loading the model and of 10 steps after a first one, and the
/// model and data after them.
fn cost(xml: &str, vfs: &moreau::Vfs) -> ((usize, usize), usize, moreau::Model, moreau::Data<f64>) {
    let (a0, b0) = (allocations(), bytes_allocated());
    let m = moreau::load_from_str(xml, vfs).unwrap();
    let mut d = moreau::Data::<f64>::new(&m);
    let load = (allocations() - a0, bytes_allocated() - b0);
    d.ctrl.iter_mut().for_each(|c| *c = 0.1);
    moreau::step(&m, &mut d);
    let a1 = allocations();
    for _ in 0..10 {
        moreau::step(&m, &mut d);
    }
    (load, allocations() - a1, m, d)
}

/// Loading allocations grow between 5× and 20× from `n1` to `n2 = 10 n1` (bytes: below 20×),
/// and 10 steps allocate nothing at either size.
fn check_linear(what: &str, (a1, b1): (usize, usize), (a2, b2): (usize, usize), s: (usize, usize)) {
    let ra = a2 as f64 / a1 as f64;
    let rb = b2 as f64 / b1 as f64;
    eprintln!("{what}: loading allocations {a1} -> {a2} ({ra:.1}×), bytes {b1} -> {b2} ({rb:.1}×)");
    assert!(
        (5.0..20.0).contains(&ra),
        "{what}: allocations grew {ra:.1}× ({a1} -> {a2})"
    );
    // Bytes: only an upper bound. `Data::new` reserves the constraint arrays a step can create
    // up to a fixed size (`data::EFC_RESERVE_BYTES`), a floor that dominates the small model's
    // bytes (measured 63.6 MB -> 90.5 MB, 1.4×); what must not happen is superlinear growth.
    assert!(rb < 20.0, "{what}: bytes grew {rb:.1}× ({b1} -> {b2})");
    // stepping allocates nothing at either size
    assert_eq!(s, (0, 0), "{what}: allocations in 10 steps");
}

#[test]
fn loading_and_stepping_scale_linearly() {
    let (xml, vfs) = model(30);
    let (l1, s1, m1, _) = cost(&xml, &vfs);
    let (xml, vfs) = model(300);
    let (l2, s2, m2, _) = cost(&xml, &vfs);
    for (m, n) in [(m1, 30), (m2, 300)] {
        assert_eq!((m.nbody, m.njnt, m.nu, m.ntendon), (2 * n + 1, 2 * n, n, n));
    }
    check_linear("arms, n 30 -> 300", l1, l2, (s1, s2));
}

/// The geoms dimension, with collisions: 10× the spheres on the plane and in the pile give 10×
/// the contacts (one per sphere on the plane; the pile has none) and 5× to 20× the loading
/// allocations; stepping allocates nothing. The instructions of a step and of the load are
/// counted by `tools/scaling/step.sh N contacts`.
#[test]
fn geoms_and_contacts_scale_linearly() {
    let mut loads = Vec::new();
    let mut steps = Vec::new();
    for n in [30, 300] {
        let (load, s, m, d) = cost(&contact_model(n), &moreau::Vfs::new());
        assert_eq!((m.ngeom, m.nbody), (2 * n + 1, 2 * n + 1));
        assert_eq!(d.contact.len(), n, "contacts of {n} spheres on the plane");
        assert!(
            d.contact.iter().all(|c| c.geom[0] == 0),
            "a contact in the pile"
        );
        loads.push(load);
        steps.push(s);
    }
    check_linear(
        "geoms and contacts, n 30 -> 300",
        loads[0],
        loads[1],
        (steps[0], steps[1]),
    );
}

/// The child of `tools/scaling/step.sh`: with `MOREAU_SCALING_N` set, loads the model of that
/// size (`MOREAU_SCALING_MODEL`: `arms`, the default, or `contacts`) and takes `MOREAU_SCALING_STEPS` steps (default 100) for callgrind to count.
#[test]
fn step_cost_child() {
    let Ok(n) = std::env::var("MOREAU_SCALING_N") else {
        return;
    };
    let n: usize = n.parse().expect("MOREAU_SCALING_N is a number");
    let steps: usize = std::env::var("MOREAU_SCALING_STEPS")
        .map(|s| s.parse().expect("MOREAU_SCALING_STEPS is a number"))
        .unwrap_or(100);
    let name = std::env::var("MOREAU_SCALING_MODEL").unwrap_or_default();
    let (xml, vfs) = model_named(&name, n);
    let m = moreau::load_from_str(&xml, &vfs).unwrap();
    let mut d = moreau::Data::<f64>::new(&m);
    d.ctrl.iter_mut().for_each(|c| *c = 0.1);
    for _ in 0..steps {
        moreau::step(&m, &mut d);
    }
    assert!(d.qpos.iter().all(|x| x.is_finite()));
}
