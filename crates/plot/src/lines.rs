//! Line charts: each series a line through its points, every point marked and labelled with its
//! value, on a linear or a logarithmic x axis.

use crate::error::{Error, Result, draw};
use crate::style::{
    AXIS_TITLE_SIZE, FAMILY, LABEL_SIZE, WIDTH, check_values, colour, header, header_height,
    min_max, number, text, text_width,
};
use crate::ticks::Ticked;
use crate::{Series, save};
use plotters::coord::combinators::LogCoord;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use std::path::Path;

/// How the x axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Equal steps are equal distances.
    Linear,
    /// Equal ratios are equal distances, ticks at the powers of ten (for a sweep that spans
    /// decades: 10, 100, 1,000). Every x value must be positive.
    Log10,
}

/// A line chart of several series over one shared list of x values.
#[derive(Debug, Clone)]
pub struct LineChart<'a> {
    /// The title above the chart.
    pub title: &'a str,
    /// The x values, one per point of every series.
    pub x: &'a [f64],
    /// The x axis' title.
    pub x_title: &'a str,
    /// The x axis' scale.
    pub x_scale: Scale,
    /// The y axis' title.
    pub y_title: &'a str,
    /// The series; a legend names them when there are several.
    pub series: &'a [Series<'a>],
}

/// Height of the plot area, in pixels.
const PLOT_HEIGHT: u32 = 380;

/// The powers of ten in `lo..=hi`.
pub(crate) fn decades(lo: f64, hi: f64) -> Vec<f64> {
    let (first, last) = (lo.log10().ceil() as i32, hi.log10().floor() as i32);
    (first..=last).map(|e| 10f64.powi(e)).collect()
}

impl LineChart<'_> {
    fn check(&self) -> Result<()> {
        check_values("x", self.x)?;
        if self.series.is_empty() {
            return Err(Error::Data("no series".into()));
        }
        if self.x_scale == Scale::Log10
            && let Some(v) = self.x.iter().find(|v| **v <= 0.0)
        {
            return Err(Error::Data(format!("x: {v} on a logarithmic axis")));
        }
        for s in self.series {
            check_values(s.name, &s.values)?;
            if s.values.len() != self.x.len() {
                return Err(Error::Data(format!(
                    "series {:?}: {} values for {} x values",
                    s.name,
                    s.values.len(),
                    self.x.len()
                )));
            }
        }
        Ok(())
    }

    /// The chart as an SVG document.
    pub fn render(&self) -> Result<String> {
        self.check()?;
        let (x_lo, x_hi) = min_max(self.x);
        let (y_lo, y_hi) = min_max(self.series.iter().flat_map(|s| &s.values));
        let y_pad = if y_hi > y_lo {
            (y_hi - y_lo) * 0.15
        } else {
            y_hi.abs().max(1.0) * 0.1
        };
        let y = (y_lo - y_pad)..(y_hi + y_pad);
        match self.x_scale {
            Scale::Linear => {
                let pad = if x_hi > x_lo {
                    (x_hi - x_lo) * 0.05
                } else {
                    1.0
                };
                self.draw((x_lo - pad)..(x_hi + pad), y)
            }
            Scale::Log10 => {
                let (lo, hi) = (x_lo / 1.6, x_hi * 1.6);
                let mut ticks = decades(lo, hi);
                if ticks.len() < 2 {
                    ticks = self.x.to_vec();
                }
                self.draw(Ticked::new(LogCoord::from((lo..hi).log_scale()), ticks), y)
            }
        }
    }

    fn draw<X>(&self, x: X, y: std::ops::Range<f64>) -> Result<String>
    where
        X: AsRangedCoord<Value = f64>,
        X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let names: Vec<&str> = self.series.iter().map(|s| s.name).collect();
        let head = header_height(&names);
        let height = head + PLOT_HEIGHT + 90;
        let y_label_w = [y.start, y.end]
            .iter()
            .map(|v| text_width(&number(*v), LABEL_SIZE))
            .max()
            .unwrap_or(0)
            + 20;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE).map_err(draw)?;
            let (top, body) = root.split_vertically(head);
            header(&top, self.title, &names)?;
            let mut chart = ChartBuilder::on(&body)
                .margin_right(40)
                .margin_top(4)
                .x_label_area_size(64)
                .y_label_area_size(y_label_w + 40)
                .build_cartesian_2d(x, y)
                .map_err(draw)?;
            chart
                .configure_mesh()
                .max_light_lines(0)
                .y_labels(6)
                .x_label_formatter(&|v| number(*v))
                .y_label_formatter(&|v| number(*v))
                .label_style((FAMILY, LABEL_SIZE))
                .axis_desc_style((FAMILY, AXIS_TITLE_SIZE))
                .x_desc(self.x_title)
                .y_desc(self.y_title)
                .draw()
                .map_err(draw)?;
            for (s, series) in self.series.iter().enumerate() {
                let c = colour(s);
                let points: Vec<(f64, f64)> = self
                    .x
                    .iter()
                    .copied()
                    .zip(series.values.iter().copied())
                    .collect();
                chart
                    .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
                    .map_err(draw)?;
                chart
                    .draw_series(points.iter().map(|&(px, py)| {
                        EmptyElement::at((px, py))
                            + Circle::new((0, 0), 5, c.filled())
                            + Text::new(
                                number(py),
                                (0, -10),
                                text(LABEL_SIZE * 0.85, HPos::Center, VPos::Bottom),
                            )
                    }))
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
