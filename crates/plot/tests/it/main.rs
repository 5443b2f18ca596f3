//! The charts are well-formed SVG documents whose text is whole and inside the picture, whose
//! shapes follow the data, and whose logarithmic axis spaces decades evenly.

use pace_plot::{BarChart, LineChart, Scale, Series, WIDTH};
use std::path::PathBuf;

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pace-plot");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The texts of `svg` (trimmed), with their anchor and x position.
fn texts(svg: &str) -> Vec<(String, String, f64)> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            (
                n.text().unwrap_or("").trim().to_owned(),
                n.attribute("text-anchor").unwrap_or("start").to_owned(),
                n.attribute("x").unwrap().parse().unwrap(),
            )
        })
        .collect()
}

/// The centres of the filled circles (marked points) of `svg`.
fn circles(svg: &str) -> Vec<(f64, f64)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("circle"))
        .map(|n| {
            let c = |a| n.attribute(a).unwrap().parse::<f64>().unwrap();
            (c("cx"), c("cy"))
        })
        .collect()
}

/// The filled rectangles of `svg` other than the white background: (x, width).
fn bars(svg: &str) -> Vec<(f64, f64)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("fill") != Some("#FFFFFF"))
        .filter(|n| n.attribute("fill").is_some_and(|f| f != "none"))
        .map(|n| {
            let c = |a| n.attribute(a).unwrap().parse::<f64>().unwrap();
            (c("x"), c("width"), c("height"))
        })
        .filter(|&(_, w, h)| (w, h) != (14.0, 14.0)) // not a legend swatch
        .map(|(x, w, _)| (x, w))
        .collect()
}

/// Every text fits horizontally in the picture, by a generous estimate of its width (0.62 em
/// per character at its font size): no label is cut at the edge.
fn assert_inside(svg: &str) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    for n in doc.descendants().filter(|n| n.has_tag_name("text")) {
        if n.attribute("transform").is_some() {
            continue; // a rotated axis title: checked by its own test
        }
        let text = n.text().unwrap_or("").trim();
        let size: f64 = n.attribute("font-size").unwrap().parse().unwrap();
        let x: f64 = n.attribute("x").unwrap().parse().unwrap();
        let w = text.chars().count() as f64 * size * 0.62;
        let (left, right) = match n.attribute("text-anchor").unwrap_or("start") {
            "end" => (x - w, x),
            "middle" => (x - w / 2.0, x + w / 2.0),
            _ => (x, x + w),
        };
        assert!(
            left >= 0.0 && right <= f64::from(WIDTH),
            "{text:?} spans {left:.0}..{right:.0}"
        );
    }
}

const AGENTS: [&str; 8] = [
    "raw",
    "prompt_only",
    "sim_only",
    "wallet_guard",
    "static_guard",
    "sim_guard",
    "pace_paper",
    "pace_full_budget",
];

fn rates(first: f64) -> Vec<f64> {
    vec![first, 0.588, 0.725, 0.55, 0.15, 0.025, 0.0, 0.0]
}

fn table1(series: &[Series<'_>]) -> String {
    BarChart {
        title: "Table 1: safety by agent (10 seeds)",
        categories: &AGENTS,
        category_title: "agent",
        value_title: "rate",
        series,
    }
    .render()
    .unwrap()
}

#[test]
fn a_bar_chart_names_every_category_and_series_whole() {
    let series = [
        Series::new("unsafe execution rate", rates(0.725)),
        Series::new("attack success rate", rates(0.906)),
        Series::new("false-positive rate", vec![0.0; 8]),
    ];
    let svg = table1(&series);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(doc.root_element().attribute("width"), Some("900"));
    let texts = texts(&svg);
    let has = |s: &str| texts.iter().any(|(t, _, _)| t == s);
    for label in AGENTS
        .iter()
        .chain(["Table 1: safety by agent (10 seeds)", "rate", "agent"].iter())
    {
        assert!(has(label), "{label:?} missing in {texts:?}");
    }
    for s in &series {
        assert!(has(s.name), "legend lacks {:?}", s.name);
    }
    // Category labels end at the axis, right-aligned, so their whole width lies to its left.
    let raw = texts.iter().find(|(t, _, _)| t == "raw").unwrap();
    assert_eq!(raw.1, "end");
    // The values are written beside their bars.
    assert!(has("0.906") && has("0.725") && has("0.025"));
    assert_inside(&svg);
    // One bar per category and series, the longest for the largest value.
    let bars = bars(&svg);
    assert_eq!(bars.len(), 8 * 3, "{bars:?}");
    let widest = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    let zero_width = bars.iter().filter(|b| b.1 < 1.0).count();
    assert!(widest > 300.0, "{widest}");
    assert!(
        zero_width >= 8 + 2 * 2,
        "zero values draw no visible bar: {zero_width}"
    );
}

#[test]
fn the_same_data_gives_the_same_bytes_and_other_data_other_bytes() {
    let a = table1(&[Series::new("unsafe execution rate", rates(0.725))]);
    let again = table1(&[Series::new("unsafe execution rate", rates(0.725))]);
    let b = table1(&[Series::new("unsafe execution rate", rates(0.1))]);
    assert_eq!(a, again);
    assert_ne!(a, b);
    // One series: no legend, so its name is not drawn.
    assert!(
        !texts(&a)
            .iter()
            .any(|(t, _, _)| t == "unsafe execution rate")
    );
    let path = out_dir().join("bars.svg");
    BarChart {
        title: "t",
        categories: &AGENTS,
        category_title: "agent",
        value_title: "rate",
        series: &[Series::new("s", rates(0.725))],
    }
    .save(&path)
    .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), {
        BarChart {
            title: "t",
            categories: &AGENTS,
            category_title: "agent",
            value_title: "rate",
            series: &[Series::new("s", rates(0.725))],
        }
        .render()
        .unwrap()
    });
}

