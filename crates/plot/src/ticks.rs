//! An axis with its ticks exactly where the chart says: at category centres, or at the powers
//! of ten of a logarithmic axis.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use std::ops::Range;

/// The coordinate `inner`, ticked at `ticks` only.
#[derive(Debug, Clone)]
pub(crate) struct Ticked<R> {
    inner: R,
    ticks: Vec<f64>,
}

impl<R> Ticked<R> {
    /// `inner`, ticked at `ticks`.
    pub(crate) fn new(inner: R, ticks: Vec<f64>) -> Self {
        Self { inner, ticks }
    }
}

impl<R: Ranged<ValueType = f64>> Ranged for Ticked<R> {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> Range<f64> {
        self.inner.range()
    }
}
