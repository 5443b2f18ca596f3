//! Counters for the metrics endpoint, rendered in the Prometheus text exposition format
//! (version 0.0.4): every family with its `# HELP` and `# TYPE` lines, its series labelled,
//! each series once.

use std::{collections::BTreeMap, sync::Mutex};

/// A counter family the service knows: its name (without `pace_` and `_total`), help text and
/// label name (`None`: one unlabelled series).
struct Family {
    name: &'static str,
    help: &'static str,
    label: Option<&'static str>,
}

/// The service's counter families.
const FAMILIES: &[Family] = &[
    Family {
        name: "decisions",
        help: "Intents judged by propose.",
        label: None,
    },
    Family {
        name: "approvals",
        help: "Intents the verifier approved.",
        label: None,
    },
    Family {
        name: "rejections",
        help: "Violations found in judged intents, by violation code.",
        label: Some("code"),
    },
    Family {
        name: "refusals",
        help: "Requests refused before or instead of a decision (401, 403, 429 and the other service errors), by error code.",
        label: Some("code"),
    },
    Family {
        name: "submissions",
        help: "Confirmed proposals submitted, by the state they reached.",
        label: Some("state"),
    },
    Family {
        name: "approvals_awaited",
        help: "Confirmations that waited for a human's approval.",
        label: None,
    },
    Family {
        name: "idempotent_replays",
        help: "Requests answered with a recorded answer, by where it came from.",
        label: Some("source"),
    },
    Family {
        name: "reconciled",
        help: "Proposals reconciled against the chain, by the state they reached.",
        label: Some("state"),
    },
    Family {
        name: "transactions_dead",
        help: "Transactions found dead on reconciliation (nonce used by another, or past validUntil).",
        label: None,
    },
    Family {
        name: "rebroadcasts",
        help: "Held signed transactions rebroadcast on reconciliation.",
        label: None,
    },
    Family {
        name: "rebroadcasts_skipped",
        help: "Rebroadcasts not made, by reason.",
        label: Some("reason"),
    },
    Family {
        name: "replacements",
        help: "Pending transactions replaced with raised fees.",
        label: None,
    },
    Family {
        name: "replacements_skipped",
        help: "Replacements not made, by reason.",
        label: Some("reason"),
    },
    Family {
        name: "halts",
        help: "Kill switch changes, by the state set.",
        label: Some("state"),
    },
    Family {
        name: "admission_waits",
        help: "HTTP API requests that waited their turn on the embedded world (all of its request slots busy).",
        label: None,
    },
    Family {
        name: "lane_waits",
        help: "Pauses of a confirm waiting for a free nonce lane.",
        label: None,
    },
    Family {
        name: "fenced",
        help: "Signatures refused because this instance lost the lane's lease, by what was refused.",
        label: Some("what"),
    },
    Family {
        name: "not_sent",
        help: "Signed PDRs not sent, by reason.",
        label: Some("reason"),
    },
    Family {
        name: "reconciled_for_lanes",
        help: "Proposals reconciled before their lanes could be used again.",
        label: None,
    },
    Family {
        name: "phase_microseconds",
        help: "Time spent by the requests, in microseconds, by phase: store (every step and read), simulation (with the node's state fetched on a fork), verification, signing, node (balances, landing time, submission and receipt).",
        label: Some("phase"),
    },
];

/// The service's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    counters: Mutex<BTreeMap<(String, String), u64>>,
}

impl Metrics {
    /// Adds one to counter `name` with label value `label` (empty for an unlabelled family).
    pub fn inc(&self, name: &str, label: &str) {
        let mut c = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        *c.entry((name.to_owned(), label.to_owned())).or_default() += 1;
    }

    /// Adds `n` to counter `name` with label value `label`.
    pub fn add(&self, name: &str, label: &str, n: u64) {
        let mut c = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        *c.entry((name.to_owned(), label.to_owned())).or_default() += n;
    }

    /// Sets counter `name` with label value `label` to `n` (a total kept elsewhere).
    pub fn set(&self, name: &str, label: &str, n: u64) {
        let mut c = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        c.insert((name.to_owned(), label.to_owned()), n);
    }

