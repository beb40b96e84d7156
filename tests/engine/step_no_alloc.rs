//! `integrator::step` on f64 allocates nothing, under every integrator (counting global
//! allocator), on the MJCF models the pipeline supports.

use crate::alloc_counter;
use alloc_counter::allocations;
use moreau::model::Integrator;

#[test]
fn step_does_not_allocate() {
    for name in ["arm7", "free_body", "ball_pendulum", "cartpole"] {
        let path = format!("{}/models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
        let mut m = moreau::load(&path).unwrap();
        for integ in [
            Integrator::Euler,
            Integrator::ImplicitFast,
            Integrator::Implicit,
            Integrator::Rk4,
        ] {
            m.opt.integrator = integ;
            let mut d = moreau::Data::<f64>::new(&m);
            if m.nkey > 0 {
                d.reset_keyframe(&m, 0).unwrap();
            }
            d.ctrl.iter_mut().for_each(|c| *c = 0.3);
            let before = allocations();
            for _ in 0..5 {
                moreau::step(&m, &mut d);
            }
            let n = allocations() - before;
            assert_eq!(n, 0, "{name} {integ:?}: {n} allocations");
        }
    }
}

/// Long runs, where contacts appear and disappear and every force term is active:
/// `fluid_swimmer` (fluid forces, a free body resting on the floor) and `humanoid` falling from
/// its keyframe onto the floor, 1000 steps under every integrator. Stepping allocates nothing
/// from the first step on (`Data::new` reserves what the contacts and constraints can need).
#[test]
fn long_runs_with_contacts_do_not_allocate() {
    for name in ["fluid_swimmer", "humanoid"] {
        let path = format!("{}/models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
        let mut m = moreau::load(&path).unwrap();
        for integ in [
            Integrator::Euler,
            Integrator::ImplicitFast,
            Integrator::Implicit,
            Integrator::Rk4,
        ] {
            m.opt.integrator = integ;
            let mut d = moreau::Data::<f64>::new(&m);
            if m.nkey > 0 {
                d.reset_keyframe(&m, 0).unwrap();
            }
            let before = allocations();
            let mut most = 0;
            for k in 0..1000 {
                for (i, c) in d.ctrl.iter_mut().enumerate() {
                    *c = ((k as f64) * 0.01 + i as f64).sin() * 0.5;
                }
                moreau::step(&m, &mut d);
                most = most.max(d.contact.len());
            }
            let n = allocations() - before;
            assert!(most > 0, "{name} {integ:?}: no contact in 1000 steps");
            assert!(
                d.qpos.iter().all(|x| x.is_finite()),
                "{name} {integ:?}: diverged"
            );
            assert_eq!(
                n, 0,
                "{name} {integ:?}: {n} allocations in 1000 steps (up to {most} contacts)"
            );
        }
    }
}

/// Under `<flag sleep="enable"/>`, stepping allocates nothing either, through every sleep
/// event: trees counting steps at rest, a stack of two boxes falling asleep as one cycle, a
/// sphere dropped on it waking it through a contact (the collision re-run), a kicked pendulum
/// whose tendon limit wakes the sleeping pendulum it joins (`sleep::wake_by_rows`), and a
/// sleeping hinge with a joint limit and dof friction pushed awake. Checked under the three
/// integrators sleep supports (RK4 is refused).
#[test]
fn sleep_steps_do_not_allocate() {
    let xml = r#"<mujoco><option><flag sleep="enable"/></option><worldbody>
        <geom type="plane" size="10 10 .1"/>
        <body pos="0 0 .12"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
        <body pos=".02 0 .33"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
        <body pos="1 0 .3"><freejoint/><geom type="sphere" size=".1"/></body>
        <body pos="3 0 1"><joint name="a" type="hinge" axis="0 1 0" damping="1"/>
          <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/></body>
        <body pos="4 0 1"><joint name="b" type="hinge" axis="0 1 0" damping="1"/>
          <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/></body>
        <body pos="5 0 1"><joint name="c" type="hinge" axis="0 1 0" damping="1" range="-1 1"
            frictionloss=".01"/>
          <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/></body>
        </worldbody>
        <tendon><fixed range="-.5 .5" limited="true"><joint joint="a" coef="1"/>
          <joint joint="b" coef="-1"/></fixed></tendon></mujoco>"#;
    let mut m = moreau::load_from_str(xml, &moreau::Vfs::new()).unwrap();
    assert_eq!(m.dof_length.len(), m.nv);
    assert_eq!(m.tree_sleep_policy, [2; 6]);
    for integ in [
        Integrator::Euler,
        Integrator::ImplicitFast,
        Integrator::Implicit,
    ] {
        m.opt.integrator = integ;
        let mut d = moreau::Data::<f64>::new(&m);
        let before = allocations();
        // settle: everything falls asleep
        for _ in 0..400 {
            moreau::step(&m, &mut d);
        }
        assert!(
            d.tree_asleep.iter().all(|&a| a >= 0),
            "{integ:?}: not all asleep: {:?}",
            d.tree_asleep
        );
        // drop the sphere on the stack, kick pendulum a, push hinge c
        d.qpos[14..17].copy_from_slice(&[0.02, 0.0, 0.6]);
        d.qvel[12..15].copy_from_slice(&[0.0, 0.0, -1.0]);
        d.qvel[18] = 60.0;
        d.qvel[20] = 3.0;
        let (mut stack_woke, mut b_woke) = (false, false);
        for _ in 0..300 {
            moreau::step(&m, &mut d);
            stack_woke |= d.tree_asleep[0] < 0 && d.tree_asleep[1] < 0;
            b_woke |= d.tree_asleep[4] < 0;
        }
        let n = allocations() - before;
        assert!(stack_woke && b_woke, "{integ:?}: {stack_woke} {b_woke}");
        assert!(d.qpos.iter().all(|x| x.is_finite()), "{integ:?}: diverged");
        assert_eq!(n, 0, "{integ:?}: {n} allocations in 700 sleep steps");
    }
}
