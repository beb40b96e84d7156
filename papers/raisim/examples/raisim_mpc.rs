//! Le Lidec & Carpentier, experiment 3 (Fig. 5): predictive-sampling MPC walking the quadruped
//! forward on a slippery floor (μ = 0.3), with RaiSim, RaiSim+DS and PGS as both the plant's and
//! the planner's contact solver (`examples/common/raisim_mpc.rs` has the setup). Prints per solver
//! mean/max ε_abs (all, sticking, sliding contacts), the stage cost per control step, forward
//! progress, torso height and wall time per step, and plots ε_abs and the cost over time.
//!
//! `cargo run --release -p moreau-raisim --features plot --example raisim_mpc [out.png]`

#[path = "common/raisim_mpc.rs"]
mod exp;
#[path = "../../../optim/examples/common/plot.rs"]
mod plot;
#[path = "common/solver_color.rs"]
mod solver_color;

use exp::{mean, MpcRun};
use moreau_raisim::hard::HardSolver;
use plotters::prelude::*;

type Panel<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

#[allow(clippy::too_many_arguments)]
fn panel(
    area: &Panel,
    title: &str,
    ylabel: &str,
    runs: &[(HardSolver, MpcRun)],
    series: &dyn Fn(&MpcRun) -> Vec<(f64, f64)>,
    log: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let all: Vec<Vec<(f64, f64)>> = runs.iter().map(|(_, r)| series(r)).collect();
    let tmax = all
        .iter()
        .flatten()
        .map(|p| p.0)
        .fold(0.0f64, f64::max)
        .max(1e-3);
    let ys = all.iter().flatten().map(|p| p.1);
    let (ymin, ymax) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
        (a.min(y), b.max(y))
    });
    let mut c = ChartBuilder::on(area);
    c.caption(title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70);
    macro_rules! draw {
        ($chart:expr) => {{
            let mut ch = $chart;
            ch.configure_mesh()
                .x_desc("t (s)")
                .y_desc(ylabel)
                .y_label_formatter(&|v| format!("{v:.1e}"))
                .draw()?;
            for ((s, _), pts) in runs.iter().zip(&all) {
                let col = solver_color::solver_color(*s);
                plot::line(&mut ch, pts.iter().cloned(), col, 2, s.name())?;
            }
            plot::legend(&mut ch, SeriesLabelPosition::UpperRight)?;
        }};
    }
    if log {
        let lo = ymin.max(1e-14);
        let hi = ymax.max(lo * 10.0) * 2.0;
        draw!(c.build_cartesian_2d(0.0..tmax, (lo..hi).log_scale())?);
    } else {
        let pad = 0.05 * (ymax - ymin).max(1e-9);
        draw!(c.build_cartesian_2d(0.0..tmax, ymin - pad..ymax + pad)?);
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    plot::init_font();
    let m = exp::model()?;
    let s = exp::Settings::example();
    println!(
        "quadruped, μ = {}, h = {} s, {} GS sweeps; sampling MPC: {} rollouts × {} steps, \
         re-plan every {} steps, {} s",
        exp::MU,
        exp::H,
        exp::ITERS,
        s.rollouts,
        s.horizon,
        s.substeps,
        s.control_steps as f64 * s.substeps as f64 * exp::H
    );
    let runs = exp::run_all(&m, &s)?;
    exp::print_table(&runs);
    println!(
        "ε: NCP criterion ε_abs per physics step (mean over steps, max); st/sl: sticking/sliding \
         contacts (sliding: ‖c_T‖ > {} m/s), slide%: sliding contact-steps; cost: stage cost per \
         control step (mean); step µs: wall time of one plant hard step; plan ms: of one MPC plan \
         ({} rollouts × {} hard steps); conv%: steps whose Gauss-Seidel met the tolerance before \
         {} sweeps; lim err: largest joint-limit NCP error",
        exp::V_SLIDE,
        s.rollouts,
        s.horizon,
        exp::ITERS
    );
    println!("(z at stance {:.3} m)", runs[0].1.z_stand);
    let pgs = &runs[2].1;
    for (solver, r) in &runs[..2] {
        match exp::departure(r, pgs, 1e-3) {
            Some(t) => println!(
                "{} departs from PGS's trajectory (torso x or z by > 1 mm) at t = {t:.3} s",
                solver.name()
            ),
            None => println!("{} stays within 1 mm of PGS's trajectory", solver.name()),
        }
    }

    let path = plot::out_path("raisim_mpc.png");
    let root = BitMapBackend::new(&path, (1400, 1150)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        "Quadruped sampling MPC on μ = 0.3 (Le Lidec & Carpentier, exp. 3): RaiSim vs RaiSim+DS vs PGS",
        ("sans-serif", 24),
    )?;
    let p = root.split_evenly((3, 2));
    let floor = |v: f64| v.max(1e-14);
    panel(
        &p[0],
        "ε_abs, all contacts (per physics step)",
        "ε_abs",
        &runs,
        &|r| {
            r.t.iter()
                .zip(&r.eps_abs)
                .map(|(t, e)| (*t, floor(*e)))
                .collect()
        },
        true,
    )?;
    panel(
        &p[1],
        "ε_abs, sliding contacts",
        "ε_abs",
        &runs,
        &|r| {
            r.t.iter()
                .zip(&r.eps_slide)
                .filter(|(_, e)| **e > 0.0)
                .map(|(t, e)| (*t, floor(*e)))
                .collect()
        },
        true,
    )?;
    panel(
        &p[2],
        "stage cost per control step",
        "cost",
        &runs,
        &|r| r.tc.iter().zip(&r.cost).map(|(t, c)| (*t, *c)).collect(),
        false,
    )?;
    panel(
        &p[3],
        "wall time per plant step (mean over each control step)",
        "s",
        &runs,
        &|r| {
            r.tc.iter()
                .zip(r.step_secs.chunks(s.substeps))
                .map(|(t, c)| (*t, mean(c)))
                .collect()
        },
        true,
    )?;
    panel(
        &p[4],
        "torso height",
        "z (m)",
        &runs,
        &|r| r.tc.iter().zip(&r.z).map(|(t, c)| (*t, *c)).collect(),
        false,
    )?;
    panel(
        &p[5],
        "forward progress",
        "x (m)",
        &runs,
        &|r| r.tc.iter().zip(&r.x).map(|(t, c)| (*t, *c)).collect(),
        false,
    )?;
    plot::present(&root, &path)?;
    Ok(())
}
