//! Joint limits in the hard-contact step (`src/hard.rs`, unilateral rows in the same
//! Gauss-Seidel sweep as the contacts), checked against statics and exact kinematics:
//! a pendulum resting on its limit holds still with the limit torque equal to gravity's
//! (`m g l sin q`), a joint driven at constant speed into its limit stops exactly on it, and a
//! two-link chain resting on two coupled limits is in equilibrium (`qfrc_constraint =
//! qfrc_bias`) for all three solvers. Tolerances: 1e-12 for the one-row cases (one exact
//! scalar update), 1e-10 for the coupled pair (Gauss-Seidel stopped at a relative impulse
//! change of 1e-12).

use moreau::{load_from_str, Data, Vfs};
use moreau_raisim::hard::{step_hard, HardOptions, HardSolver};

const PENDULUM: &str = r#"
<mujoco>
  <option timestep="0.01" GRAVITY/>
  <worldbody>
    <body pos="0 0 1">
      <joint name="j" type="hinge" axis="0 1 0" range="20 60" limited="true"/>
      <geom type="sphere" size="0.1" pos="0 0 -0.5" mass="2"/>
    </body>
  </worldbody>
</mujoco>"#;

const CHAIN: &str = r#"
<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <body pos="0 0 2">
      <joint type="hinge" axis="0 1 0" range="20 60" limited="true"/>
      <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05"/>
      <body pos="0 0 -1">
        <joint type="hinge" axis="0 1 0" range="20 60" limited="true"/>
        <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05"/>
      </body>
    </body>
  </worldbody>
</mujoco>"#;

fn pendulum(gravity: bool) -> moreau::Model {
    let xml = PENDULUM.replace("GRAVITY", if gravity { "" } else { r#"gravity="0 0 0""# });
    load_from_str(&xml, &Vfs::default()).expect("pendulum model")
}

#[test]
fn pendulum_rests_on_its_limit_with_the_gravity_torque() {
    let m = pendulum(true);
    let lo = m.jnt_range[0][0];
    assert!((lo - 20f64.to_radians()).abs() < 1e-15);
    let (mass, l, g) = (2.0, 0.5, 9.81);
    for s in HardSolver::ALL {
        let mut d = Data::new(&m);
        d.qpos[0] = lo;
        for step in 0..3 {
            let hs = step_hard(&m, &mut d, s, &HardOptions::default());
            assert_eq!((hs.problem.nc, hs.problem.nl), (0, 1));
            assert!(
                d.qvel[0].abs() < 1e-12,
                "{} step {step}: v {}",
                s.name(),
                d.qvel[0]
            );
            assert!((d.qpos[0] - lo).abs() < 1e-12);
            // Gravity pulls the bob (at (−l sin q, 0, −l cos q)) back towards q = 0 with torque
            // −m g l sin q; the lower limit pushes with +m g l sin q.
            let want = mass * g * l * lo.sin();
            let got = d.qfrc_constraint[0];
            assert!(
                (got - want).abs() < 1e-12 * want,
                "{}: {got} vs {want}",
                s.name()
            );
            assert!(hs.lambda[0] > 0.0 && hs.limit_error(m.opt.timestep) < 1e-12);
        }
    }
}

#[test]
fn joint_driven_into_its_limit_stops_exactly_on_it() {
    let m = pendulum(false);
    let (h, hi) = (m.opt.timestep, m.jnt_range[0][1]);
    let mut d = Data::new(&m);
    // Far from the limit: no row, free motion.
    d.qpos[0] = 0.5;
    d.qvel[0] = 1.0;
    let hs = step_hard(&m, &mut d, HardSolver::RaiSimDs, &HardOptions::default());
    assert_eq!(hs.problem.nl, 0);
    assert_eq!(d.qvel[0], 1.0);
    assert!((d.qpos[0] - (0.5 + h)).abs() < 1e-15);
    // 0.004 rad from the limit at 1 rad/s: the step would cross it (h v = 0.01), the row
    // limits v⁺ to the remaining distance over h, landing exactly on the limit ...
    d.qpos[0] = hi - 0.004;
    let hs = step_hard(&m, &mut d, HardSolver::RaiSimDs, &HardOptions::default());
    assert_eq!(hs.problem.nl, 1);
    assert!((d.qvel[0] - 0.4).abs() < 1e-12, "v {}", d.qvel[0]);
    assert!((d.qpos[0] - hi).abs() < 1e-12);
    // ... and the next step stops it there (inelastic impact, impulse = inertia × 0.4).
    let hs = step_hard(&m, &mut d, HardSolver::RaiSimDs, &HardOptions::default());
    assert!(d.qvel[0].abs() < 1e-12 && (d.qpos[0] - hi).abs() < 1e-12);
    assert!(hs.lambda[0] > 0.0 && hs.problem.limit_sign[0] == -1.0);
    // Impulse = M · 0.4 with M the joint-space inertia (1×1).
    let mut dm = Data::new(&m);
    dm.qpos[0] = hi;
    moreau::forward(&m, &mut dm);
    let inertia = dm.qM[0];
    assert!((hs.lambda[0] - 0.4 * inertia).abs() < 1e-12 * inertia);
    // Moving away from the limit releases it.
    d.qvel[0] = -1.0;
    let hs = step_hard(&m, &mut d, HardSolver::RaiSimDs, &HardOptions::default());
    assert!(hs.problem.nl == 0 || hs.lambda[0] == 0.0);
    assert_eq!(d.qvel[0], -1.0);
}

#[test]
fn chain_on_two_coupled_limits_is_in_equilibrium() {
    let m = load_from_str(CHAIN, &Vfs::default()).expect("chain model");
    let lo = m.jnt_range[0][0];
    for s in HardSolver::ALL {
        let mut d = Data::new(&m);
        d.qpos[0] = lo;
        d.qpos[1] = lo;
        let hs = step_hard(&m, &mut d, s, &HardOptions::default());
        assert_eq!(hs.problem.nl, 2, "both lower limits");
        assert!(hs.info.converged);
        // The limit rows are coupled (off-diagonal Delassus entry).
        let n = hs.problem.g.len();
        assert!(hs.problem.G[1].abs() > 1e-3 * hs.problem.G[0] && n == 2);
        for k in 0..2 {
            assert!(d.qvel[k].abs() < 1e-10, "{}: v {:?}", s.name(), d.qvel);
            let (c, b) = (d.qfrc_constraint[k], d.qfrc_bias[k]);
            assert!((c - b).abs() < 1e-10 * b.abs(), "{}: {c} vs {b}", s.name());
            assert!(hs.lambda[k] > 0.0);
        }
        assert!(hs.limit_error(m.opt.timestep) < 1e-10);
    }
}
