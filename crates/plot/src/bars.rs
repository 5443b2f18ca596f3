//! Horizontal bar charts: a band per category, one bar per series in it, each with its value.

use crate::error::{Error, Result, draw};
use crate::style::{
    AXIS_TITLE_SIZE, FAMILY, LABEL_SIZE, WIDTH, check_values, colour, header, header_height,
    min_max, number, text, text_width,
};
use crate::ticks::Ticked;
use crate::{Series, save};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::path::Path;

/// A bar chart: for each category (top to bottom, in order) one horizontal bar per series.
#[derive(Debug, Clone)]
pub struct BarChart<'a> {
    /// The title above the chart.
    pub title: &'a str,
    /// The categories, each a band on the vertical axis, labelled in full.
    pub categories: &'a [&'a str],
    /// The vertical axis' title (what the categories are).
    pub category_title: &'a str,
    /// The horizontal axis' title (what the values measure).
    pub value_title: &'a str,
    /// One series per bar in a band; a legend names them when there are several.
    pub series: &'a [Series<'a>],
}

/// Height of one category's band, in pixels, for `k` series.
fn band(k: usize) -> u32 {
    (20 * k as u32 + 14).max(34)
}

impl BarChart<'_> {
    fn check(&self) -> Result<()> {
        if self.categories.is_empty() || self.series.is_empty() {
            return Err(Error::Data("no categories or no series".into()));
        }
        for s in self.series {
            check_values(s.name, &s.values)?;
            if s.values.len() != self.categories.len() {
                return Err(Error::Data(format!(
                    "series {:?}: {} values for {} categories",
                    s.name,
                    s.values.len(),
                    self.categories.len()
                )));
            }
        }
        Ok(())
    }

    /// The value axis: zero and every value, with room past the longest bar for its label.
    fn value_range(&self) -> (f64, f64) {
        let (lo, hi) = min_max(self.series.iter().flat_map(|s| &s.values));
        let (lo, hi) = (lo.min(0.0), hi.max(0.0));
        let span = if hi > lo { hi - lo } else { 1.0 };
        let room = span * 0.18;
        let lo = if lo < 0.0 { lo - room } else { 0.0 };
        let hi = if hi > 0.0 || lo == 0.0 {
            hi + room
        } else {
            0.0
        };
        (lo, hi)
    }

    /// The chart as an SVG document.
    pub fn render(&self) -> Result<String> {
        self.check()?;
        let n = self.categories.len();
        let k = self.series.len();
        let names: Vec<&str> = self.series.iter().map(|s| s.name).collect();
        let head = header_height(&names);
        let height = head + band(k) * n as u32 + 90;
        let label_w = self
            .categories
            .iter()
            .map(|c| text_width(c, LABEL_SIZE))
            .max()
            .unwrap_or(0)
            + 14;
        let (lo, hi) = self.value_range();
        let centers: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
        let label_of = |c: &f64| {
            let from_bottom = c.floor().clamp(0.0, (n - 1) as f64) as usize;
            self.categories[n - 1 - from_bottom].to_owned()
        };
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE).map_err(draw)?;
            let (top, body) = root.split_vertically(head);
            header(&top, self.title, &names)?;
            let mut chart = ChartBuilder::on(&body)
                .margin_right(24)
                .margin_top(4)
                .x_label_area_size(64)
                .y_label_area_size(label_w + 40)
                .build_cartesian_2d(
                    lo..hi,
                    Ticked::new(RangedCoordf64::from(0.0..n as f64), centers),
                )
                .map_err(draw)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .max_light_lines(0)
                .x_labels(6)
                .x_label_formatter(&|v| number(*v))
                .y_label_formatter(&label_of)
                .label_style(text(LABEL_SIZE, HPos::Center, VPos::Center))
                .axis_desc_style((FAMILY, AXIS_TITLE_SIZE))
                .x_desc(self.value_title)
                .y_desc(self.category_title)
                .draw()
                .map_err(draw)?;
            let h = 0.8 / k as f64;
            for (s, series) in self.series.iter().enumerate() {
                let bars = series.values.iter().enumerate().map(|(i, &v)| {
                    let y1 = (n - 1 - i) as f64 + 0.9 - s as f64 * h;
                    let (y0, y1) = (y1 - h * 0.92, y1);
                    (v, y0, y1)
                });
                chart
                    .draw_series(bars.clone().map(|(v, y0, y1)| {
                        Rectangle::new([(0.0, y0), (v, y1)], colour(s).filled())
                    }))
                    .map_err(draw)?;
                chart
                    .draw_series(bars.map(|(v, y0, y1)| {
                        let (dx, h_pos) = if v < 0.0 {
                            (-6, HPos::Right)
                        } else {
                            (6, HPos::Left)
                        };
                        EmptyElement::at((v, (y0 + y1) / 2.0))
                            + Text::new(
                                number(v),
                                (dx, 0),
                                text(LABEL_SIZE * 0.85, h_pos, VPos::Center),
                            )
                    }))
                    .map_err(draw)?;
            }
            if lo < 0.0 {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(0.0, 0.0), (0.0, n as f64)],
                        BLACK,
                    )))
                    .map_err(draw)?;
            }
            root.present().map_err(draw)?;
        }
        Ok(svg)
    }

    /// Renders the chart and writes it to `path`.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        save(path.as_ref(), &self.render()?)
    }
}
