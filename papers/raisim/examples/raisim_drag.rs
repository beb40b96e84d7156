//! Le Lidec & Carpentier, experiment 2 (Fig. 4): a cube (`models/cube_slide.xml`: 1 kg, μ = 0.4, h
//! = 1 ms) dragged along x by a force growing at 4 N/s, applied at its centre of mass, stepped with
//! RaiSim, RaiSim+DS and PGS. Plots the internal y-forces at the four contacts (RaiSim, RaiSim+DS),
//! the velocity minus the maximum-dissipation solution `v_x = rate (t − t_slip)² / 2m` and the NCP
//! criterion ε_abs.
//!
//! `cargo run --release -p moreau-raisim --features plot --example raisim_drag [out.png]`

#[path = "common/raisim_exp.rs"]
mod exp;
#[path = "../../../optim/examples/common/plot.rs"]
mod plot;
#[path = "common/solver_color.rs"]
mod solver_color;

use moreau_raisim::hard::HardSolver;
use plotters::prelude::*;

const RATE: f64 = 4.0;

const CORNER: [RGBColor; 4] = [
    RGBColor(200, 30, 30),
    RGBColor(30, 120, 200),
    RGBColor(40, 160, 40),
    RGBColor(200, 140, 0),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    plot::init_font();
    let dur = 2.0;
    let runs: Vec<(HardSolver, exp::Drag)> = HardSolver::ALL
        .iter()
        .map(|&s| (s, exp::drag(s, RATE, dur)))
        .collect();
    let t_slip = runs[0].1.t_slip;
    let vmdp = |t: f64| RATE * (t - t_slip).max(0.0).powi(2) / 2.0;
    println!("t_slip (force = μ m g) = {t_slip:.3} s");
    println!("solver      max|f_y| stick (N)  max|f_y| slide (N)  max ε_abs stick  max ε_abs slide  v_x(2 s)  max|v_x − v_mdp|");
    for (s, r) in &runs {
        let stick_end = r.vx.iter().position(|v| *v > 1e-6).unwrap() - 10;
        let (mut fs, mut fl, mut es, mut el) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        let mut dev = 0.0f64;
        for k in 0..r.t.len() {
            let fy = r.fy[k].iter().fold(0.0f64, |a, b| a.max(b.abs()));
            if r.vx[k] > 1e-3 {
                fl = fl.max(fy);
                el = el.max(r.eps_abs[k]);
            } else if k < stick_end {
                fs = fs.max(fy);
                es = es.max(r.eps_abs[k]);
            }
            dev = dev.max((r.vx[k] - vmdp(r.t[k])).abs());
        }
        println!(
            "{:<10} {fs:>19.3e} {fl:>19.3e} {es:>16.3e} {el:>16.3e} {:>9.5} {dev:>17.3e}",
            s.name(),
            r.vx.last().unwrap()
        );
    }

    let path = plot::out_path("raisim_drag.png");
    let root = BitMapBackend::new(&path, (1200, 900)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        "Dragged cube (Le Lidec & Carpentier, Fig. 4): internal forces, velocity, NCP criterion",
        ("sans-serif", 24),
    )?;
    let panels = root.split_evenly((2, 2));
    let fmax = runs
        .iter()
        .flat_map(|(_, r)| r.fy.iter().flat_map(|f| f.iter()))
        .fold(0.0f64, |a, b| a.max(b.abs()))
        * 1.1;
    for (p, (s, r)) in runs.iter().take(2).enumerate() {
        let mut c = ChartBuilder::on(&panels[p])
            .caption(
                format!("{}: contact y-forces", s.name()),
                ("sans-serif", 20),
            )
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..dur, -fmax..fmax)?;
        c.configure_mesh()
            .x_desc("t (s)")
            .y_desc("f_y (N)")
            .draw()?;
        for (k, col) in CORNER.iter().enumerate() {
            plot::line(
                &mut c,
                r.t.iter().zip(&r.fy).map(|(t, f)| (*t, f[k])),
                *col,
                2,
                format!("contact {}", k + 1),
            )?;
        }
        c.draw_series(DashedLineSeries::new(
            [(t_slip, -fmax), (t_slip, fmax)],
            5,
            5,
            ShapeStyle::from(&BLACK).stroke_width(1),
        ))?;
        plot::legend(&mut c, SeriesLabelPosition::MiddleRight)?;
    }
    let dmax = runs
        .iter()
        .flat_map(|(_, r)| r.t.iter().zip(&r.vx).map(|(t, v)| v - vmdp(*t)))
        .fold(1e-12f64, f64::max)
        * 1.1;
    let mut c = ChartBuilder::on(&panels[2])
        .caption(
            "velocity minus the MDP solution rate (t − t_slip)² / 2m",
            ("sans-serif", 20),
        )
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..dur, -0.15 * dmax..dmax)?;
    c.configure_mesh()
        .x_desc("t (s)")
        .y_desc("v_x − v_mdp (m/s)")
        .y_label_formatter(&|v| format!("{v:.1e}"))
        .draw()?;
    for (s, r) in &runs {
        let col = solver_color::solver_color(*s);
        let w = if *s == HardSolver::Pgs { 4 } else { 2 };
        plot::line(
            &mut c,
            r.t.iter().zip(&r.vx).map(|(t, v)| (*t, v - vmdp(*t))),
            col,
            w,
            s.name(),
        )?;
    }
    plot::legend(&mut c, SeriesLabelPosition::UpperLeft)?;
    let mut c = ChartBuilder::on(&panels[3])
        .caption("NCP criterion", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..dur, (1e-14..1.0).log_scale())?;
    c.configure_mesh()
        .x_desc("t (s)")
        .y_desc("ε_abs")
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()?;
    for (s, r) in &runs {
        let col = solver_color::solver_color(*s);
        plot::line(
            &mut c,
            r.t.iter().zip(&r.eps_abs).map(|(t, e)| (*t, e.max(1e-14))),
            col,
            2,
            s.name(),
        )?;
    }
    plot::legend(&mut c, SeriesLabelPosition::UpperLeft)?;
    plot::present(&root, &path)?;
    Ok(())
}
