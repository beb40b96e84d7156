//! System identification on moreau: (a) cart-pole masses and (b) joint damping by least squares
//! on the exact inverse-dynamics regressor, noise-free and with velocity noise; the acrobot's
//! full ten inertial parameters per body (only combinations are identifiable: the error is
//! reported in the identifiable subspace); (c) contact friction and solref time constant of a
//! ball by Nelder–Mead on simulation error; (d) joint friction loss (with damping) of the
//! cart-pole by Levenberg–Marquardt on the inverse-dynamics residual (MuJoCo's soft
//! friction-loss row makes τ piecewise linear in it), noise-free and with velocity noise.
//!
//! Run: `cargo run --release -p moreau-optim --example sysid`. Prints recovered vs true values in tables and
//! writes `target/sysid/frictionloss.json` (the identified model re-simulated under the
//! recording's controls, `moreau simulate`'s format plus `ctrl` and `measured_qpos`); with
//! `--features plot` also PNGs of the cost per iteration of the nonlinear fits and of that
//! trajectory.

#[path = "common/page.rs"]
mod page;

#[cfg(feature = "plot")]
#[path = "common/plot.rs"]
#[allow(dead_code)]
mod plot;

use moreau_optim::progress::{bar, table};
use moreau_optim::sysid::{self, ContactFit, Param};
use moreau_problems::{acrobot_sysid, cartpole_sysid, load_model, SysidProblem};
use std::sync::{Arc, Mutex};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("sysid: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    // (a, b) cart-pole masses and damping
    let SysidProblem {
        nominal,
        truth,
        params: plist,
        truth_v,
        names,
    } = cartpole_sysid()?;
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
    for (j, (name, t)) in names.iter().zip(&truth_v).enumerate() {
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
    let SysidProblem {
        nominal,
        truth,
        params,
        truth_v,
        ..
    } = acrobot_sysid()?;
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
    let projected = id.identifiable_error(&truth_v);
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
    let nm_hist: Arc<Mutex<Vec<Vec<f64>>>> = Arc::new(Mutex::new(vec![vec![], vec![]]));
    let pb = bar(200, "drop (tc)");
    let pbc = pb.clone();
    let h = nm_hist.clone();
    let (p1, e1, i1) = sysid::fit_contact(make(0.11, 0.0), [0.4, 0.02], 200, move |_, c| {
        pbc.set_message(format!("{c:.2e}"));
        pbc.inc(1);
        if let Ok(mut h) = h.lock() {
            h[0].push(c);
        }
    })?;
    pb.finish();
    let pb = bar(200, "slide (μ, tc)");
    let pbc = pb.clone();
    let h = nm_hist.clone();
    let (p2, e2, i2) = sysid::fit_contact(make(0.1, 2.0), [0.4, p1[1]], 200, move |_, c| {
        pbc.set_message(format!("{c:.2e}"));
        pbc.inc(1);
        if let Ok(mut h) = h.lock() {
            h[1].push(c);
        }
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

    // (d) joint friction loss and damping, Levenberg–Marquardt on inverse dynamics
    let nominal = load_model("cartpole_swingup.xml")?;
    let params = [
        (
            Param::FrictionLoss { dof: 0 },
            "slider frictionloss",
            0.5,
            0.1,
        ),
        (
            Param::FrictionLoss { dof: 1 },
            "hinge frictionloss",
            0.01,
            0.002,
        ),
        (Param::Damping { dof: 0 }, "slider damping", 0.4, 0.1),
        (Param::Damping { dof: 1 }, "hinge damping", 0.02, 0.1),
    ];
    let mut truth = nominal.clone();
    // the data's Newton solver converged to machine precision (default tolerance 1e-8 limits
    // the noise-free recovery to ~1e-7)
    truth.opt.tolerance = 1e-15;
    truth.opt.iterations = 1000;
    for (p, _, v, _) in &params {
        sysid::set(&mut truth, *p, *v)?;
    }
    let plist: Vec<Param> = params.iter().map(|p| p.0).collect();
    let start: Vec<f64> = params.iter().map(|p| p.3).collect();
    let controls = sysid::excitation(1, 1000, 3.0, 10, 5);
    let mut fits = vec![];
    for (i, &noise) in noises.iter().enumerate() {
        let rec = sysid::record(&truth, &[0.0, 0.3], &controls, noise, 1 + i as u64);
        let pb = bar(50, &format!("friction σ={noise:.0e}"));
        let pbc = pb.clone();
        let t0 = Instant::now();
        let fit = sysid::identify_nonlinear(&nominal, &plist, &rec, &start, 50, |_, c| {
            pbc.set_message(format!("cost {c:.3e}"));
            pbc.inc(1)
        })?;
        pb.finish();
        fits.push((fit, t0.elapsed().as_secs_f64(), rec));
    }
    let mut rows = vec![];
    for (j, (_, name, t, s0)) in params.iter().enumerate() {
        let mut r = vec![name.to_string(), format!("{t}"), format!("{s0}")];
        for (fit, _, _) in &fits {
            let e = fit.estimate[j];
            r.push(format!("{e:.6} ({:.1e})", ((e - t) / t).abs()));
        }
        rows.push(r);
    }
    rows.push(
        ["iterations / ms".to_string(), String::new(), String::new()]
            .into_iter()
            .chain(
                fits.iter()
                    .map(|(f, s, _)| format!("{} / {:.0}", f.iterations, s * 1e3)),
            )
            .collect(),
    );
    println!(
        "\n(d) cart-pole joint friction loss + damping, 1000 steps of random forcing, LM on the \
         inverse-dynamics residual (estimate (relative error)) for velocity-noise σ = 0, 1e-4, 1e-3:"
    );
    print!(
        "{}",
        table(
            &[
                "parameter",
                "true",
                "start",
                "σ = 0",
                "σ = 1e-4",
                "σ = 1e-3"
            ],
            &rows
        )
    );

    // the noisy (σ = 1e-3) estimate re-simulated under the recording's controls
    let (fit, _, rec) = &fits[fits.len() - 1];
    let mut ident = nominal.clone();
    for (p, v) in fit.params.iter().zip(&fit.estimate) {
        sysid::set(&mut ident, *p, *v)?;
    }
    let (qs, vs) = moreau_problems::replay(&ident, &rec.qpos[0], &[0.0, 0.0], &controls);
    let (qt, _) = moreau_problems::replay(&truth, &rec.qpos[0], &[0.0, 0.0], &controls);
    let drift = qs
        .iter()
        .zip(&qt)
        .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max);
    println!(
        "identified (σ = 1e-3) vs true model under the same 1000 controls: max |Δqpos| {drift:.2e}"
    );
    std::fs::create_dir_all("target/sysid").map_err(|e| format!("target/sysid: {e}"))?;
    let out = "target/sysid/frictionloss.json";
    let json = moreau_optim::trajectory::Trajectory::sampled(ident.opt.timestep, &qs, &vs, &controls).to_json(
        serde_json::json!({
            "model": format!("{}/../models/cartpole_swingup.xml", env!("CARGO_MANIFEST_DIR")),
            "identified": fit.params.iter().zip(&fit.estimate)
                .map(|(p, v)| (format!("{p:?}"), serde_json::json!(v))).collect::<serde_json::Map<String, serde_json::Value>>(),
            "measured_qpos": qt,
            "cost_history": fit.cost_history,
        }),
    );
    std::fs::write(out, json.to_string()).map_err(|e| format!("{out}: {e}"))?;
    println!("wrote {out} (replay it with the identified parameters in the model to check)");
    page::write(
        &ident,
        out,
        &json,
        "frictionloss identification: identified model vs measured",
    )?;
    #[cfg(feature = "plot")]
    {
        let nm = nm_hist.lock().map_err(|e| e.to_string())?.clone();
        let lm: Vec<Vec<f64>> = fits
            .iter()
            .map(|(f, _, _)| f.cost_history.clone())
            .collect();
        plots(&nm, &lm, &qs, &qt, ident.opt.timestep).map_err(|e| e.to_string())?;
    }
    #[cfg(not(feature = "plot"))]
    let _ = nm_hist;
    Ok(())
}

#[cfg(feature = "plot")]
fn plots(
    nm: &[Vec<f64>],
    lm: &[Vec<f64>],
    qs: &[Vec<f64>],
    qt: &[Vec<f64>],
    dt: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    plot::init_font();
    let path = "target/sysid/cost.png";
    let root = BitMapBackend::new(path, (1000, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let halves = root.split_evenly((1, 2));
    for (k, (title, series, names)) in [
        (
            "contact fit (Nelder–Mead): error",
            nm,
            vec!["drop (tc)", "slide (μ, tc)"],
        ),
        (
            "friction loss (LM): ½‖r‖²",
            lm,
            vec!["σ = 0", "σ = 1e-4", "σ = 1e-3"],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let vals = series
            .iter()
            .flatten()
            .copied()
            .filter(|c| *c > 0.0 && c.is_finite());
        let (lo, hi) = vals.fold((f64::INFINITY, 0.0f64), |(a, b), c| (a.min(c), b.max(c)));
        if !(lo.is_finite() && hi > lo) {
            continue;
        }
        let n = series.iter().map(|s| s.len()).max().unwrap_or(1) as f64;
        let mut ch = ChartBuilder::on(&halves[k])
            .caption(title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..n, (lo * 0.5..hi * 2.0).log_scale())?;
        ch.configure_mesh().x_desc("iteration").draw()?;
        for (i, s) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            ch.draw_series(LineSeries::new(
                s.iter()
                    .enumerate()
                    .filter(|(_, c)| **c > 0.0)
                    .map(|(t, c)| (t as f64, *c)),
                color.stroke_width(2),
            ))?
            .label(names.get(i).copied().unwrap_or(""))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        ch.configure_series_labels().border_style(BLACK).draw()?;
    }
    root.present()?;
    println!("wrote {path}");

    let path = "target/sysid/frictionloss_trajectory.png";
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let all = qs.iter().chain(qt).flatten().copied();
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let mut ch = ChartBuilder::on(&root)
        .caption(
            "cart-pole: true (lines) vs identified (dots) under the same controls",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..dt * qs.len() as f64, (lo - 0.1)..(hi + 0.1))?;
    ch.configure_mesh()
        .x_desc("time (s)")
        .y_desc("qpos")
        .draw()?;
    for i in 0..qs[0].len() {
        let color = Palette99::pick(i).to_rgba();
        ch.draw_series(LineSeries::new(
            qt.iter().enumerate().map(|(t, q)| (t as f64 * dt, q[i])),
            color.stroke_width(2),
        ))?
        .label(format!("q[{i}]"))
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        ch.draw_series(
            qs.iter()
                .enumerate()
                .step_by(20)
                .map(|(t, q)| Circle::new((t as f64 * dt, q[i]), 3, color.filled())),
        )?;
    }
    ch.configure_series_labels().border_style(BLACK).draw()?;
    root.present()?;
    println!("wrote {path}");
    Ok(())
}
