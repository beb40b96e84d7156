//! The predictive-sampling planner rolls out on its threads: its costs and its plan are
//! bit-identical whatever the number of threads, and on a rerun.

use moreau_optim::sampling::{PredictiveSampling, SamplingOptions};

fn plan_with(threads: usize) -> (Vec<u64>, Vec<u64>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/humanoid.xml");
    let m = moreau::load(path).expect("model loads");
    let opt = SamplingOptions {
        rollouts: 8,
        steps: 40,
        knots: 4,
        sigma: 0.5,
        seed: 7,
        ..Default::default()
    };
    let mut d = moreau::Data::new(&m);
    d.qvel[0] = 0.5;
    let stage = |_: &moreau::Model, d: &moreau::Data| d.qpos[2].powi(2) + d.qvel[0].powi(2);
    let mut ps = PredictiveSampling::new(m.clone(), opt).unwrap();
    ps.set_threads(threads).unwrap();
    // two planning iterations: the second starts from the first's nominal
    ps.plan(&d, &stage);
    ps.plan(&d, &stage);
    let mut u = vec![0.0; m.nu];
    ps.action(0.01, &mut u);
    (
        ps.costs().iter().map(|c| c.to_bits()).collect(),
        u.iter().map(|x| x.to_bits()).collect(),
    )
}

#[test]
fn sampling_is_bit_identical_across_thread_counts_and_reruns() {
    let one = plan_with(1);
    assert!(one.0.iter().all(|c| f64::from_bits(*c).is_finite()));
    assert_eq!(one, plan_with(4), "1 thread vs 4 threads");
    assert_eq!(one, plan_with(3), "1 thread vs 3 threads");
    assert_eq!(one, plan_with(1), "rerun");
}
