//! The three chart kinds, drawn onto an [`Image`] and saved as PNG.

use crate::{
    axis::Axis,
    error::{Error, Result},
    image::{GLYPH, HEIGHT, Image, Rgb, WIDTH, text_width},
};
use std::path::Path;

/// Series colours, in order (colour-blind-safe Okabe-Ito palette).
const PALETTE: [Rgb; 8] = [
    Rgb(0, 114, 178),
    Rgb(213, 94, 0),
    Rgb(0, 158, 115),
    Rgb(204, 121, 167),
    Rgb(230, 159, 0),
    Rgb(86, 180, 233),
    Rgb(240, 228, 66),
    Rgb(0, 0, 0),
];

/// The plot area: left, top, right, bottom.
const LEFT: i32 = 90;
const TOP: i32 = 64;
const RIGHT: i32 = WIDTH as i32 - 20;
const BOTTOM: i32 = HEIGHT as i32 - 60;

fn colour(i: usize) -> Rgb {
    PALETTE[i % PALETTE.len()]
}

fn check_values(what: &str, values: &[f64]) -> Result<()> {
    if values.is_empty() {
        return Err(Error::Data(format!("{what}: no values")));
    }
    if let Some(v) = values.iter().find(|v| !v.is_finite()) {
        return Err(Error::Data(format!("{what}: {v} is not finite")));
    }
    Ok(())
}

fn range<'a>(values: impl IntoIterator<Item = &'a f64>) -> (f64, f64) {
    values
        .into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        })
}

/// Shortens `s` to at most `max` characters, marking a cut with a final `.`.
fn fit(s: &str, max: i32) -> String {
    let max = max.max(1) as usize;
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('.');
    out
}

/// Title, y axis (grid, ticks, labels, name) and x axis line. Returns the y axis.
fn frame(img: &mut Image, title: &str, y_label: &str, y_min: f64, y_max: f64) -> Axis {
    let title = fit(title, (WIDTH as i32 - 20) / (2 * GLYPH));
    img.text(
        (WIDTH as i32 - text_width(&title, 2)) / 2,
        14,
        &title,
        2,
        Rgb::BLACK,
    );
    let axis = Axis::nice(y_min, y_max);
    for t in axis.ticks() {
        let y = axis.map(t, BOTTOM, TOP);
        img.line((LEFT, y), (RIGHT, y), 1, Rgb::GRID);
        img.line((LEFT - 5, y), (LEFT, y), 1, Rgb::BLACK);
        let label = axis.label(t);
        img.text(
            LEFT - 8 - text_width(&label, 1),
            y - GLYPH / 2,
            &label,
            1,
            Rgb::BLACK,
        );
    }
    let y_label = fit(y_label, (BOTTOM - TOP) / GLYPH);
    let mid = (TOP + BOTTOM) / 2 + text_width(&y_label, 1) / 2;
    img.text_vertical(8, mid, &y_label, Rgb::BLACK);
    img.line((LEFT, TOP), (LEFT, BOTTOM), 1, Rgb::BLACK);
    axis
}

/// A one-row legend between the title and the plot area, centred.
fn legend(img: &mut Image, names: &[&str]) {
    if names.is_empty() {
        return;
    }
    let per = (RIGHT - LEFT) / names.len() as i32;
    let names: Vec<String> = names.iter().map(|n| fit(n, (per - 24) / GLYPH)).collect();
    let widths: Vec<i32> = names.iter().map(|n| text_width(n, 1) + 30).collect();
    let total: i32 = widths.iter().sum();
    let mut x = (LEFT + RIGHT - total) / 2;
    let y = 42;
    for (i, (name, w)) in names.iter().zip(widths).enumerate() {
        img.fill_rect(x, y, x + 10, y + 7, colour(i));
        img.text(x + 16, y, name, 1, Rgb::BLACK);
        x += w;
    }
}

