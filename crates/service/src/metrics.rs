//! Counters for the metrics endpoint: decisions, approvals, rejections by code, submissions
//! by state, idempotent replays.

use std::{collections::BTreeMap, sync::Mutex};

/// The service's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    counters: Mutex<BTreeMap<(String, String), u64>>,
}

impl Metrics {
    /// Adds one to counter `name` with label value `label` (empty: no label).
    pub fn inc(&self, name: &str, label: &str) {
        let mut c = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        *c.entry((name.to_owned(), label.to_owned())).or_default() += 1;
    }

    /// The counter's value.
    pub fn get(&self, name: &str, label: &str) -> u64 {
        let c = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        c.get(&(name.to_owned(), label.to_owned()))
            .copied()
            .unwrap_or(0)
    }

    /// The counters in the Prometheus text format.
    pub fn render(&self) -> String {
        let c = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        for ((name, label), v) in c.iter() {
            let key = match name.as_str() {
                "rejections" => "code",
                "submissions" => "state",
                _ => "",
            };
            if label.is_empty() || key.is_empty() {
                out.push_str(&format!("pace_{name}_total {v}\n"));
            } else {
                out.push_str(&format!("pace_{name}_total{{{key}=\"{label}\"}} {v}\n"));
            }
        }
        out
    }
}
