//! What every chart shares: size, colours, fonts, the text-width estimate, number labels, the
//! title and the legend.

use crate::error::{Error, Result, draw};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width of every chart, in pixels (the height follows the content).
pub const WIDTH: u32 = 900;

/// The font family every text uses: the viewer's sans-serif.
pub(crate) const FAMILY: &str = "sans-serif";
/// Font sizes in `plotters` units (the SVG gets `size / 1.24` px).
pub(crate) const TITLE_SIZE: f64 = 24.0;
pub(crate) const LABEL_SIZE: f64 = 17.0;
pub(crate) const AXIS_TITLE_SIZE: f64 = 18.0;

/// Series colours, in order (the colour-blind-safe Okabe-Ito palette).
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// The colour of series `i`.
pub(crate) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A text style of `size`, anchored at `h` / `v`.
pub(crate) fn text(size: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from((FAMILY, size).into_font()).pos(Pos::new(h, v))
}

/// A generous estimate of the width in pixels of `s` at `size`: the SVG draws it at
/// `size / 1.24` px, and a sans-serif character is at most about 0.62 em wide on average
/// (capitals and underscores included). Over-estimating only leaves blank space; it never cuts.
pub(crate) fn text_width(s: &str, size: f64) -> u32 {
    let em = size / 1.24;
    (s.chars().count() as f64 * em * 0.62).ceil() as u32
}

/// Fails unless `values` is non-empty and finite.
pub(crate) fn check_values(what: &str, values: &[f64]) -> Result<()> {
    if values.is_empty() {
        return Err(Error::Data(format!("{what}: no values")));
    }
    if let Some(v) = values.iter().find(|v| !v.is_finite()) {
        return Err(Error::Data(format!("{what}: {v} is not finite")));
    }
    Ok(())
}

/// The smallest and largest of `values`.
pub(crate) fn min_max<'a>(values: impl IntoIterator<Item = &'a f64>) -> (f64, f64) {
    values
        .into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        })
}

/// A short number: three significant digits, thousands separated, no trailing zeros.
pub(crate) fn number(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if v.abs() >= 1e9 || v.abs() < 1e-3 {
        return format!("{v:.2e}");
    }
    let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{:.decimals$}", v.abs());
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    };
    let (int, frac) = s.split_once('.').map_or((s.as_str(), ""), |(i, f)| (i, f));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if v < 0.0 { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{frac}")
    }
}

/// Height of the legend: one row per line the names need.
fn legend_rows(names: &[&str]) -> Vec<Vec<(usize, u32)>> {
    let mut rows: Vec<Vec<(usize, u32)>> = vec![Vec::new()];
    let mut used = 0;
    for (i, name) in names.iter().enumerate() {
        let w = 14 + 6 + text_width(name, LABEL_SIZE) + 24;
        if used + w > WIDTH - 40 && !rows.last().is_some_and(Vec::is_empty) {
            rows.push(Vec::new());
            used = 0;
        }
        if let Some(row) = rows.last_mut() {
            row.push((i, w));
        }
        used += w;
    }
    rows
}

/// Height of the title and legend band above the plot.
pub(crate) fn header_height(names: &[&str]) -> u32 {
    let legend = if names.len() > 1 {
        legend_rows(names).len() as u32 * 24 + 6
    } else {
        0
    };
    44 + legend
}

/// Draws `title` and, for more than one series, a legend of `names` into `area`.
pub(crate) fn header(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    title: &str,
    names: &[&str],
) -> Result<()> {
    area.draw(&Text::new(
        title.to_owned(),
        ((WIDTH / 2) as i32, 12),
        text(TITLE_SIZE, HPos::Center, VPos::Top),
    ))
    .map_err(draw)?;
    if names.len() < 2 {
        return Ok(());
    }
    for (r, row) in legend_rows(names).iter().enumerate() {
        let total: u32 = row.iter().map(|(_, w)| w).sum();
        let mut x = (WIDTH.saturating_sub(total) / 2) as i32;
        let y = 48 + r as i32 * 24;
        for &(i, w) in row {
            area.draw(&Rectangle::new(
                [(x, y), (x + 14, y + 14)],
                colour(i).filled(),
            ))
            .map_err(draw)?;
            area.draw(&Text::new(
                names[i].to_owned(),
                (x + 20, y + 7),
                text(LABEL_SIZE, HPos::Left, VPos::Center),
            ))
            .map_err(draw)?;
            x += w as i32;
        }
    }
    Ok(())
}
