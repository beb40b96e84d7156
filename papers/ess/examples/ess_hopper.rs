//! Anderson & Revzen §5.1: the undamped 1D hopper released at rest from z0 = 2 L0 = 2 over
//! t ∈ [0, 2], integrated with the ESS integrator (max step 0.002 s as in the paper) and
//! compared with its closed-form solution. Plots z and ż (exact vs ESS) and the residuals, as Fig. 4.
//!
//! `cargo run --release -p moreau-ess --features plot --example ess_hopper [out.png]`

#[path = "../../../optim/examples/common/plot.rs"]
mod plot;

use moreau_ess::models::Hopper;
use moreau_ess::{integrate, Dopri5Options, EssOptions, Trajectory};
use nalgebra::DVector;
use plotters::prelude::*;
use std::time::Instant;

fn opts(eps: f64) -> EssOptions {
    EssOptions {
        eps,
        ode: Dopri5Options {
            rtol: 1e-10,
            atol: 1e-10,
            h_max: 0.002,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn rms(hop: &Hopper, tr: &Trajectory) -> f64 {
    let s: f64 =
        tr.t.iter()
            .zip(&tr.x)
            .map(|(t, x)| {
                let (z, v) = hop.exact(2.0, *t);
                (x[0] - z).powi(2) + (x[1] - v).powi(2)
            })
            .sum();
    (s / tr.t.len() as f64).sqrt()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    plot::init_font();
    let hop = Hopper::default();
    let x0 = DVector::from_vec(vec![2.0, 0.0]);
    println!(
        "hopper g={} k={} m={} L0={}, z0=2, t in [0, 2], max step 0.002 s",
        hop.g, hop.k, hop.m, hop.l0
    );
    println!(
        "{:>8} {:>12} {:>7} {:>7} {:>10}",
        "eps", "RMS", "events", "steps", "time (us)"
    );
    for eps in [0.13, 3e-2, 1e-2, 3e-3, 1e-3, 1e-4, 1e-5] {
        let start = Instant::now();
        let reps = 20;
        let mut tr = None;
        for _ in 0..reps {
            tr = Some(integrate(&hop, 0.0, &x0, 2.0, &opts(eps))?);
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / reps as f64;
        let tr = tr.expect("ran");
        println!(
            "{eps:>8} {:>12.4e} {:>7} {:>7} {us:>10.1}",
            rms(&hop, &tr),
            tr.events.len(),
            tr.stats.accepted
        );
    }

    let eps = 1e-2;
    let tr = integrate(&hop, 0.0, &x0, 2.0, &opts(eps))?;
    println!("plotted: eps = {eps}, RMS = {:.4e}", rms(&hop, &tr));
    let path = plot::out_path("ess_hopper.png");
    let root = BitMapBackend::new(&path, (1200, 800)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        &format!("1D hopper (Anderson & Revzen §5.1): ESS (ε = {eps}) vs closed form"),
        ("sans-serif", 24),
    )?;
    let panels = root.split_evenly((2, 2));
    let fine: Vec<f64> = (0..=4000).map(|i| i as f64 * 2.0 / 4000.0).collect();
    for (col, (name, idx)) in [("height z (m)", 0usize), ("velocity ż (m/s)", 1)]
        .into_iter()
        .enumerate()
    {
        let ex = |t: f64| {
            let (z, v) = hop.exact(2.0, t);
            if idx == 0 {
                z
            } else {
                v
            }
        };
        let (lo, hi) = if idx == 0 { (0.6, 2.1) } else { (-6.0, 6.0) };
        let mut c = ChartBuilder::on(&panels[col])
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(0.0..2.0, lo..hi)?;
        c.configure_mesh().x_desc("t (s)").y_desc(name).draw()?;
        c.draw_series(DashedLineSeries::new(
            fine.iter().map(|&t| (t, ex(t))),
            4,
            4,
            ShapeStyle::from(&RGBColor(90, 90, 90)).stroke_width(3),
        ))?
        .label("exact")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RGBColor(90, 90, 90)));
        c.draw_series(LineSeries::new(
            tr.t.iter().zip(&tr.x).map(|(t, x)| (*t, x[idx])),
            RED.stroke_width(1),
        ))?
        .label("ESS")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
        plot::legend(&mut c, SeriesLabelPosition::MiddleRight)?;

        let res: Vec<(f64, f64)> =
            tr.t.iter()
                .zip(&tr.x)
                .map(|(t, x)| (*t, x[idx] - ex(*t)))
                .collect();
        let m = res.iter().fold(1e-12f64, |a, r| a.max(r.1.abs())) * 1.1;
        let mut c = ChartBuilder::on(&panels[2 + col])
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(75)
            .build_cartesian_2d(0.0..2.0, -m..m)?;
        c.configure_mesh()
            .x_desc("t (s)")
            .y_desc(if idx == 0 {
                "residual of height (m)"
            } else {
                "residual of velocity (m/s)"
            })
            .y_label_formatter(&|v| {
                if v.abs() < 1e-12 {
                    "0".to_string()
                } else {
                    format!("{v:.1e}")
                }
            })
            .draw()?;
        c.draw_series(LineSeries::new(res, RED.stroke_width(1)))?;
    }
    plot::present(&root, &path)?;
    Ok(())
}
