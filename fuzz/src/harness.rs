//! The body of the `mjcf` fuzz target, shared (by `#[path]`) with the corpus replay test
//! `derivatives/tests/derivatives/fuzz_corpus.rs`, which runs the very same code without libFuzzer.
//!
//! Input format: an MJCF document, optionally followed by files for the virtual file system,
//! each introduced by a line `@@file NAME` (includes, meshes, height fields).

use moreau::data::{WarningStat, NWARNING};
use moreau::{Data, Model, Vfs};
use moreau_derivatives::fd::FdWorkspace;
use moreau_derivatives::{transition, TransitionOptions};

/// The marker line that starts a VFS file in an input.
pub const FILE_MARKER: &str = "\n@@file ";

/// Splits an input into the main document and its VFS files (file contents are raw bytes:
/// binary meshes survive).
pub fn split(data: &[u8]) -> (String, Vfs) {
    let marker = FILE_MARKER.as_bytes();
    let mut cuts = Vec::new();
    let mut i = 0;
    while i + marker.len() <= data.len() {
        if &data[i..i + marker.len()] == marker {
            cuts.push(i);
            i += marker.len();
        } else {
            i += 1;
        }
    }
    let main_end = cuts.first().copied().unwrap_or(data.len());
    let main = String::from_utf8_lossy(&data[..main_end]).into_owned();
    let mut vfs = Vfs::new();
    for (k, &c) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).copied().unwrap_or(data.len());
        let part = &data[c + marker.len()..end];
        let nl = part.iter().position(|&b| b == b'\n').unwrap_or(part.len());
        let name = String::from_utf8_lossy(&part[..nl]).trim().to_string();
        let body = part.get(nl + 1..).unwrap_or(&[]);
        vfs.add(name, body.to_vec());
    }
    (main, vfs)
}

/// Models above these sizes are only loaded (and stepped once): each execution stays short.
fn small(m: &Model) -> bool {
    m.nv <= 48 && m.nbody <= 128 && m.ngeom <= 128 && m.nu <= 32 && m.ntendon <= 32 && m.neq <= 64
}

/// Most geom pairs whose bounding spheres overlap at the initial state (the broad phase's
/// candidates, so the narrow-phase calls of a step) for which the input is stepped at all; above
/// it the model is only loaded and its kinematics computed. Seven free bodies at one point with
/// 1,025 convex geoms give 450,000 such pairs: MuJoCo 4.0.0 stops that step with a fatal
/// "mj_stackAlloc: out of memory" at its default arena and needs 3.2 s of CPU for it with a
/// 1 GB arena (`tools/fuzz/mujoco_work.py`), which is more than a fuzz execution may take
/// (fuzz/README.md, "Budget").
pub const PAIR_BUDGET: usize = 20_000;

/// The geom pairs on different bodies that contype/conaffinity let collide and whose bounding
/// spheres (plus margins) overlap at `d`'s kinematics, a plane with anything; counting stops
/// past `limit`.
pub fn near_pairs(m: &Model, d: &Data<f64>, limit: usize) -> usize {
    let mut n = 0;
    for g1 in 0..m.ngeom {
        for g2 in g1 + 1..m.ngeom {
            if m.geom_bodyid[g1] == m.geom_bodyid[g2]
                || (m.geom_contype[g1] & m.geom_conaffinity[g2]) == 0
                    && (m.geom_contype[g2] & m.geom_conaffinity[g1]) == 0
            {
                continue;
            }
            let reach =
                m.geom_rbound[g1] + m.geom_rbound[g2] + m.geom_margin[g1] + m.geom_margin[g2];
            let plane = m.geom_rbound[g1] <= 0.0 || m.geom_rbound[g2] <= 0.0;
            // a non-finite distance or reach counts as near: the step must then check it
            let far = (d.geom_xpos[g1] - d.geom_xpos[g2]).norm() > reach;
            if plane || !far {
                n += 1;
                if n > limit {
                    return n;
                }
            }
        }
    }
    n
}

/// The Jacobian stages (about `2 nv + nu` steps each, with the solver's iterations) run only
/// below this many constraint rows: a thousand mutated equality constraints on a 16-dof model
/// otherwise cost seconds per input under coverage instrumentation (two thirds of it in the
/// comparison tracing of the solver's line search). The contacts are bounded the same way: a
/// pile whose rows overflow the arena has `nefc` 0 but still pays its narrow phase every step
/// (`regressions/convex-pile-concentric.xml`: 6,926 contacts, 19 s of CPU through the Jacobians).
const JACOBIAN_MAX_NEFC: usize = 256;

