//! Axis ranges, tick positions and tick labels.

/// A linear axis from `lo` to `hi` with ticks every `step`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Axis {
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    pub(crate) step: f64,
}

impl Axis {
    /// An axis covering `[min, max]` with about five "nice" ticks (1, 2 or 5 × 10^k).
    pub(crate) fn nice(min: f64, max: f64) -> Self {
        let (min, max) = if max - min <= f64::EPSILON * max.abs().max(1.0) {
            (
                min - 1.0_f64.max(min.abs() * 0.1),
                max + 1.0_f64.max(max.abs() * 0.1),
            )
        } else {
            (min, max)
        };
        let raw = (max - min) / 5.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * mag);
        Self {
            lo: (min / step).floor() * step,
            hi: (max / step).ceil() * step,
            step,
        }
    }

    /// The tick values, bottom to top (at most 50).
    pub(crate) fn ticks(&self) -> Vec<f64> {
        let n = ((self.hi - self.lo) / self.step).round() as i64;
        (0..=n.min(50))
            .map(|i| self.lo + i as f64 * self.step)
            .collect()
    }

    /// Maps `v` onto the pixel range `[p0, p1]` (`p0` at `lo`).
    pub(crate) fn map(&self, v: f64, p0: i32, p1: i32) -> i32 {
        let t = (v - self.lo) / (self.hi - self.lo);
        (f64::from(p0) + t * f64::from(p1 - p0)).round() as i32
    }

    /// A tick label with as many decimals as the step needs.
    pub(crate) fn label(&self, v: f64) -> String {
        let decimals = if self.step >= 1.0 {
            0
        } else {
            (-self.step.log10().floor()) as usize
        };
        let v = if v.abs() < self.step * 1e-9 { 0.0 } else { v };
        if v.abs() >= 1e6 || (v != 0.0 && v.abs() < 1e-4) {
            format!("{v:.1e}")
        } else {
            format!("{v:.decimals$}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks() {
        let a = Axis::nice(0.0, 0.83);
        assert_eq!(a.step, 0.2);
        assert_eq!(a.hi, 1.0);
        assert_eq!(a.label(0.4), "0.4");
        let b = Axis::nice(0.0, 31_822.0);
        assert_eq!(b.step, 10_000.0);
        assert_eq!(b.label(20_000.0), "20000");
        let flat = Axis::nice(3.0, 3.0);
        assert!(flat.lo < 3.0 && flat.hi > 3.0);
    }
}
