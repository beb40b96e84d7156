//! Anderson & Revzen §4 order test: the 3D affine system of Table 1 from (−0.4, −0.15, 0.3) over
//! (0, 0.5), RMS error against the exact piecewise-affine solution versus 1/ε, log–log.
//!
//! `cargo run --release -p moreau-ess --features plot --example ess_order [out.png]`

#[path = "../../../optim/examples/common/plot.rs"]
mod plot;

use moreau_ess::models::{Table1, Table1Exact};
use moreau_ess::{integrate, Dopri5Options, EssOptions};
use nalgebra::{DVector, Vector3};
use plotters::prelude::*;

/// 1/ε range used for the fit, 10^1.5 to 10^4.5 (the paper's grey rectangle): away from both flat tails.
const FIT: (f64, f64) = (31.622776601683793, 31622.776601683792);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    plot::init_font();
    let x0 = DVector::from_vec(vec![-0.4, -0.15, 0.3]);
    let exact = Table1Exact::new(Vector3::new(-0.4, -0.15, 0.3), 0.5);
    println!("exact guard crossings at t = {:?}", exact.crossing_times());
    let mut data = vec![];
    println!(
        "{:>12} {:>14} {:>7} {:>6}",
        "1/eps", "RMS", "events", "steps"
    );
    for i in 0..=24 {
        let inv_eps = 10f64.powf(0.25 * i as f64);
        let opts = EssOptions {
            eps: 1.0 / inv_eps,
            ode: Dopri5Options {
                rtol: 1e-12,
                atol: 1e-12,
                ..Default::default()
            },
            ..Default::default()
        };
        let tr = integrate(&Table1, 0.0, &x0, 0.5, &opts)?;
        let s: f64 =
            tr.t.iter()
                .zip(&tr.x)
                .map(|(t, x)| (Vector3::new(x[0], x[1], x[2]) - exact.at(*t)).norm_squared())
                .sum();
        let rms = (s / tr.t.len() as f64).sqrt();
        println!(
            "{inv_eps:>12.3} {rms:>14.4e} {:>7} {:>6}",
            tr.events.len(),
            tr.stats.accepted
        );
        data.push((inv_eps, rms));
    }
    let (fx, fy): (Vec<f64>, Vec<f64>) = data
        .iter()
        .filter(|(e, _)| *e >= FIT.0 * 0.999 && *e <= FIT.1 * 1.001)
        .map(|(e, r)| (e.ln(), r.ln()))
        .unzip();
    let (a, b) = plot::linear_fit(&fx, &fy);
    let order = -b;
    println!(
        "fitted order (least squares of log RMS on log 1/eps over [{:.1}, {:.1}]): {order:.3}",
        FIT.0, FIT.1
    );

    let path = plot::out_path("ess_order.png");
    let root = BitMapBackend::new(&path, (900, 650)).into_drawing_area();
    root.fill(&WHITE)?;
    let (ymin, ymax) = data
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), (_, r)| {
            (lo.min(*r), hi.max(*r))
        });
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("ESS order test (Anderson & Revzen Table 1): fitted order {order:.2}"),
            ("sans-serif", 24),
        )
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(
            (0.8f64..1.3e6).log_scale(),
            (ymin * 0.3..ymax * 3.0).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("1/ε")
        .y_desc("RMS error")
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .x_label_formatter(&|v| format!("{v:.0e}"))
        .draw()?;
    chart.draw_series(std::iter::once(Rectangle::new(
        [(FIT.0, ymin * 0.3), (FIT.1, ymax * 3.0)],
        RGBColor(200, 200, 200).mix(0.4).filled(),
    )))?;
    // Start the fit line where it enters the plot (plotters does not clip log-scale lines).
    let e_top = (((ymax * 3.0).ln() - a) / b).exp().max(0.8);
    let fit_line = [e_top, 1.3e6].map(|e: f64| (e, (a + b * e.ln()).exp()));
    chart
        .draw_series(DashedLineSeries::new(
            fit_line,
            10,
            6,
            ShapeStyle::from(&BLUE).stroke_width(2),
        ))?
        .label(format!("fit: RMS ∝ ε^{order:.2}"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    chart
        .draw_series(LineSeries::new(data.iter().copied(), RED.stroke_width(2)))?
        .label("ESS integrator")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    chart.draw_series(data.iter().map(|&p| Circle::new(p, 3, RED.filled())))?;
    plot::legend(&mut chart, SeriesLabelPosition::MiddleRight)?;
    plot::present(&root, &path)?;
    Ok(())
}