/// Panics if a result is NaN while nothing reported it: neither the call (`what`) nor, for a
/// step, the next step's checks. MuJoCo's own `mj_step` can leave a NaN state without a warning
/// (an RK4 stage or the integration itself diverges after `mj_checkAcc`); its next step's
/// `mj_checkPos` / `mj_checkVel` report it and reset.
fn silent_nan(m: &Model, d: &Data<f64>, what: &str) {
    let warned = |d: &Data<f64>| d.warning.iter().any(|w| w.number > 0);
    if warned(d) {
        return;
    }
    for (name, v) in [
        ("qpos", &d.qpos),
        ("qvel", &d.qvel),
        ("qacc", &d.qacc),
        ("act", &d.act),
        ("qfrc_actuator", &d.qfrc_actuator),
        ("qfrc_passive", &d.qfrc_passive),
        ("qfrc_constraint", &d.qfrc_constraint),
        ("sensordata", &d.sensordata),
    ] {
        if let Some(i) = v.iter().position(|x| x.is_nan()) {
            if what == "step" {
                let mut next = d.clone();
                moreau::step(m, &mut next);
                if warned(&next) {
                    return;
                }
            }
            panic!("silent NaN: {name}[{i}] after {what} without a warning");
        }
    }
}

fn clear(d: &mut Data<f64>) {
    d.warning = [WarningStat::default(); NWARNING];
}

/// Load, compile, step, forward, inverse and FD Jacobians of one input.
pub fn run(data: &[u8]) {
    run_staged(data, &mut |_| {});
}

/// [`run`], calling `stage` with each stage's name as it ends ("load", "step", "forward",
/// "inverse", "transition FD", "inverse FD", "transition analytic"; a stage that does not run
/// is not named): the fuzz target's `MOREAU_FUZZ_STAGES=1` prints their CPU times.
pub fn run_staged(data: &[u8], stage: &mut dyn FnMut(&'static str)) {
    let (main, vfs) = split(data);
    let loaded = moreau::load_from_str(&main, &vfs);
    stage("load");
    let Ok(m) = loaded else {
        return;
    };
    if moreau::pipeline::forward_unsupported(&m).is_some() {
        return;
    }
    let mut d = Data::<f64>::new(&m);
    moreau::pipeline::kinematics(&m, &mut d);
    if near_pairs(&m, &d, PAIR_BUDGET) > PAIR_BUDGET {
        return;
    }
    let steps = if small(&m) { 5 } else { 1 };
    for k in 0..steps {
        for (i, c) in d.ctrl.iter_mut().enumerate() {
            *c = ((k * 7 + i * 3) % 11) as f64 * 0.2 - 1.0;
        }
        clear(&mut d);
        moreau::step(&m, &mut d);
        silent_nan(&m, &d, "step");
    }
    stage("step");
    if d.stack_overflow.is_some() {
        // MuJoCo's fatal stack overflow: its call raises, nothing after it runs
        return;
    }
    if !small(&m) || d.nefc > JACOBIAN_MAX_NEFC || d.contact.len() > JACOBIAN_MAX_NEFC {
        return;
    }
    clear(&mut d);
    moreau::pipeline::check_pos(&m, &mut d);
    moreau::pipeline::check_vel(&m, &mut d);
    moreau::forward(&m, &mut d);
    moreau::pipeline::check_acc(&m, &mut d);
    silent_nan(&m, &d, "forward");
    stage("forward");
    let inverse_ok = moreau::pipeline::inverse_unsupported(&m).is_none();
    if inverse_ok {
        moreau::inverse(&m, &mut d);
        stage("inverse");
    }
    let mut ws = FdWorkspace::new(&m);
    let _ = ws.transition(&m, &mut d, 1e-6, false);
    stage("transition FD");
    if inverse_ok && moreau_derivatives::Support::inverse(&m).is_covered() {
        moreau::forward(&m, &mut d);
        let _ = ws.inverse(&m, &mut d, 1e-6, false, false);
        stage("inverse FD");
    }
    if moreau_derivatives::Support::transition(&m).is_covered() {
        let _ = transition(
            &m,
            &mut d,
            &TransitionOptions::analytic().with_sensors(false),
        );
        stage("transition analytic");
    }
}