    /// The counter's value.
    pub fn get(&self, name: &str, label: &str) -> u64 {
        let c = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        c.get(&(name.to_owned(), label.to_owned()))
            .copied()
            .unwrap_or(0)
    }

    /// The counters in the Prometheus text format, followed by `gauges` (name without
    /// `pace_`, help, value). Every known family is present (at zero when it never counted,
    /// for an unlabelled one); a counter of an unknown family gets a family of its own.
    pub fn render(&self, gauges: &[(&str, &str, u64)]) -> String {
        let c = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        let mut family_of: BTreeMap<&str, Vec<(&str, u64)>> = BTreeMap::new();
        for ((name, label), v) in c.iter() {
            family_of
                .entry(name.as_str())
                .or_default()
                .push((label.as_str(), *v));
        }
        let unknown = family_of
            .keys()
            .filter(|n| FAMILIES.iter().all(|f| f.name != **n))
            .map(|n| (*n).to_owned())
            .collect::<Vec<_>>();
        let mut families: Vec<(String, String, Option<&str>)> = FAMILIES
            .iter()
            .map(|f| (f.name.to_owned(), f.help.to_owned(), f.label))
            .collect();
        for n in unknown {
            let help = format!("Counter {n}.");
            families.push((n, help, Some("label")));
        }
        for (name, help, label) in &families {
            let series = family_of.get(name.as_str()).cloned().unwrap_or_default();
            let metric = format!("pace_{}_total", sanitize(name));
            out.push_str(&format!("# HELP {metric} {}\n", escape_help(help)));
            out.push_str(&format!("# TYPE {metric} counter\n"));
            match label {
                None => {
                    // One series: every count of the family, whatever label it was given.
                    let total: u64 = series.iter().map(|(_, v)| v).sum();
                    out.push_str(&format!("{metric} {total}\n"));
                }
                Some(key) => {
                    for (value, v) in series {
                        out.push_str(&format!("{metric}{{{key}=\"{}\"}} {v}\n", escape(value)));
                    }
                }
            }
        }
        for (name, help, value) in gauges {
            let metric = format!("pace_{}", sanitize(name));
            out.push_str(&format!("# HELP {metric} {}\n", escape_help(help)));
            out.push_str(&format!("# TYPE {metric} gauge\n{metric} {value}\n"));
        }
        out
    }
}

/// A metric name part of `[a-zA-Z0-9_]` only.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// A label value escaped as the text format requires (`\\`, `\"`, `\n`).
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Help text escaped as the text format requires (`\\`, `\n`).
fn escape_help(help: &str) -> String {
    help.replace('\\', "\\\\").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_family_has_help_and_type_and_each_series_appears_once() {
        let m = Metrics::default();
        m.inc("rejections", "OUTFLOW_CAP");
        m.inc("rejections", "OUTFLOW_CAP");
        m.inc("rejections", "weird\"code\\\n");
        m.inc("decisions", "");
        m.inc("something-new", "x");
        let text = m.render(&[("in_flight_requests", "Requests being handled.", 2)]);
        let mut helped = BTreeSet::new();
        let mut typed = BTreeSet::new();
        let mut series = BTreeSet::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# HELP ") {
                assert!(helped.insert(rest.split(' ').next().unwrap().to_owned()));
            } else if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').unwrap();
                assert!(["counter", "gauge"].contains(&kind), "{line}");
                assert!(typed.insert(name.to_owned()));
            } else {
                let (key, value) = line.rsplit_once(' ').unwrap();
                value.parse::<u64>().unwrap();
                let name = key.split('{').next().unwrap();
                assert!(typed.contains(name), "series before its TYPE: {line}");
                assert!(series.insert(key.to_owned()), "duplicate series {key}");
            }
        }
        assert_eq!(helped, typed);
        assert!(text.contains("pace_rejections_total{code=\"OUTFLOW_CAP\"} 2\n"));
        assert!(text.contains("pace_rejections_total{code=\"weird\\\"code\\\\\\n\"} 1\n"));
        assert!(text.contains("pace_decisions_total 1\n"));
        assert!(text.contains("pace_approvals_total 0\n"));
        assert!(text.contains("pace_something_new_total{label=\"x\"} 1\n"));
        assert!(text.contains("pace_in_flight_requests 2\n"));
    }
}
