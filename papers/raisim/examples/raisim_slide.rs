//! Le Lidec & Carpentier, experiment 1 (Fig. 3): a cube sliding on a plane at 1 m/s and 3 m/s
//! (`models/cube_slide.xml`: 1 kg, μ = 0.4, h = 1 ms), stepped with the hard-contact solvers
//! RaiSim, RaiSim+DS and PGS. Plots the mechanical energy against the analytic solution under
//! maximum dissipation, `E(t) = ½ m max(v0 − μ g t, 0)²`, the difference E − E_mdp and the NCP
//! criterion ε_abs.
//!
//! `cargo run --release -p moreau-raisim --features plot --example raisim_slide [out.png]`

#[path = "common/raisim_exp.rs"]
mod exp;
#[path = "../../../optim/examples/common/plot.rs"]
mod plot;
#[path = "common/solver_color.rs"]
mod solver_color;

use moreau_raisim::hard::HardSolver;
use plotters::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    plot::init_font();
    let dur = 1.0;
    let v0s = [1.0, 3.0];
    let runs: Vec<Vec<(HardSolver, exp::Slide)>> = v0s
        .iter()
        .map(|&v0| {
            HardSolver::ALL
                .iter()
                .map(|&s| (s, exp::slide(s, v0, dur)))
                .collect()
        })
        .collect();
    println!("solver       v0   max|E − E_mdp|/E0   E(t*/2) − E_mdp(t*/2) (J)   max ε_abs sliding   stop (s)");
    for (v0, rs) in v0s.iter().zip(&runs) {
        let stop = (v0 / (0.4 * 9.81) / 1e-3) as usize;
        for (s, r) in rs {
            let eps = r.eps_abs[1..stop - 1].iter().cloned().fold(0.0, f64::max);
            let k = stop / 2;
            let t_stop = r.t[r
                .energy
                .iter()
                .position(|e| *e < 1e-12 * r.energy[0])
                .unwrap()];
            println!(
                "{:<10} {v0:>4} {:>18.3e} {:>26.3e} {:>19.3e} {t_stop:>10.3}",
                s.name(),
                r.max_rel_err,
                r.energy[k] - r.analytic[k],
                eps
            );
        }
    }

    let path = plot::out_path("raisim_slide.png");
    let root = BitMapBackend::new(&path, (1200, 1150)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        "Sliding cube (Le Lidec & Carpentier, Fig. 3): mechanical energy vs maximum dissipation",
        ("sans-serif", 24),
    )?;
    let panels = root.split_evenly((3, 2));
    for (col, (v0, rs)) in v0s.iter().zip(&runs).enumerate() {
        let e0 = rs[0].1.energy[0];
        let tmax = (1.3 * v0 / (0.4 * 9.81)).min(dur);
        let mut c = ChartBuilder::on(&panels[col])
            .caption(format!("v0 = {v0} m/s"), ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..tmax, 0.0..e0 * 1.05)?;
        c.configure_mesh()
            .x_desc("t (s)")
            .y_desc("mechanical energy (J)")
            .draw()?;
        let an = &rs[0].1;
        c.draw_series(DashedLineSeries::new(
            an.t.iter().zip(&an.analytic).map(|(t, e)| (*t, *e)),
            6,
            4,
            ShapeStyle::from(&BLACK).stroke_width(3),
        ))?
        .label("analytic (MDP)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
        for (s, r) in rs {
            let col = solver_color::solver_color(*s);
            let w = if *s == HardSolver::Pgs { 4 } else { 2 };
            plot::line(
                &mut c,
                r.t.iter().zip(&r.energy).map(|(t, e)| (*t, *e)),
                col,
                w,
                s.name(),
            )?;
        }
        plot::legend(&mut c, SeriesLabelPosition::MiddleRight)?;

        let dmax = rs
            .iter()
            .flat_map(|(_, r)| r.energy.iter().zip(&r.analytic).map(|(e, a)| e - a))
            .fold(1e-12f64, f64::max)
            * 1.1;
        let mut c = ChartBuilder::on(&panels[2 + col])
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..tmax, -0.1 * dmax..dmax)?;
        c.configure_mesh()
            .x_desc("t (s)")
            .y_desc("E − E_mdp (J)")
            .y_label_formatter(&|v| format!("{v:.1e}"))
            .draw()?;
        for (s, r) in rs {
            let col = solver_color::solver_color(*s);
            let w = if *s == HardSolver::Pgs { 4 } else { 2 };
            plot::line(
                &mut c,
                r.t.iter()
                    .zip(r.energy.iter().zip(&r.analytic))
                    .map(|(t, (e, a))| (*t, e - a)),
                col,
                w,
                s.name(),
            )?;
        }
        plot::legend(&mut c, SeriesLabelPosition::MiddleRight)?;

        let mut c = ChartBuilder::on(&panels[4 + col])
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..tmax, (1e-14..1.0).log_scale())?;
        c.configure_mesh()
            .x_desc("t (s)")
            .y_desc("ε_abs")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()?;
        for (s, r) in rs {
            let col = solver_color::solver_color(*s);
            plot::line(
                &mut c,
                r.t.iter()
                    .zip(&r.eps_abs)
                    .skip(1)
                    .map(|(t, e)| (*t, e.max(1e-14))),
                col,
                2,
                s.name(),
            )?;
        }
        plot::legend(&mut c, SeriesLabelPosition::MiddleRight)?;
    }
    plot::present(&root, &path)?;
    Ok(())
}
