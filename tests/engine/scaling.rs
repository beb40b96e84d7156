//! Loading and stepping scale linearly: each dimension of a model (bodies, joints, geoms, sites,
//! actuators, tendons, sensors, include files) grows 10×, and the number of allocations made by
//! loading grows between 5× and 20× (a quadratic cost would give ~100×); stepping allocates
//! nothing. Counted on this thread by the counting allocator, not timed. Trees are wide (the
//! dof tree's depth, and with it MuJoCo's own nM, is bounded). The geoms dimension also grows
//! the collision pairs: contacts on a plane and a pile that the broad phase must prune.
//!
//! The work is asserted too, without timing: debug builds count the inner loops whose cost
//! must stay linear (`moreau::work`: entries visited by the M solves, body pairs the broad
//! phase visits, geom pair tests, narrow-phase calls, constraint rows and Jacobian entries,
//! characters the parser scans), and each count of the load and of 10 steps may grow at most
//! [`MAX_WORK_RATIO`]× for 10× the model (a quadratic cost gives ~100×, the sweep's n^(5/3)
//! ~46×). The cost in instructions is measured by `tools/scaling/step.sh` (callgrind on
//! [`step_cost_child`], which loads and steps the same models).

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

/// Most a loop count of the load or of 10 steps may grow for 10× the model (measured: 10.0×
/// for every count; a lattice's interior, where a body has more neighbours than on its faces,
/// can add some): below n log n's 16.8×, far below the sweep's n^(5/3), 46× (measured 49.4×
/// for the broad phase's body pairs without its grid), and a quadratic cost's 100×.
const MAX_WORK_RATIO: f64 = 13.0;

type Work = [u64; moreau::work::NLOOP];

/// The loop counts since `w0`.
fn work_since(w0: Work) -> Work {
    let w = moreau::work::counts();
    std::array::from_fn(|i| w[i] - w0[i])
}

/// What loading and stepping cost: (allocations, bytes) and loop counts of loading the model,
/// allocations and loop counts of 10 steps after a first one.
struct Cost {
    load: (usize, usize),
    load_work: Work,
    steps: usize,
    step_work: Work,
}

/// The [`Cost`] of the model, and the model and data after the steps.
fn cost(xml: &str, vfs: &moreau::Vfs) -> (Cost, moreau::Model, moreau::Data<f64>) {
    let (a0, b0, w0) = (allocations(), bytes_allocated(), moreau::work::counts());
    let m = moreau::load_from_str(xml, vfs).unwrap();
    let mut d = moreau::Data::<f64>::new(&m);
    let load = (allocations() - a0, bytes_allocated() - b0);
    let load_work = work_since(w0);
    d.ctrl.iter_mut().for_each(|c| *c = 0.1);
    moreau::step(&m, &mut d);
    let (a1, w1) = (allocations(), moreau::work::counts());
    for _ in 0..10 {
        moreau::step(&m, &mut d);
    }
    let c = Cost {
        load,
        load_work,
        steps: allocations() - a1,
        step_work: work_since(w1),
    };
    (c, m, d)
}

/// Every loop count grows at most [`MAX_WORK_RATIO`]× from `w1` to `w2`; in a debug build (where
/// the loops are counted) the counts named in `nonzero` are not zero at either size.
fn check_work(what: &str, w1: Work, w2: Work, nonzero: &[moreau::work::Loop]) {
    for (i, (&a, &b)) in w1.iter().zip(&w2).enumerate() {
        let r = b as f64 / a.max(1) as f64;
        eprintln!("{what}: loop {i}: {a} -> {b} ({r:.1}×)");
        assert!(
            r <= MAX_WORK_RATIO,
            "{what}: loop {i} grew {r:.1}× ({a} -> {b})"
        );
    }
    if cfg!(debug_assertions) {
        for &l in nonzero {
            assert!(
                w1[l as usize] > 0 && w2[l as usize] > 0,
                "{what}: {l:?} not counted"
            );
        }
    }
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
    // Bytes: only an upper bound. `Data::new` reserves every contact and constraint row the
    // arena holds (`data::arena::Reserve`, address space until written), which grows with the
    // default arena, not 10×; what must not happen is superlinear growth.
    assert!(rb < 20.0, "{what}: bytes grew {rb:.1}× ({b1} -> {b2})");
    // stepping allocates nothing at either size
    assert_eq!(s, (0, 0), "{what}: allocations in 10 steps");
}

#[test]
fn loading_and_stepping_scale_linearly() {
    use moreau::work::Loop;
    let (xml, vfs) = model(30);
    let (c1, m1, _) = cost(&xml, &vfs);
    let (xml, vfs) = model(300);
    let (c2, m2, _) = cost(&xml, &vfs);
    for (m, n) in [(m1, 30), (m2, 300)] {
        assert_eq!((m.nbody, m.njnt, m.nu, m.ntendon), (2 * n + 1, 2 * n, n, n));
    }
    check_linear("arms, n 30 -> 300", c1.load, c2.load, (c1.steps, c2.steps));
    let what = "arms, n 30 -> 300";
    check_work(
        &format!("{what}, load"),
        c1.load_work,
        c2.load_work,
        &[Loop::MSolve, Loop::Parse],
    );
    check_work(
        &format!("{what}, 10 steps"),
        c1.step_work,
        c2.step_work,
        &[Loop::MSolve],
    );
}

/// The geoms dimension, with collisions: 10× the spheres on the plane and in the pile give 10×
/// the contacts (one per sphere on the plane; the pile has none) and 5× to 20× the loading
/// allocations; stepping allocates nothing. The instructions of a step and of the load are
/// counted by `tools/scaling/step.sh N contacts`.
#[test]
fn geoms_and_contacts_scale_linearly() {
    use moreau::work::Loop;
    let mut costs = Vec::new();
    // (2n + 1 bodies: more than the broad phase's grid needs, `MIN_BODIES`, at both sizes)
    for n in [40, 400] {
        let (c, m, d) = cost(&contact_model(n), &moreau::Vfs::new());
        assert_eq!((m.ngeom, m.nbody), (2 * n + 1, 2 * n + 1));
        assert_eq!(d.contact.len(), n, "contacts of {n} spheres on the plane");
        assert!(
            d.contact.iter().all(|c| c.geom[0] == 0),
            "a contact in the pile"
        );
        costs.push(c);
    }
    let what = "geoms and contacts, n 40 -> 400";
    let (c1, c2) = (&costs[0], &costs[1]);
    check_linear(what, c1.load, c2.load, (c1.steps, c2.steps));
    check_work(
        &format!("{what}, load"),
        c1.load_work,
        c2.load_work,
        &[Loop::MSolve, Loop::Parse],
    );
    let counted = [
        Loop::MSolve,
        Loop::BroadPairs,
        Loop::GeomTests,
        Loop::Narrow,
        Loop::Rows,
    ];
    check_work(
        &format!("{what}, 10 steps"),
        c1.step_work,
        c2.step_work,
        &counted,
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
