//! `moreau_optim::batch`: a batch and a rollout give, at any thread count and with a `Data`
//! per thread or per simulation, exactly (bit for bit) what a serial loop over one fresh
//! `Data` per simulation gives; a diverging or NaN-controlled simulation leaves the others
//! exact; per-simulation parameters equal a model compiled with those values; batched
//! transition Jacobians equal one-at-a-time ones.

use moreau::data::Warning;
use moreau::state_bits as bits;
use moreau::{get_state, set_state, state_size};
use moreau::{Data, Model};
use moreau_derivatives::fd::FdWorkspace;
use moreau_derivatives::{transition, TransitionOptions};
use moreau_optim::batch::{rollout, Batch, Jacobians, Rollout, RolloutInputs, BATCH_SPEC};
use moreau_optim::sysid::Param;

fn model(name: &str) -> Model {
    let path = format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    moreau::load(&path).unwrap_or_else(|e| panic!("{path}: {e:?}"))
}

fn bits_of(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// Deterministic pseudo-random numbers in [-1, 1).
fn noise(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// Initial rows: perturbed velocities and random controls (humanoid: falling, with contacts).
fn init_rows(b: &mut Batch) {
    let (qv, nv) = b.component(bits::QVEL).unwrap();
    let (cu, nu) = b.component(bits::CTRL).unwrap();
    for sim in 0..b.nsim() {
        let dv = noise(sim as u64, nv + nu);
        let row = b.row_mut(sim);
        for (x, v) in row[qv..qv + nv].iter_mut().zip(&dv) {
            *x = 0.5 * v;
        }
        row[cu..cu + nu].copy_from_slice(&dv[nv..nv + nu]);
    }
}

/// The serial loop: one fresh `Data` per simulation, loaded from the row, stepped `nstep`
/// times; returns the rows after.
fn serial(m: &[&Model], rows: &[f64], nstate: usize, nstep: usize) -> Vec<f64> {
    let mut out = rows.to_vec();
    for (sim, row) in out.chunks_mut(nstate).enumerate() {
        let mm = m[sim.min(m.len() - 1)];
        let mut d = Data::new(mm);
        set_state(mm, &mut d, row, BATCH_SPEC).unwrap();
        for _ in 0..nstep {
            moreau::step(mm, &mut d);
        }
        get_state(mm, &d, row, BATCH_SPEC).unwrap();
    }
    out
}

#[test]
fn batch_step_is_bit_identical_to_a_serial_loop_at_any_thread_count() {
    let m = model("humanoid");
    let nsim = 7;
    let nstep = 25;
    let mut first: Option<Vec<u64>> = None;
    for (nthread, persistent) in [(1, false), (2, false), (3, false), (2, true)] {
        let mut b = Batch::new(m.clone(), nsim, nthread, persistent).unwrap();
        init_rows(&mut b);
        let rows0 = b.state().to_vec();
        let want = serial(&[&m], &rows0, b.nstate(), nstep);
        // in two calls: a row carries everything the next step needs
        b.step(None, 10).unwrap();
        b.step(None, nstep - 10).unwrap();
        assert_eq!(
            bits_of(b.state()),
            bits_of(&want),
            "nthread {nthread}, persistent {persistent}"
        );
        let got = bits_of(b.state());
        if let Some(f) = &first {
            assert_eq!(&got, f);
        }
        first = Some(got);
        // the humanoid falls onto the floor: contacts are part of the check
        let (qp, _) = b.component(bits::QPOS).unwrap();
        assert!(b.row(0)[qp + 2] < m.qpos0[2]);
        assert!((0..nsim).all(|i| !b.diverged(i)));
    }
}

#[test]
fn batch_ids_run_only_those_simulations() {
    let m = model("humanoid");
    let mut b = Batch::new(m.clone(), 5, 2, false).unwrap();
    init_rows(&mut b);
    let rows0 = b.state().to_vec();
    let ns = b.nstate();
    b.step(Some(&[1, 3]), 5).unwrap();
    let want = serial(&[&m], &rows0, ns, 5);
    for sim in 0..5 {
        let expect = if sim == 1 || sim == 3 {
            &want[sim * ns..(sim + 1) * ns]
        } else {
            &rows0[sim * ns..(sim + 1) * ns]
        };
        assert_eq!(bits_of(b.row(sim)), bits_of(expect), "sim {sim}");
    }
    assert!(b.step(Some(&[3, 1]), 1).unwrap_err().contains("sorted"));
    assert!(b.step(Some(&[5]), 1).unwrap_err().contains("[0, 5)"));
}

#[test]
fn a_nan_control_or_a_diverging_simulation_leaves_the_others_exact() {
    let m = model("humanoid");
    let nsim = 4;
    let mut b = Batch::new(m.clone(), nsim, 2, false).unwrap();
    init_rows(&mut b);
    let (cu, _) = b.component(bits::CTRL).unwrap();
    let (qv, _) = b.component(bits::QVEL).unwrap();
    b.row_mut(1)[cu] = f64::NAN;
    b.row_mut(2)[qv + 3] = 1e200;
    let rows0 = b.state().to_vec();
    let ns = b.nstate();
    let want = serial(&[&m], &rows0, ns, 8);
    b.step(None, 8).unwrap();
    // every simulation, the bad ones included, is its serial loop's (the checks are per Data)
    assert_eq!(bits_of(b.state()), bits_of(&want));
    for sim in [0, 3] {
        assert!(b.warning(sim).iter().all(|w| w.number == 0));
        assert!(!b.diverged(sim));
    }
    // a NaN control warns at every step (MuJoCo zeroes the controls it uses), no reset
    assert_eq!(b.warning(1)[Warning::BadCtrl as usize].number, 8);
    assert!(!b.diverged(1));
    // a huge velocity resets the simulation once, then it runs from the model's defaults
    assert_eq!(b.warning(2)[Warning::BadQvel as usize].number, 1);
    assert!(b.diverged(2));
    let (qp, nq) = b.component(bits::QPOS).unwrap();
    let (t, _) = b.component(bits::TIME).unwrap();
    assert_eq!(b.row(2)[t], 8.0 * m.opt.timestep);
    assert!(b.row(2)[qp..qp + nq].iter().all(|x| x.is_finite()));
    // the next call reports only what it did
    b.step(Some(&[2]), 1).unwrap();
    assert!(!b.diverged(2));
    b.reset(Some(&[1, 2])).unwrap();
    assert!(b.warning(1).iter().all(|w| w.number == 0));
}

#[test]
fn per_simulation_parameters_equal_a_model_compiled_with_them() {
    let xml = std::fs::read_to_string(format!(
        "{}/../models/cartpole.xml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let base = moreau::load_from_str(&xml, &Default::default()).unwrap();
    let pole = 2;
    assert_eq!(base.body_mass[pole], 0.1);
    let params = [Param::Mass { body: pole }, Param::Damping { dof: 0 }];
    let values = [[0.1, 0.1], [0.25, 0.3], [0.4, 0.05]];
    let mut b = Batch::new(base.clone(), values.len(), 2, false).unwrap();
    b.set_params(&params, values.as_flattened()).unwrap();
    let (qp, _) = b.component(bits::QPOS).unwrap();
    let (cu, _) = b.component(bits::CTRL).unwrap();
    for sim in 0..values.len() {
        b.row_mut(sim)[qp + 1] = 0.4;
        b.row_mut(sim)[cu] = 0.3;
    }
    let rows0 = b.state().to_vec();
    b.step(None, 100).unwrap();
    for (sim, v) in values.iter().enumerate() {
        let text = xml
            .replace(
                r#"size="0.045" mass="0.1""#,
                &format!(r#"size="0.045" mass="{}""#, v[0]),
            )
            .replace(r#"damping="0.1""#, &format!(r#"damping="{}""#, v[1]));
        let compiled = moreau::load_from_str(&text, &Default::default()).unwrap();
        assert_eq!(compiled.body_mass[pole], v[0]);
        let ns = b.nstate();
        let want = serial(&[&compiled], &rows0[sim * ns..(sim + 1) * ns], ns, 100);
        let got = b.row(sim);
        let err = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
            .fold(0.0, f64::max);
        // the inertia is rescaled from the base model's (mass ratio) rather than recompiled
        // from the capsule: round-off only
        assert!(err < 1e-12, "sim {sim}: {err:e}");
        // and the batch's models are the compiled ones' in the derived constants
        let bm = b.model_of(sim);
        assert!((bm.body_subtreemass[1] - compiled.body_subtreemass[1]).abs() < 1e-15);
        assert!(
            (bm.dof_invweight0[1] - compiled.dof_invweight0[1]).abs()
                < 1e-12 * compiled.dof_invweight0[1]
        );
    }
    assert!(b
        .set_params(&params, &[1.0])
        .unwrap_err()
        .contains("values"));
}

/// A serial rollout by hand, as `mujoco.rollout` defines it.
fn serial_rollout(m: &Model, x0: &[f64], ctrl: &[f64], nstep: usize) -> (Vec<f64>, Vec<f64>) {
    let nstate = state_size(m, bits::FULLPHYSICS).unwrap();
    let mut d = Data::new(m);
    set_state(m, &mut d, x0, bits::FULLPHYSICS).unwrap();
    let (mut s, mut sd) = (Vec::new(), Vec::new());
    let mut row = vec![0.0; nstate];
    let mut stopped = false;
    for t in 0..nstep {
        stopped |= d.warning.iter().any(|w| w.number > 0);
        if !stopped {
            d.ctrl.copy_from_slice(&ctrl[t * m.nu..(t + 1) * m.nu]);
            moreau::step(m, &mut d);
        }
        get_state(m, &d, &mut row, bits::FULLPHYSICS).unwrap();
        s.extend_from_slice(&row);
        sd.extend_from_slice(&d.sensordata);
    }
    (s, sd)
}

#[test]
fn rollout_is_bit_identical_to_a_serial_loop_at_any_thread_count() {
    let m = model("humanoid");
    let (nbatch, nstep) = (6, 20);
    let nstate = state_size(&m, bits::FULLPHYSICS).unwrap();
    let d0 = Data::new(&m);
    let mut x0 = vec![0.0; nbatch * nstate];
    for (r, x) in x0.chunks_mut(nstate).enumerate() {
        get_state(&m, &d0, x, bits::FULLPHYSICS).unwrap();
        let dv = noise(100 + r as u64, m.nv);
        for (x, v) in x[1 + m.nq..].iter_mut().zip(&dv) {
            *x = 0.3 * v;
        }
    }
    let mut ctrl = noise(7, nbatch * nstep * m.nu);
    // rollout 4 gets a NaN control at step 5: it stops there, the others are unaffected
    ctrl[(4 * nstep + 5) * m.nu] = f64::NAN;
    let models = [&m];
    let inp = RolloutInputs {
        models: &models,
        initial_state: &x0,
        initial_warmstart: None,
        control: Some(&ctrl),
        control_spec: bits::CTRL,
        nstep,
    };
    let mut want_s = Vec::new();
    let mut want_d = Vec::new();
    for r in 0..nbatch {
        let (s, d) = serial_rollout(
            &m,
            &x0[r * nstate..(r + 1) * nstate],
            &ctrl[r * nstep * m.nu..(r + 1) * nstep * m.nu],
            nstep,
        );
        want_s.extend(s);
        want_d.extend(d);
    }
    for nthread in [1, 2, 3] {
        let (s, d) = rollout(&inp, nthread).unwrap();
        assert_eq!(bits_of(&s), bits_of(&want_s), "nthread {nthread}");
        assert_eq!(bits_of(&d), bits_of(&want_d), "nthread {nthread}");
    }
    // rollout 4 repeats its state from step 5 on
    let row = |r: usize, t: usize| &want_s[(r * nstep + t) * nstate..(r * nstep + t + 1) * nstate];
    assert_eq!(bits_of(row(4, 5)), bits_of(row(4, nstep - 1)));
    assert_ne!(bits_of(row(4, 4)), bits_of(row(4, 5)));
    // chunking and reused Datas change nothing either
    let pool = Rollout::new(2).unwrap();
    let mut datas = vec![Data::new(&m), Data::new(&m)];
    let mut s = vec![0.0; want_s.len()];
    for chunk in [1, 4] {
        pool.rollout(&mut datas, &inp, Some(&mut s), None, Some(chunk))
            .unwrap();
        assert_eq!(bits_of(&s), bits_of(&want_s));
    }
    // bad shapes are errors
    let bad = RolloutInputs {
        control: Some(&ctrl[1..]),
        ..inp
    };
    assert!(rollout(&bad, 1)
        .unwrap_err()
        .contains("control.size should be"));
}

#[test]
fn batched_transition_jacobians_equal_one_at_a_time() {
    let m = model("humanoid");
    let mut b = Batch::new(m.clone(), 3, 2, false).unwrap();
    init_rows(&mut b);
    b.step(None, 3).unwrap();
    let rows = b.state().to_vec();
    let ns = b.nstate();
    let fd = Jacobians::Fd {
        eps: 1e-6,
        centered: false,
    };
    let got = b.transition(Some(&[0, 2]), fd).unwrap();
    assert_eq!(bits_of(b.state()), bits_of(&rows), "rows are not advanced");
    for (k, sim) in [0, 2].into_iter().enumerate() {
        let mut d = Data::new(&m);
        set_state(&m, &mut d, &rows[sim * ns..(sim + 1) * ns], BATCH_SPEC).unwrap();
        let mut ws = FdWorkspace::new(&m);
        let j = ws.transition(&m, &mut d, 1e-6, false);
        assert_eq!(bits_of(got[k].A.as_slice()), bits_of(j.A.as_slice()));
        assert_eq!(bits_of(got[k].B.as_slice()), bits_of(j.B.as_slice()));
    }
    let an = b
        .transition(None, Jacobians::Analytic { sensors: false })
        .unwrap();
    for (sim, j) in an.iter().enumerate() {
        let mut d = Data::new(&m);
        set_state(&m, &mut d, &rows[sim * ns..(sim + 1) * ns], BATCH_SPEC).unwrap();
        let want = transition(
            &m,
            &mut d,
            &TransitionOptions::analytic().with_sensors(false),
        )
        .unwrap();
        assert_eq!(bits_of(j.A.as_slice()), bits_of(want.A.as_slice()));
        assert_eq!(bits_of(j.B.as_slice()), bits_of(want.B.as_slice()));
    }
}

/// A model with the `sleep` flag needs a persistent batch (which trees sleep is not in the
/// state rows), as MuJoCo 4.0.0's `mujoco.batch.Batch` says; in a persistent batch every
/// simulation starts, and restarts after `reset`, with its `sleep="init"` trees asleep as
/// `Data::new` has them (tests/engine/sleep_init_oracle.rs checks those against MuJoCo), and
/// keeps them asleep while stepping.
#[test]
fn sleep_needs_a_persistent_batch_whose_init_trees_start_asleep() {
    let xml = r#"<mujoco><option><flag sleep="enable"/></option><worldbody>
        <geom type="plane" size="5 5 .1"/>
        <body pos="0 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
        <body pos="1 0 .5"><freejoint/><geom size=".1"/></body></worldbody></mujoco>"#;
    let m = moreau::load_from_str(xml, &moreau::Vfs::default()).unwrap();
    let refused = Batch::new(m.clone(), 2, 1, false).err().unwrap();
    assert!(refused.contains("persistent batch"), "{refused}");
    let mut b = Batch::new(m.clone(), 2, 1, true).unwrap();
    let fresh = moreau::Data::<f64>::new(&m);
    assert_eq!(fresh.tree_asleep, [0, -10]);
    for sim in 0..2 {
        assert_eq!(b.data(sim).unwrap().data.tree_asleep, fresh.tree_asleep);
    }
    b.step(None, 30).unwrap();
    for sim in 0..2 {
        let s = b.data(sim).unwrap();
        // the box sleeps on, the sphere has fallen
        assert_eq!(s.data.tree_asleep[0], 0);
        assert_eq!(&s.data.qpos[..7], &m.qpos0[..7]);
        assert!(s.data.qpos[9] < 0.49);
    }
    b.reset(None).unwrap();
    for sim in 0..2 {
        let s = b.data(sim).unwrap();
        assert_eq!(s.data.tree_asleep, fresh.tree_asleep);
        assert_eq!(s.data.qpos, fresh.qpos);
    }
}

/// A persistent batch's reset whose pass over `sleep="init"` trees overflows the arena's stack
/// (MuJoCo 4.0.0: `mj_resetData` raises; tests/reference/reset_overflow.json, the model of
/// tools/reference/gen_reset_overflow.py with its init sphere enlarged in simulation 1 only)
/// fails that simulation: `error(1)` is MuJoCo's text, its row and counters are those from
/// before the call, and the other simulations reset to `Data::new`'s state; a later reset
/// with the sphere restored clears the error.
#[test]
fn a_reset_overflow_is_that_simulations_error() {
    let path = format!(
        "{}/../tests/reference/reset_overflow.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let xml = r["xml_min_memory"].as_str().unwrap();
    let grow = r["grow"].as_f64().unwrap();
    let m = moreau::load_from_str(xml, &moreau::Vfs::default()).unwrap();
    let fresh = Data::new(&m);
    let mut b = Batch::new(m.clone(), 3, 2, true).unwrap();
    b.step(None, 3).unwrap();
    assert!((0..3).all(|sim| b.error(sim).is_none()));
    let before = b.state().to_vec();
    let g = m.ngeom - 1;
    let m1 = &mut b.models_mut()[1];
    m1.geom_size[g][0] = grow;
    m1.geom_rbound[g] = grow;
    m1.geom_aabb[g][3..].fill(grow);
    b.reset(None).unwrap();
    assert_eq!(b.error(1), r["reset_error"].as_str());
    assert!(b.error(0).is_none() && b.error(2).is_none());
    assert_eq!(
        bits_of(b.row(1)),
        bits_of(&before[b.nstate()..2 * b.nstate()])
    );
    let mut want = vec![0.0; b.nstate()];
    get_state(&m, &fresh, &mut want, BATCH_SPEC).unwrap();
    for sim in [0, 2] {
        assert_eq!(bits_of(b.row(sim)), bits_of(&want), "sim {sim}");
        assert_eq!(b.data(sim).unwrap().data.tree_asleep, fresh.tree_asleep);
    }
    // the failed reset left every tree of simulation 1 awake, as MuJoCo's `mj_resetData`
    assert!(b.data(1).unwrap().data.tree_asleep.iter().all(|&a| a < 0));
    let m1 = &mut b.models_mut()[1];
    m1.geom_size[g] = m.geom_size[g];
    m1.geom_rbound[g] = m.geom_rbound[g];
    m1.geom_aabb[g] = m.geom_aabb[g];
    b.reset(Some(&[1])).unwrap();
    assert!(b.error(1).is_none());
    assert_eq!(bits_of(b.row(1)), bits_of(&want));
    assert_eq!(b.data(1).unwrap().data.tree_asleep, fresh.tree_asleep);
}

/// A scene for sleep rollouts: no gravity, a box `a` with three sensors on it (at rest it falls
/// asleep after `MINAWAKE` steps and keeps its sensor values), a sphere, a damped pendulum and
/// a `sleep="init"` box off to the side.
const SLEEP_SCENE: &str = r#"<mujoco><option gravity="0 0 0"><flag sleep="enable"/></option>
    <worldbody><geom type="plane" size="5 5 .1"/>
    <body name="a" pos="0 0 1"><freejoint/><geom type="box" size=".1 .1 .1"/><site name="sa"/></body>
    <body pos="1 0 1"><freejoint/><geom size=".1"/></body>
    <body pos="0 2 1"><joint type="hinge" axis="0 1 0" damping="2"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".05"/></body>
    <body pos="3 3 1" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    </worldbody>
    <sensor><framepos objtype="site" objname="sa"/><velocimeter site="sa"/>
      <accelerometer site="sa"/></sensor></mujoco>"#;

/// Rollouts of a model with the `sleep` flag give, at every thread count and chunk size, the
/// numbers of the loop over one `Data` (each rollout from the sleep state the one before left
/// there, MuJoCo's rollout on one thread), and leave the first `Data` with the loop's sleep
/// state, over two calls; the rollouts run in parallel where that loop allows
/// ([`Rollout::sleep_reused`]): all but the first of a fresh `Data` when each rollout wakes
/// what sleeps, some when a rollout starts where the sleeping box of the one before rests (it
/// sleeps on, with the sensor values of the rollout before), none when a tree sleeps on as the
/// call starts.
#[test]
fn sleep_rollouts_are_the_serial_loop_at_any_thread_count() {
    let m = moreau::load_from_str(SLEEP_SCENE, &moreau::Vfs::default()).unwrap();
    let nstate = state_size(&m, bits::FULLPHYSICS).unwrap();
    let (nbatch, nstep) = (12, 30);
    let fresh = Data::new(&m);
    assert!(
        fresh.tree_asleep[3] >= 0,
        "the init box sleeps from the reset"
    );
    // box `a` still in rollouts of `still`, moving in the others; the sphere and the pendulum
    // always moving (the init box too, unless `init_still`)
    let x0 = |still: &[usize], init_still: bool| {
        let mut x = vec![0.0; nbatch * nstate];
        for (r, row) in x.chunks_mut(nstate).enumerate() {
            get_state(&m, &fresh, row, bits::FULLPHYSICS).unwrap();
            // a run of still rollouts shares the box's pose, another run has another one (so
            // that the sensor values a sleeping box keeps tell the runs apart)
            let run = (0..=r).rev().take_while(|k| still.contains(k)).last();
            if let Some(k) = run {
                row[1] += 0.1 * k as f64;
            }
            let v = &mut row[1 + m.nq..1 + m.nq + m.nv];
            let n = noise(300 + r as u64, m.nv);
            if !still.contains(&r) {
                v[..6].copy_from_slice(&n[..6]);
            }
            v[6..13].copy_from_slice(&n[6..13]);
            if !init_still {
                v[13..].copy_from_slice(&n[13..]);
            }
        }
        x
    };
    let models = [&m];
    let run = |x0: &[f64], nthread: usize, chunk: Option<usize>, calls: usize| {
        let pool = Rollout::new(nthread).unwrap();
        let mut datas: Vec<Data> = (0..nthread).map(|_| Data::new(&m)).collect();
        let inp = RolloutInputs {
            models: &models,
            initial_state: x0,
            initial_warmstart: None,
            control: None,
            control_spec: bits::CTRL,
            nstep,
        };
        let mut out = Vec::new();
        let mut reused = Vec::new();
        for _ in 0..calls {
            let mut s = vec![0.0; nbatch * nstep * nstate];
            let mut sd = vec![0.0; nbatch * nstep * m.nsensordata];
            pool.rollout(&mut datas, &inp, Some(&mut s), Some(&mut sd), chunk)
                .unwrap();
            out.push((bits_of(&s), bits_of(&sd), datas[0].tree_asleep.clone()));
            reused.push(pool.sleep_reused());
        }
        (out, reused)
    };
    let cases: [(&[usize], bool); 3] = [
        (&[], false),
        (&[0, 1, 3, 4, 5, 8, 9, 10], false),
        (&[0, 1, 2], true),
    ];
    for (case, (still, init_still)) in cases.into_iter().enumerate() {
        let x = x0(still, init_still);
        let (want, none) = run(&x, 1, None, 2);
        assert_eq!(none, [0, 0], "one thread runs the loop itself");
        for nthread in [2, 3, 4] {
            for chunk in [None, Some(1), Some(5)] {
                let (got, reused) = run(&x, nthread, chunk, 2);
                assert!(
                    got == want,
                    "case {case}: {nthread} threads, chunk {chunk:?}"
                );
                match case {
                    // a fresh `Data`'s trees have counted the reset's pass as a step at
                    // rest (−10): rollout 0 of the first call runs in order
                    0 => assert_eq!(reused, [nbatch - 1, nbatch], "in parallel"),
                    1 => assert!(reused.iter().all(|&k| k > 1 && k < nbatch), "{reused:?}"),
                    _ => assert_eq!(reused, [0, 0], "the init box sleeps as the call starts"),
                }
            }
        }
    }
}

/// A rollout whose step overflows the arena's stack (150 bodies in a row at `<size
/// memory='45320'>`, whose body-pair list does not fit: python/tests/test_arena.py) is the
/// call's `RolloutError::Fatal`, with MuJoCo's text, for the first such rollout in order; the
/// others, on models with room, ran to the end; a model list longer than the batch runs its
/// first nbatch models. At 1 and 2 threads alike.
#[test]
fn a_fatal_error_is_its_rollouts_and_the_others_run() {
    use moreau_optim::batch::RolloutError;
    let row = |memory: &str| {
        let bodies: String = (0..150)
            .map(|i| format!("<body pos='{i} 0 0'><geom size='.01'/></body>"))
            .collect();
        let xml =
            format!("<mujoco><size memory='{memory}'/><worldbody>{bodies}</worldbody></mujoco>");
        moreau::load_from_str(&xml, &moreau::Vfs::default()).unwrap()
    };
    let (small, big) = (row("45320"), row("1M"));
    let nstate = state_size(&big, bits::FULLPHYSICS).unwrap();
    let (nbatch, nstep) = (4, 3);
    let x0 = vec![0.0; nbatch * nstate];
    // rollouts 1 and 3 overflow; the fifth model is past the batch
    let models = [&big, &small, &big, &small, &small];
    let inp = RolloutInputs {
        models: &models,
        initial_state: &x0,
        initial_warmstart: None,
        control: None,
        control_spec: bits::CTRL,
        nstep,
    };
    for nthread in [1, 2] {
        let pool = Rollout::new(nthread).unwrap();
        let mut datas: Vec<Data> = (0..nthread).map(|_| Data::new(&big)).collect();
        let mut s = vec![-1.0; nbatch * nstep * nstate];
        let e = pool
            .rollout(&mut datas, &inp, Some(&mut s), None, Some(1))
            .unwrap_err();
        let RolloutError::Fatal { rollout, error } = e else {
            panic!("{e:?}")
        };
        assert_eq!(rollout, 1);
        assert!(e
            .to_string()
            .starts_with("mj_stackAlloc: out of memory, stack overflow at mj_collision"));
        assert_eq!(error.narena, 45320);
        let time = |r: usize, t: usize| s[(r * nstep + t) * nstate];
        for r in [0, 2] {
            assert_eq!(time(r, 0), big.opt.timestep);
            assert!(time(r, nstep - 1) > time(r, nstep - 2));
        }
        // the overflowing rollouts stopped at their first step: nothing written
        for r in [1, 3] {
            assert_eq!(time(r, 0), -1.0);
        }
    }
    // bad sizes stay `Invalid`
    let short = RolloutInputs {
        models: &models[..2],
        ..inp
    };
    let mut datas = vec![Data::new(&big)];
    let e = Rollout::new(1)
        .unwrap()
        .rollout(&mut datas, &short, None, None, None)
        .unwrap_err();
    assert_eq!(e, RolloutError::Invalid("2 models for 4 rollouts".into()));
}
