//! Shared plotting helpers for the optimization examples (PNG via plotters, font shipped in assets/).

use plotters::style::{register_font, FontStyle};
use std::path::PathBuf;

/// Registers the shipped DejaVu Sans as "sans-serif" (plotters' ab_glyph backend has no system fonts).
pub fn init_font() {
    let bytes: &'static [u8] = include_bytes!("../../../assets/DejaVuSans.ttf");
    if register_font("sans-serif", FontStyle::Normal, bytes).is_err() {
        eprintln!("warning: could not register the font; text may be missing");
    }
}

/// Output path: the first command-line argument ending in `.png`, else `target/plots/<name>`.
pub fn out_path(name: &str) -> PathBuf {
    let p = std::env::args()
        .skip(1)
        .find(|a| a.ends_with(".png"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/plots").join(name));
    if let Some(dir) = p.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    p
}

/// Least-squares line `y = a + b x`; returns `(a, b)`.
#[allow(dead_code)]
pub fn linear_fit(xs: &[f64], ys: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let num: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let b = num / den;
    (my - b * mx, b)
}

/// One run of a trajectory figure: its `qpos` rows (one per `dt`), and, when known, the
/// controls applied from each row and the total normal contact force at each row (N).
#[allow(dead_code)]
pub struct Run<'a> {
    pub name: &'a str,
    pub qpos: &'a [Vec<f64>],
    pub ctrl: Option<&'a [Vec<f64>]>,
    pub contact: Option<Vec<f64>>,
}

#[allow(dead_code)]
impl<'a> Run<'a> {
    pub fn new(name: &'a str, qpos: &'a [Vec<f64>]) -> Self {
        Run {
            name,
            qpos,
            ctrl: None,
            contact: None,
        }
    }
}

/// The sum of the normal forces of the active contacts (`mj_contactForce`'s first entry) at
/// each state `(qpos, qvel)` under `ctrl` (row t, else the last row), from `forward`.
#[allow(dead_code)]
pub fn contact_normal_force(
    m: &moreau::Model,
    qpos: &[Vec<f64>],
    qvel: &[Vec<f64>],
    ctrl: &[Vec<f64>],
) -> Vec<f64> {
    let mut d = moreau::Data::<f64>::new(m);
    qpos.iter()
        .zip(qvel)
        .enumerate()
        .map(|(t, (q, v))| {
            d.qpos.copy_from_slice(q);
            d.qvel.copy_from_slice(v);
            if let Some(u) = ctrl.get(t).or(ctrl.last()) {
                d.ctrl.copy_from_slice(u);
            }
            moreau::forward(m, &mut d);
            (0..d.contact.len())
                .filter(|&i| d.contact[i].exclude == 0)
                .map(|i| moreau::pipeline::contact_force(m, &d, i)[0])
                .sum()
        })
        .collect()
}

/// A trajectory figure in `path`: the title, one legend (a strip under the title, a colour
/// per run), then one panel per `(label with unit, qpos index, scale)` of `qpos[index]·scale`
/// against time (rows `dt` apart), then the controls (one panel per actuator named in
/// `ctrl_names`, with `ctrl_unit`, for runs that have them) and the total normal contact force
/// (for runs that have it).
#[allow(dead_code)]
#[allow(clippy::too_many_arguments)]
pub fn figure(
    path: &str,
    width: u32,
    title: &str,
    runs: &[Run],
    dt: f64,
    panels: &[(&str, usize, f64)],
    ctrl_names: &[String],
    ctrl_unit: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    type Series = Vec<Vec<(f64, f64)>>;
    // every panel: (y label, per run its points or none)
    let mut rows: Vec<(String, Series)> = panels
        .iter()
        .map(|&(label, idx, scale)| {
            let pts = runs
                .iter()
                .map(|r| {
                    r.qpos
                        .iter()
                        .enumerate()
                        .map(|(t, q)| (t as f64 * dt, q[idx] * scale))
                        .collect()
                })
                .collect();
            (label.to_string(), pts)
        })
        .collect();
    if runs.iter().any(|r| r.ctrl.is_some()) {
        for (a, name) in ctrl_names.iter().enumerate() {
            let pts = runs
                .iter()
                .map(|r| {
                    r.ctrl.map_or_else(Vec::new, |c| {
                        // a control holds over its step: draw it as a staircase
                        c.iter()
                            .enumerate()
                            .flat_map(|(t, u)| [(t as f64 * dt, u[a]), ((t + 1) as f64 * dt, u[a])])
                            .collect()
                    })
                })
                .collect();
            rows.push((format!("ctrl {name} ({ctrl_unit})"), pts));
        }
    }
    if runs.iter().any(|r| r.contact.is_some()) {
        let pts = runs
            .iter()
            .map(|r| {
                r.contact.as_ref().map_or_else(Vec::new, |f| {
                    f.iter()
                        .enumerate()
                        .map(|(t, f)| (t as f64 * dt, *f))
                        .collect()
                })
            })
            .collect();
        rows.push(("contact normal force (N)".into(), pts));
    }
    let (head, panel_h) = (70u32, 170u32);
    let root =
        BitMapBackend::new(path, (width, head + panel_h * rows.len() as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, body) = root.split_vertically(head);
    top.draw(&Text::new(
        title.to_string(),
        (12, 8),
        ("sans-serif", 22).into_font().color(&BLACK),
    ))?;
    // the one legend: a short line and the name per run
    let mut x = 16;
    for (i, r) in runs.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        top.draw(&PathElement::new(
            vec![(x, 50), (x + 28, 50)],
            color.stroke_width(3),
        ))?;
        top.draw(&Text::new(
            r.name.to_string(),
            (x + 34, 42),
            ("sans-serif", 16).into_font().color(&BLACK),
        ))?;
        x += 34 + 9 * r.name.chars().count() as i32 + 24;
    }
    let tmax = rows
        .iter()
        .flat_map(|(_, s)| s.iter().flatten().map(|p| p.0))
        .fold(dt, f64::max);
    let areas = body.split_evenly((rows.len(), 1));
    let last = rows.len() - 1;
    for (k, (label, series)) in rows.iter().enumerate() {
        let vals = series
            .iter()
            .flatten()
            .map(|p| p.1)
            .filter(|v| v.is_finite());
        let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        let (lo, hi) = if lo <= hi { (lo, hi) } else { (0.0, 1.0) };
        let pad = 0.06 * (hi - lo).max(1e-3);
        let mut ch = ChartBuilder::on(&areas[k])
            .margin_left(8)
            .margin_right(16)
            .margin_top(6)
            .x_label_area_size(if k == last { 36 } else { 18 })
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..tmax, (lo - pad)..(hi + pad))?;
        let mut mesh = ch.configure_mesh();
        mesh.y_desc(label.as_str()).light_line_style(WHITE.mix(0.0));
        if k == last {
            mesh.x_desc("time (s)");
        }
        mesh.draw()?;
        for (i, pts) in series.iter().enumerate() {
            if pts.is_empty() {
                continue;
            }
            let color = Palette99::pick(i).to_rgba();
            ch.draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?;
        }
    }
    root.present()?;
    println!("wrote {path}");
    Ok(())
}