/// A short value label: three significant digits, no trailing zeros.
fn value_label(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if v.abs() >= 1e6 || v.abs() < 1e-3 {
        return format!("{v:.2e}");
    }
    let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// Draws bars of `values` in slots along the x axis; `series` bars per slot.
fn bars(img: &mut Image, axis: &Axis, groups: &[&str], series: &[&[f64]]) {
    let n = groups.len() as i32;
    let slot = (RIGHT - LEFT) / n;
    let zero = axis.map(0.0_f64.clamp(axis.lo, axis.hi), BOTTOM, TOP);
    let inner = slot * 4 / 5;
    let bar = (inner / series.len() as i32).max(1);
    for (g, label) in groups.iter().enumerate() {
        let x_slot = LEFT + g as i32 * slot;
        let x_start = x_slot + (slot - bar * series.len() as i32) / 2;
        for (s, values) in series.iter().enumerate() {
            let x = x_start + s as i32 * bar;
            let y = axis.map(values[g], BOTTOM, TOP);
            img.fill_rect(x + 1, zero, x + bar - 1, y, colour(s));
            let label = value_label(values[g]);
            let w = text_width(&label, 1);
            if w <= bar + 4 {
                let ly = if values[g] >= 0.0 {
                    y - GLYPH - 3
                } else {
                    y + 3
                };
                img.text(x + (bar - w) / 2, ly, &label, 1, Rgb::BLACK);
            }
        }
        let label = fit(label, slot / GLYPH);
        let x = x_slot + (slot - text_width(&label, 1)) / 2;
        img.text(x, BOTTOM + 8, &label, 1, Rgb::BLACK);
    }
    img.line((LEFT, zero), (RIGHT, zero), 1, Rgb::BLACK);
}

/// Renders a bar chart: one bar per label.
pub fn render_bar(title: &str, labels: &[&str], values: &[f64], y_label: &str) -> Result<Image> {
    check_values("values", values)?;
    if labels.len() != values.len() {
        return Err(Error::Data(format!(
            "{} labels for {} values",
            labels.len(),
            values.len()
        )));
    }
    let (lo, hi) = range(values);
    let mut img = Image::new(WIDTH, HEIGHT);
    let axis = frame(&mut img, title, y_label, lo.min(0.0), hi.max(0.0));
    bars(&mut img, &axis, labels, &[values]);
    Ok(img)
}

/// Renders a grouped bar chart: for each group, one bar per series, with a legend.
/// Every series needs one value per group.
pub fn render_grouped_bar(
    title: &str,
    groups: &[&str],
    series: &[(&str, Vec<f64>)],
    y_label: &str,
) -> Result<Image> {
    if groups.is_empty() || series.is_empty() {
        return Err(Error::Data("no groups or no series".into()));
    }
    for (name, values) in series {
        check_values(name, values)?;
        if values.len() != groups.len() {
            return Err(Error::Data(format!(
                "series {name}: {} values for {} groups",
                values.len(),
                groups.len()
            )));
        }
    }
    let (lo, hi) = range(series.iter().flat_map(|(_, v)| v));
    let mut img = Image::new(WIDTH, HEIGHT);
    let axis = frame(&mut img, title, y_label, lo.min(0.0), hi.max(0.0));
    let values: Vec<&[f64]> = series.iter().map(|(_, v)| v.as_slice()).collect();
    bars(&mut img, &axis, groups, &values);
    let names: Vec<&str> = series.iter().map(|(n, _)| *n).collect();
    legend(&mut img, &names);
    Ok(img)
}

/// Renders a line chart: each series is a polyline over `x` with square markers, and a legend.
/// Every series needs one value per `x`.
pub fn render_line(
    title: &str,
    x: &[f64],
    series: &[(&str, Vec<f64>)],
    x_label: &str,
    y_label: &str,
) -> Result<Image> {
    check_values("x", x)?;
    if series.is_empty() {
        return Err(Error::Data("no series".into()));
    }
    for (name, values) in series {
        check_values(name, values)?;
        if values.len() != x.len() {
            return Err(Error::Data(format!(
                "series {name}: {} values for {} x values",
                values.len(),
                x.len()
            )));
        }
    }
    let (lo, hi) = range(series.iter().flat_map(|(_, v)| v));
    let mut img = Image::new(WIDTH, HEIGHT);
    let y_axis = frame(&mut img, title, y_label, lo, hi);
    let (x_lo, x_hi) = range(x);
    let x_axis = Axis::nice(x_lo, x_hi);
    for t in x_axis.ticks() {
        let px = x_axis.map(t, LEFT, RIGHT);
        img.line((px, BOTTOM), (px, BOTTOM + 5), 1, Rgb::BLACK);
        let label = x_axis.label(t);
        img.text(
            px - text_width(&label, 1) / 2,
            BOTTOM + 8,
            &label,
            1,
            Rgb::BLACK,
        );
    }
    img.line((LEFT, BOTTOM), (RIGHT, BOTTOM), 1, Rgb::BLACK);
    let x_label = fit(x_label, (RIGHT - LEFT) / GLYPH);
    img.text(
        (LEFT + RIGHT - text_width(&x_label, 1)) / 2,
        BOTTOM + 28,
        &x_label,
        1,
        Rgb::BLACK,
    );
    for (s, (_, values)) in series.iter().enumerate() {
        let points: Vec<(i32, i32)> = x
            .iter()
            .zip(values)
            .map(|(&xv, &yv)| (x_axis.map(xv, LEFT, RIGHT), y_axis.map(yv, BOTTOM, TOP)))
            .collect();
        for w in points.windows(2) {
            img.line(w[0], w[1], 2, colour(s));
        }
        for (px, py) in points {
            img.fill_rect(px - 3, py - 3, px + 3, py + 3, colour(s));
        }
    }
    let names: Vec<&str> = series.iter().map(|(n, _)| *n).collect();
    legend(&mut img, &names);
    Ok(img)
}

/// Writes a bar chart (one bar per label) to `path` as a [`WIDTH`] × [`HEIGHT`] PNG.
pub fn bar_chart(
    path: impl AsRef<Path>,
    title: &str,
    labels: &[&str],
    values: &[f64],
    y_label: &str,
) -> Result<()> {
    render_bar(title, labels, values, y_label)?.save(path.as_ref())
}

/// Writes a grouped bar chart (series × groups) to `path` as a PNG; see [`render_grouped_bar`].
pub fn grouped_bar_chart(
    path: impl AsRef<Path>,
    title: &str,
    groups: &[&str],
    series: &[(&str, Vec<f64>)],
    y_label: &str,
) -> Result<()> {
    render_grouped_bar(title, groups, series, y_label)?.save(path.as_ref())
}

/// Writes a line chart to `path` as a PNG; see [`render_line`].
pub fn line_chart(
    path: impl AsRef<Path>,
    title: &str,
    x: &[f64],
    series: &[(&str, Vec<f64>)],
    x_label: &str,
    y_label: &str,
) -> Result<()> {
    render_line(title, x, series, x_label, y_label)?.save(path.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_labels_are_short() {
        assert_eq!(value_label(0.8), "0.8");
        assert_eq!(value_label(0.125), "0.125");
        assert_eq!(value_label(31_822.0), "31822");
        assert_eq!(value_label(12.5), "12.5");
        assert_eq!(value_label(0.0), "0");
        assert_eq!(fit("abcdef", 4), "abc.");
    }
}