fn sweep(scale: Scale) -> String {
    LineChart {
        title: "Correct % vs slippage bound",
        x: &[10.0, 100.0, 1_000.0],
        x_title: "max slippage (bps)",
        x_scale: scale,
        y_title: "correct %",
        series: &[Series::new("correct %", vec![95.0, 100.0, 87.5])],
    }
    .render()
    .unwrap()
}

#[test]
fn a_log_axis_has_decade_ticks_and_spaces_decades_evenly() {
    let svg = sweep(Scale::Log10);
    let texts = texts(&svg);
    let has = |s: &str| texts.iter().any(|(t, _, _)| t == s);
    for tick in ["10", "100", "1,000"] {
        assert!(has(tick), "tick {tick} missing: {texts:?}");
    }
    assert!(
        !has("500") && !has("1000"),
        "only decades, thousands separated"
    );
    let points = circles(&svg);
    assert_eq!(points.len(), 3, "every point is marked");
    let (d1, d2) = (points[1].0 - points[0].0, points[2].0 - points[1].0);
    assert!(
        (d1 - d2).abs() <= 1.0,
        "decades evenly spaced: {d1} vs {d2}"
    );
    // Each point carries its value, and the higher value sits higher.
    assert!(has("95") && has("100") && has("87.5"));
    assert!(points[1].1 < points[0].1 && points[0].1 < points[2].1);
    for title in [
        "max slippage (bps)",
        "correct %",
        "Correct % vs slippage bound",
    ] {
        assert!(has(title), "{title:?}");
    }
    assert_inside(&svg);

    let linear = circles(&sweep(Scale::Linear));
    let (l1, l2) = (linear[1].0 - linear[0].0, linear[2].0 - linear[1].0);
    assert!(
        l2 > 5.0 * l1,
        "a linear axis crowds the small values: {l1} vs {l2}"
    );
}

#[test]
fn the_vertical_axis_title_is_one_rotated_text() {
    let svg = sweep(Scale::Log10);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let title = doc
        .descendants()
        .find(|n| {
            n.has_tag_name("text")
                && n.text().map(str::trim) == Some("correct %")
                && n.attribute("transform").is_some()
        })
        .expect("the y title");
    assert!(
        title
            .attribute("transform")
            .unwrap()
            .starts_with("rotate(270")
    );
}

#[test]
fn bad_data_is_an_error_not_a_panic() {
    let bar = |values: Vec<f64>, cats: &[&str]| {
        BarChart {
            title: "t",
            categories: cats,
            category_title: "c",
            value_title: "v",
            series: &[Series::new("s", values)],
        }
        .render()
    };
    assert!(bar(vec![f64::NAN], &["a"]).is_err());
    assert!(bar(vec![1.0], &["a", "b"]).is_err());
    assert!(bar(vec![], &[]).is_err());
    // Constant, negative, zero and huge values still draw.
    assert!(bar(vec![-5.0, -5.0], &["a", "b"]).is_ok());
    assert!(bar(vec![1e30], &["a"]).is_ok());
    assert!(bar(vec![0.0], &["a"]).is_ok());
    let line = |x: &[f64], scale| {
        LineChart {
            title: "t",
            x,
            x_title: "x",
            x_scale: scale,
            y_title: "y",
            series: &[Series::new("s", vec![1.0; x.len()])],
        }
        .render()
    };
    assert!(
        line(&[0.0, 10.0], Scale::Log10).is_err(),
        "no zero on a log axis"
    );
    assert!(line(&[0.0, 10.0], Scale::Linear).is_ok());
    assert!(line(&[5.0], Scale::Log10).is_ok(), "a single point");
    let err = BarChart {
        title: "t",
        categories: &["a"],
        category_title: "c",
        value_title: "v",
        series: &[Series::new("s", vec![1.0])],
    }
    .save(out_dir().join("no/such/dir/x.svg"))
    .unwrap_err();
    assert!(err.to_string().contains("no/such/dir"), "{err}");
}

/// Writes the sample charts to `target/tmp/pace-plot/` for a person to look at.
#[test]
fn samples_are_written() {
    let dir = out_dir();
    let series = [
        Series::new("unsafe execution rate", rates(0.725)),
        Series::new("attack success rate", rates(0.906)),
        Series::new("false-positive rate", vec![0.0; 8]),
    ];
    std::fs::write(dir.join("table1.svg"), table1(&series)).unwrap();
    std::fs::write(dir.join("sweep.svg"), sweep(Scale::Log10)).unwrap();
}
