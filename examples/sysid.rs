//! System identification on moreau: (a) cart-pole masses and (b) joint damping by least squares
//! on the exact inverse-dynamics regressor, noise-free and with velocity noise; the acrobot's
//! full ten inertial parameters per body (only combinations are identifiable: the error is
//! reported in the identifiable subspace); (c) contact friction and solref time constant of a
//! ball by Nelder–Mead on simulation error.
//!
//! Run: `cargo run --release --example sysid`. Prints recovered vs true values in tables.

use moreau_optim::progress::{bar, table};
use moreau_optim::sysid::{self, ContactFit, Param};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("sysid: {e}");
        std::process::exit(1);
    }
}

fn load(name: &str) -> Result<moreau::Model, String> {
    let path = format!("{}/models/{name}", env!("CARGO_MANIFEST_DIR"));
    moreau::mjcf::load(path).map_err(|e| e.to_string())
}

fn run() -> Result<(), String> {
    // (a, b) cart-pole masses and damping
    let nominal = load("cartpole_swingup.xml")?;
    let cart = nominal.body_id("cart").ok_or("no cart")?;
    let pole = nominal.body_id("pole").ok_or("no pole")?;
    let params = [
        (Param::Mass { body: cart }, "cart mass", 1.3),
        (Param::Mass { body: pole }, "pole mass", 0.137),
        (Param::Damping { dof: 0 }, "slider damping", 0.4),
        (Param::Damping { dof: 1 }, "hinge damping", 0.02),
    ];
    let mut truth = nominal.clone();
    for (p, _, v) in &params {
        sysid::set(&mut truth, *p, *v)?;
    }
    let plist: Vec<Param> = params.iter().map(|p| p.0).collect();
    let mut rows = vec![];
    let noises = [0.0, 1e-4, 1e-3];
    let pb = bar(noises.len() as u64, "cart-pole LS");
    let mut ests = vec![];
    for (i, &noise) in noises.iter().enumerate() {
        let t0 = Instant::now();
        let rec = sysid::record(
            &truth,
            &[0.0, 0.3],
            &sysid::excitation(1, 2000, 5.0, 10, 5),
            noise,
            2 + i as u64,
        );
        let id = sysid::identify(&nominal, &plist, &rec, 1e-10)?;
        ests.push((id, t0.elapsed().as_secs_f64()));
        pb.inc(1);
    }
    pb.finish();
    for (j, (_, name, t)) in params.iter().enumerate() {
        let mut r = vec![name.to_string(), format!("{t}")];
        for (id, _) in &ests {
            let e = id.estimate[j];
            r.push(format!("{e:.6} ({:.1e})", ((e - t) / t).abs()));
        }
        rows.push(r);
    }
    rows.push(
        ["solve ms".to_string(), String::new()]
            .into_iter()
            .chain(ests.iter().map(|(_, s)| format!("{:.1}", s * 1e3)))
            .collect(),
    );
    println!("\n(a, b) cart-pole, 2000 steps of random forcing, least squares on inverse dynamics");
    println!("       (estimate (relative error)) for velocity-noise σ = 0, 1e-4, 1e-3:");
    print!(
        "{}",
        table(
            &["parameter", "true", "σ = 0", "σ = 1e-4", "σ = 1e-3"],
            &rows
        )
    );

    // full inertial parameters of the acrobot
    let nominal = load("acrobot.xml")?;
    let mut params = vec![];
    for body in 1..3 {
        for k in 0..10 {
            params.push(Param::Inertial { body, k });
        }
    }
    params.push(Param::Damping { dof: 0 });
    params.push(Param::Damping { dof: 1 });
    let mut truth = nominal.clone();
    sysid::set(&mut truth, Param::Mass { body: 1 }, 1.2)?;
    sysid::set(&mut truth, Param::Mass { body: 2 }, 0.8)?;
    sysid::set(&mut truth, Param::Damping { dof: 0 }, 0.1)?;
    sysid::set(&mut truth, Param::Damping { dof: 1 }, 0.05)?;
    let truth_v: Vec<f64> = params.iter().map(|p| sysid::get(&truth, *p)).collect();
    let rec = sysid::record(
        &truth,
        &[0.5, 0.2],
        &sysid::excitation(1, 1000, 3.0, 10, 9),
        0.0,
        1,
    );
    let t0 = Instant::now();
    let id = sysid::identify(&nominal, &params, &rec, 1e-9)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let err = nalgebra::DVector::from_iterator(
        params.len(),
        id.estimate.iter().zip(&truth_v).map(|(e, t)| e - t),
    );
    let projected = id.row_space.transpose() * &err;
    println!(
        "\nacrobot, 22 parameters (10 inertial per link + 2 dampings): rank {} (identifiable \
         combinations), force residual RMS {:.1e}, largest error in the identifiable subspace \
         {:.1e}, damping {:.6}/{:.6} (true 0.1/0.05), {ms:.1} ms",
        id.rank,
        id.residual_rms,
        projected.amax(),
        id.estimate[20],
        id.estimate[21]
    );

    // (c) contact parameters
    let xml = r#"<mujoco><option timestep="0.002"/><worldbody>
      <geom name="floor" type="plane" size="5 5 0.1"/>
      <body name="ball" pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
    </worldbody></mujoco>"#;
    let model = moreau::load_from_str(xml, &moreau::Vfs::default()).map_err(|e| e.to_string())?;
    let truth = [0.55, 0.012];
    let make = |z: f64, vx: f64| {
        let mut f = ContactFit {
            model: model.clone(),
            qpos0: vec![0.0, 0.0, z, 1.0, 0.0, 0.0, 0.0],
            qvel0: vec![vx, 0.0, 0.0, 0.0, 0.0, 0.0],
            steps: 200,
            measured: vec![],
        };
        f.measured = f.simulate(truth[0], truth[1]);
        f
    };
    let t0 = Instant::now();
    let pb = bar(200, "drop (tc)");
    let pbc = pb.clone();
    let (p1, e1, i1) = sysid::fit_contact(make(0.11, 0.0), [0.4, 0.02], 200, move |_, c| {
        pbc.set_message(format!("{c:.2e}"));
        pbc.inc(1)
    })?;
    pb.finish();
    let pb = bar(200, "slide (μ, tc)");
    let pbc = pb.clone();
    let (p2, e2, i2) = sysid::fit_contact(make(0.1, 2.0), [0.4, p1[1]], 200, move |_, c| {
        pbc.set_message(format!("{c:.2e}"));
        pbc.inc(1)
    })?;
    pb.finish();
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    println!("\n(c) ball contact, Nelder–Mead on position error (drop 1 cm, then slide at 2 m/s), {ms:.0} ms:");
    print!(
        "{}",
        table(
            &["stage", "iterations", "error (m²)", "friction", "solref tc"],
            &[
                vec![
                    "true".into(),
                    String::new(),
                    String::new(),
                    format!("{}", truth[0]),
                    format!("{}", truth[1]),
                ],
                vec![
                    "drop".into(),
                    i1.to_string(),
                    format!("{e1:.1e}"),
                    format!("{:.6}", p1[0]),
                    format!("{:.6}", p1[1]),
                ],
                vec![
                    "slide".into(),
                    i2.to_string(),
                    format!("{e2:.1e}"),
                    format!("{:.6}", p2[0]),
                    format!("{:.6}", p2[1]),
                ],
            ]
        )
    );
    Ok(())
}