/// The unit of the controls of `m` when its actuators are motors on joints: N for slide
/// joints, N m for hinges (mixed or other transmissions: "ctrl units").
#[allow(dead_code)]
pub fn ctrl_unit(m: &moreau::Model) -> &'static str {
    use moreau::model::JointType;
    let kind = |a: usize| {
        let j = usize::try_from(m.actuator_trnid[a][0]).ok()?;
        m.jnt_type.get(j).copied()
    };
    let kinds: Vec<_> = (0..m.nu).map(kind).collect();
    if kinds.iter().all(|k| *k == Some(JointType::Slide)) {
        "N"
    } else if kinds.iter().all(|k| *k == Some(JointType::Hinge)) {
        "N m"
    } else {
        "ctrl units"
    }
}

/// [`figure`] with positions only.
#[allow(dead_code)]
pub fn qpos_panels(
    path: &str,
    width: u32,
    title: &str,
    runs: &[(&str, &[Vec<f64>])],
    dt: f64,
    panels: &[(&str, usize, f64)],
) -> Result<(), Box<dyn std::error::Error>> {
    let runs: Vec<Run> = runs.iter().map(|&(n, q)| Run::new(n, q)).collect();
    figure(path, width, title, &runs, dt, panels, &[], "")
}

/// `(label with unit, qpos address, 1)` for each joint coordinate a panel can show: slide
/// joints in m, hinge joints in rad, free joints' position (x, y, z in m).
#[allow(dead_code)]
pub fn joint_panels(m: &moreau::Model) -> Vec<(String, usize, f64)> {
    use moreau::model::JointType;
    let mut out = Vec::new();
    for j in 0..m.njnt {
        let (name, adr) = (&m.jnt_name[j], m.jnt_qposadr[j]);
        match m.jnt_type[j] {
            JointType::Slide => out.push((format!("{name} (m)"), adr, 1.0)),
            JointType::Hinge => out.push((format!("{name} (rad)"), adr, 1.0)),
            JointType::Free => {
                for (k, c) in ["x", "y", "z"].iter().enumerate() {
                    out.push((format!("{name} {c} (m)"), adr + k, 1.0));
                }
            }
            JointType::Ball => {}
        }
    }
    out
}

/// Draws the legend of `ch` at `pos`: black border, translucent white background.
#[allow(dead_code)]
pub fn legend<'a, CT: plotters::coord::CoordTranslate>(
    ch: &mut plotters::chart::ChartContext<'a, plotters::prelude::BitMapBackend<'a>, CT>,
    pos: plotters::chart::SeriesLabelPosition,
) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    ch.configure_series_labels()
        .position(pos)
        .border_style(BLACK)
        .background_style(WHITE.mix(0.8))
        .draw()?;
    Ok(())
}

/// A line through `pts` in `color` (stroke `width`) with the legend entry `label`.
#[allow(dead_code)]
pub fn line<'a, X, Y>(
    ch: &mut plotters::chart::ChartContext<
        'a,
        plotters::prelude::BitMapBackend<'a>,
        plotters::coord::cartesian::Cartesian2d<X, Y>,
    >,
    pts: impl IntoIterator<Item = (X::ValueType, Y::ValueType)>,
    color: plotters::style::RGBColor,
    width: u32,
    label: impl Into<String>,
) -> Result<(), Box<dyn std::error::Error>>
where
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
    X::ValueType: Clone + 'static,
    Y::ValueType: Clone + 'static,
{
    use plotters::prelude::*;
    ch.draw_series(LineSeries::new(pts, color.stroke_width(width)))?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    Ok(())
}

/// Writes the figure `root` to its file `path` and says so.
#[allow(dead_code)]
pub fn present(
    root: &plotters::drawing::DrawingArea<
        plotters::prelude::BitMapBackend<'_>,
        plotters::coord::Shift,
    >,
    path: impl AsRef<std::path::Path>,
) -> Result<(), Box<dyn std::error::Error>> {
    root.present()?;
    println!("wrote {}", path.as_ref().display());
    Ok(())
}
