//! A kinematic tree that no constraint joins to a box stack leaves the stack's trajectory
//! unchanged to the last bit, as MuJoCo 4.0.0's per-island solve does (Computation "Islands"):
//! four free boxes dropped on the floor alone, and beside a separate tree (a free swinging
//! pendulum, one with dof friction loss, one that swings onto its joint limit, one whose
//! capsule rests on the floor in its own island, a free box), under Newton and CG, both cones,
//! dense and sparse Jacobians, Euler and implicitfast, with and without the `sleep` flag.
//! Measured on the oracle with the same scenes (`tools/reference/island_independence.py`,
//! `mujoco==4.0.0`, 300 steps): the boxes' `qpos` and `qvel` are bit-identical with and without
//! each separate tree in every one of these configurations. PGS and noslip are not among them:
//! MuJoCo runs both over all islands as one problem, and there a separate tree with rows moves
//! MuJoCo's boxes (PGS by up to 2e-5 in 300 steps, noslip by 1e-14).
//!
//! Euler with dof damping solves `(M + h·diag(damping)) a = qfrc_smooth + qfrc_constraint` for
//! every dof when some dof is damped, which moves undamped trees by rounding (in MuJoCo as in
//! moreau: a damped pendulum beside the stack moves the boxes by 2e-14 from the first step).
//! Once every damped tree is asleep MuJoCo takes the explicit update `a = qacc` (measured: a
//! chaotic stack beside a sleeping damped pendulum stays bit-identical, over 300 steps, to the
//! stack alone started from the same state); moreau used to keep the implicit solve while the
//! damped tree slept, and the stack drifted by 3e-5 within 400 steps.

use moreau::{load_from_str, step, Data, Model, Vfs};

const BOXES: usize = 4;
const NQ: usize = 7 * BOXES;
const NV: usize = 6 * BOXES;

/// A stack of four tilted boxes that falls over (chaotic: rounding grows), with `tree`
/// after it in the document.
fn scene(tree: &str, option: &str, sleep: bool) -> String {
    let boxes: String = (0..BOXES)
        .map(|k| {
            let k = k as f64;
            format!(
                "<body pos=\"{} {} {}\" euler=\"{} {} {}\"><freejoint/>\
                 <geom type=\"box\" size=\".1 .1 .1\"/></body>\n",
                0.03 * k,
                0.005 * k,
                0.1 + 0.21 * k,
                3.0 * k,
                2.0 * k,
                5.0 * k
            )
        })
        .collect();
    let flag = if sleep {
        "<flag sleep=\"enable\"/>"
    } else {
        ""
    };
    format!(
        "<mujoco><option timestep=\"0.002\" {option}>{flag}</option><worldbody>\
         <geom type=\"plane\" size=\"5 5 .1\"/>\n{boxes}{tree}</worldbody></mujoco>"
    )
}

const TREES: [(&str, &str); 5] = [
    (
        "a swinging pendulum",
        "<body pos=\"2 0 1\"><joint type=\"hinge\" axis=\"0 1 0\"/>\
         <geom type=\"capsule\" fromto=\"0 0 0 .3 0 0\" size=\".03\"/></body>",
    ),
    (
        "a pendulum with friction loss",
        "<body pos=\"2 0 1\"><joint type=\"hinge\" axis=\"0 1 0\" frictionloss=\"0.01\"/>\
         <geom type=\"capsule\" fromto=\"0 0 0 .3 0 0\" size=\".03\"/></body>",
    ),
    (
        "a pendulum on its limit",
        "<body pos=\"2 0 1\"><joint type=\"hinge\" axis=\"0 1 0\" range=\"-10 60\"/>\
         <geom type=\"capsule\" fromto=\"0 0 0 .3 0 0\" size=\".03\"/></body>",
    ),
    (
        "a pendulum touching the floor",
        "<body pos=\"2 0 .32\"><joint type=\"hinge\" axis=\"0 1 0\"/>\
         <geom type=\"capsule\" fromto=\"0 0 0 0 0 -.3\" size=\".03\"/></body>",
    ),
    (
        "a free box",
        "<body pos=\"2 0 .3\"><freejoint/><geom type=\"box\" size=\".1 .1 .1\"/></body>",
    ),
];

