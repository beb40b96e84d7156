//! What the MPC examples (`mpc_cartpole`, `mpc_hopper`, `mpc_quadruped`) share: a closed loop
//! behind a progress bar, the trajectories written as JSON under `target/mpc/`, and (with
//! `--features plot`) the planner-cost chart.

#![allow(dead_code)]

use moreau::Data;
use moreau_optim::mpc::ClosedLoop;
use moreau_optim::progress::bar;

/// One controller's closed loop.
pub struct Row {
    pub name: String,
    pub slug: String,
    pub run: ClosedLoop,
    /// Planner cost before / after each solve (iLQR only).
    pub costs: Vec<(f64, f64)>,
}

/// The planners named by `--planner`'s value (comma-separated slugs of `planners`, or `all`),
/// an error naming the known ones for any other.
pub fn chosen<'a>(value: &'a str, planners: &[(&'a str, &str)]) -> Result<Vec<&'a str>, String> {
    let slugs: Vec<&str> = planners.iter().map(|p| p.0).collect();
    if value == "all" {
        return Ok(slugs);
    }
    let chosen: Vec<&str> = value.split(',').collect();
    for c in &chosen {
        if !slugs.contains(c) {
            return Err(format!("unknown planner {c} ({} or all)", slugs.join(", ")));
        }
    }
    Ok(chosen)
}

/// Runs `closed(on_step)` behind a progress bar of `steps` control steps labelled `label`,
/// whose message is `msg(d)` after each step (`on_step` is what `closed` passes to
/// [`moreau_optim::mpc::closed_loop`]).
pub fn with_bar<T>(
    steps: usize,
    label: &str,
    msg: impl Fn(&Data) -> String + Sync,
    closed: impl FnOnce(&mut (dyn FnMut(usize, &Data) + Send)) -> T,
) -> T {
    let pb = bar(steps as u64, label);
    let out = closed(&mut |_, d| {
        pb.set_message(msg(d));
        pb.inc(1)
    });
    pb.finish();
    out
}

/// Writes each closed loop as `target/mpc/<prefix>_<slug>.json` (`moreau simulate`'s format
/// plus `ctrl`, `model`, `controller`, `planner_cost`, `fallbacks` (control steps that applied
/// the previous plan after a failed solve, [`ClosedLoop::fallbacks`]) and the keys of `extra`,
/// an object), loading the model file `model` for the trajectory pages ([`write_json_for`]).
pub fn write_json<'a>(
    prefix: &str,
    model: &str,
    rows: impl IntoIterator<Item = (&'a str, &'a str, &'a ClosedLoop, serde_json::Value)>,
    extra: &serde_json::Value,
) -> Result<(), String> {
    let m = moreau::load(model).map_err(|e| e.to_string())?;
    write_json_for(&m, prefix, model, rows, extra)
}

/// [`write_json`] with `m`, the model loaded from the file `model` unchanged, drawn by the
/// pages (no second copy of a robot's meshes and textures). Each file is streamed to disk.
pub fn write_json_for<'a>(
    m: &moreau::Model,
    prefix: &str,
    model: &str,
    rows: impl IntoIterator<Item = (&'a str, &'a str, &'a ClosedLoop, serde_json::Value)>,
    extra: &serde_json::Value,
) -> Result<(), String> {
    std::fs::create_dir_all("target/mpc").map_err(|e| format!("target/mpc: {e}"))?;
    for (name, slug, run, planner_cost) in rows {
        let out = format!("target/mpc/{prefix}_{slug}.json");
        let mut fields = serde_json::json!({
            "model": model,
            "controller": name,
            "planner_cost": planner_cost,
            "fallbacks": run.fallbacks,
        });
        if let (Some(o), serde_json::Value::Object(e)) = (fields.as_object_mut(), extra) {
            o.extend(e.clone());
        }
        let json = run.trajectory_json(fields);
        let file = std::fs::File::create(&out).map_err(|e| format!("{out}: {e}"))?;
        let mut w = std::io::BufWriter::new(file);
        serde_json::to_writer(&mut w, &json).map_err(|e| format!("{out}: {e}"))?;
        std::io::Write::flush(&mut w).map_err(|e| format!("{out}: {e}"))?;
        println!("wrote {out}");
        crate::page::write(m, &out, &json, &format!("{prefix}: {name}"))?;
    }
    Ok(())
}

/// `(name, slug, run, planner cost before / after per solve)` of every row, for [`write_json`].
pub fn json_rows(
    rows: &[Row],
) -> impl Iterator<Item = (&str, &str, &ClosedLoop, serde_json::Value)> {
    rows.iter().map(|r| {
        let costs: Vec<[f64; 2]> = r.costs.iter().map(|c| [c.0, c.1]).collect();
        (
            r.name.as_str(),
            r.slug.as_str(),
            &r.run,
            serde_json::json!(costs),
        )
    })
}

/// A log-scale chart of planner costs per control step (step `dt`), one line per named series
/// (non-positive and non-finite values left out), written to `path`.
#[cfg(feature = "plot")]
pub fn cost_chart(
    path: &str,
    title: &str,
    ylabel: &str,
    dt: f64,
    tmax: f64,
    series: &[(String, Vec<f64>)],
) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let all = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .filter(|c| *c > 0.0 && c.is_finite());
    let (lo, hi) = all.fold((f64::INFINITY, 0.0f64), |(a, b), c| (a.min(c), b.max(c)));
    if lo.is_finite() && hi > lo {
        let mut ch = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..tmax, (lo * 0.8..hi * 1.2).log_scale())?;
        ch.configure_mesh()
            .x_desc("time (s)")
            .y_desc(ylabel)
            .draw()?;
        for (i, (name, costs)) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            ch.draw_series(LineSeries::new(
                costs.iter().enumerate().map(|(t, c)| (t as f64 * dt, *c)),
                color.stroke_width(2),
            ))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        ch.configure_series_labels().border_style(BLACK).draw()?;
    }
    root.present()?;
    println!("wrote {path}");
    Ok(())
}

/// A closed loop as a figure run: positions, controls and (when the model has any contact)
/// the total normal contact force at each control step.
#[cfg(feature = "plot")]
#[allow(dead_code)]
pub fn closed_loop_run<'a>(
    m: &moreau::Model,
    name: &'a str,
    c: &'a moreau_optim::mpc::ClosedLoop,
) -> crate::plot::Run<'a> {
    let f = crate::plot::contact_normal_force(m, &c.qpos, &c.qvel, &c.ctrl);
    crate::plot::Run {
        name,
        qpos: &c.qpos,
        ctrl: Some(&c.ctrl),
        contact: f.iter().any(|&x| x != 0.0).then_some(f),
    }
}
