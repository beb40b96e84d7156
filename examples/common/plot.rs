//! Shared plotting helpers for the seed-002 examples (PNG via plotters, font shipped in assets/).

use plotters::style::{register_font, FontStyle};
use std::path::PathBuf;

/// Registers the shipped DejaVu Sans as "sans-serif" (plotters' ab_glyph backend has no system fonts).
pub fn init_font() {
    let bytes: &'static [u8] = include_bytes!("../../assets/DejaVuSans.ttf");
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
