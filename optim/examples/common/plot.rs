//! Shared plotting helpers for the seed-002 examples (PNG via plotters, font shipped in assets/).

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

/// One panel per `(label, qpos index, scale)` of `qpos[index]·scale` against time (step `dt`),
/// one coloured line per named run, legend in the first panel; written to `path`.
#[allow(dead_code)]
pub fn qpos_panels(
    path: &str,
    size: (u32, u32),
    runs: &[(&str, &[Vec<f64>])],
    dt: f64,
    panels: &[(&str, usize, f64)],
) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    let root = BitMapBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((panels.len(), 1));
    let tmax = dt * runs.iter().map(|r| r.1.len()).max().unwrap_or(1) as f64;
    for (k, &(label, idx, scale)) in panels.iter().enumerate() {
        let vals = runs
            .iter()
            .flat_map(|r| r.1.iter().map(move |q| q[idx] * scale));
        let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        let pad = 0.05 * (hi - lo).max(1e-3);
        let mut ch = ChartBuilder::on(&areas[k])
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..tmax, (lo - pad)..(hi + pad))?;
        ch.configure_mesh()
            .x_desc("time (s)")
            .y_desc(label)
            .draw()?;
        for (i, (name, qpos)) in runs.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            ch.draw_series(LineSeries::new(
                qpos.iter()
                    .enumerate()
                    .map(|(t, q)| (t as f64 * dt, q[idx] * scale)),
                color.stroke_width(2),
            ))?
            .label(name.to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        if k == 0 {
            ch.configure_series_labels()
                .border_style(BLACK)
                .background_style(WHITE.mix(0.8))
                .draw()?;
        }
    }
    root.present()?;
    println!("wrote {path}");
    Ok(())
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