const OPTIONS: [&str; 6] = [
    "",
    "solver=\"CG\"",
    "cone=\"elliptic\"",
    "jacobian=\"sparse\"",
    "integrator=\"implicitfast\"",
    "cone=\"elliptic\" integrator=\"implicitfast\" jacobian=\"sparse\"",
];

fn load(xml: &str) -> Model {
    load_from_str(xml, &Vfs::default()).unwrap()
}

/// The boxes' `qpos` and `qvel` (the first trees), as bits.
fn boxes(d: &Data) -> Vec<u64> {
    d.qpos[..NQ]
        .iter()
        .chain(&d.qvel[..NV])
        .map(|x| x.to_bits())
        .collect()
}

#[test]
fn a_separate_tree_leaves_the_stack_bit_identical() {
    const STEPS: usize = 150;
    for option in OPTIONS {
        for sleep in [false, true] {
            let alone = load(&scene("", option, sleep));
            let mut da = Data::new(&alone);
            let mut reference = Vec::with_capacity(STEPS);
            for _ in 0..STEPS {
                step(&alone, &mut da);
                reference.push(boxes(&da));
            }
            // the stack really moves and touches: contacts between boxes, not only the floor
            assert!(da.contact.len() > 4, "{option}: ncon {}", da.contact.len());
            for (name, tree) in TREES {
                let m = load(&scene(tree, option, sleep));
                let mut d = Data::new(&m);
                for (k, want) in reference.iter().enumerate() {
                    step(&m, &mut d);
                    assert!(
                        boxes(&d) == *want,
                        "{name}, option '{option}', sleep {sleep}: the boxes differ at step {}",
                        k + 1
                    );
                }
            }
        }
    }
}

#[test]
fn a_sleeping_damped_tree_leaves_the_euler_step_explicit() {
    let damped = "<body pos=\"2 0 1\"><joint type=\"hinge\" axis=\"0 1 0\" damping=\"3\"/>\
                  <geom type=\"capsule\" fromto=\"0 0 0 0 0 -.3\" size=\".03\"/></body>";
    for option in ["", "cone=\"elliptic\""] {
        let m = load(&scene(damped, option, true));
        let alone = load(&scene("", option, true));
        let mut d = Data::new(&m);
        // the hanging pendulum is at rest from the start and falls asleep; the stack does not
        let mut n = 0;
        while *d.tree_asleep.last().unwrap() < 0 {
            step(&m, &mut d);
            n += 1;
            assert!(n < 100, "{option}: the pendulum did not fall asleep");
        }
        assert!(d.tree_asleep[..BOXES].iter().all(|&a| a < 0));
        // the stack alone, from the same state
        let mut da = Data::new(&alone);
        da.qpos.copy_from_slice(&d.qpos[..NQ]);
        da.qvel.copy_from_slice(&d.qvel[..NV]);
        da.qacc_warmstart.copy_from_slice(&d.qacc_warmstart[..NV]);
        da.tree_asleep.copy_from_slice(&d.tree_asleep[..BOXES]);
        da.time = d.time;
        for k in 0..300 {
            step(&m, &mut d);
            step(&alone, &mut da);
            assert!(
                boxes(&d) == boxes(&da),
                "{option}: the boxes beside the sleeping damped pendulum differ at step {}",
                k + 1
            );
        }
        assert!(
            *d.tree_asleep.last().unwrap() >= 0,
            "{option}: the pendulum woke"
        );
        assert!(da.contact.len() > 4, "{option}: ncon {}", da.contact.len());
    }
}
