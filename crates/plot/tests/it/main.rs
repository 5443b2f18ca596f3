//! The charts are valid PNGs of the documented size whose pixels follow the data.

use pace_plot::{HEIGHT, WIDTH, bar_chart, grouped_bar_chart, line_chart, render_bar};
use std::{fs::File, io::BufReader, path::PathBuf};

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pace-plot");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Decodes `path` and returns (width, height, RGB bytes).
fn decode(path: &PathBuf) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(BufReader::new(File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn bar_chart_is_a_png_of_the_right_size_and_follows_the_data() {
    let dir = out_dir();
    let (a, b) = (dir.join("bar-a.png"), dir.join("bar-b.png"));
    let labels = [
        "Raw",
        "Prompt-Only",
        "Sim-Only",
        "WalletGuard",
        "StaticGuard",
        "SimGuard",
        "Pace",
    ];
    bar_chart(
        &a,
        "Unsafe execution rate",
        &labels,
        &[0.80, 0.55, 0.6, 0.4, 0.1, 0.05, 0.0],
        "unsafe rate",
    )
    .unwrap();
    bar_chart(
        &b,
        "Unsafe execution rate",
        &labels,
        &[0.10, 0.55, 0.6, 0.4, 0.1, 0.05, 0.0],
        "unsafe rate",
    )
    .unwrap();
    let (w, h, pa) = decode(&a);
    assert_eq!((w, h), (WIDTH, HEIGHT));
    let (_, _, pb) = decode(&b);
    assert_eq!(pa.len(), (WIDTH * HEIGHT * 3) as usize);
    assert_ne!(pa, pb, "different data, different pixels");
    // Same data, same bytes.
    let again = dir.join("bar-a2.png");
    bar_chart(
        &again,
        "Unsafe execution rate",
        &labels,
        &[0.80, 0.55, 0.6, 0.4, 0.1, 0.05, 0.0],
        "unsafe rate",
    )
    .unwrap();
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&again).unwrap());
    // Not blank: many non-white pixels, and text (black) is drawn.
    let non_white = pa.chunks(3).filter(|p| p != &[255, 255, 255]).count();
    assert!(non_white > 5_000, "{non_white}");
    assert!(pa.chunks(3).any(|p| p == [0, 0, 0]));
}

#[test]
fn grouped_and_line_charts_are_written() {
    let dir = out_dir();
    let grouped = dir.join("grouped.png");
    grouped_bar_chart(
        &grouped,
        "Attack success by category",
        &["injection", "malicious", "slippage", "approval"],
        &[
            ("Raw", vec![0.9, 0.8, 0.7, 1.0]),
            ("SimGuard", vec![0.2, 0.1, 0.0, 0.3]),
            ("Pace", vec![0.0, 0.0, 0.0, 0.0]),
        ],
        "attack success rate",
    )
    .unwrap();
    let (w, h, g) = decode(&grouped);
    assert_eq!((w, h), (WIDTH, HEIGHT));

    let line = dir.join("line.png");
    let x: Vec<f64> = (0..=10).map(f64::from).collect();
    line_chart(
        &line,
        "Sandwich profit vs slippage",
        &x,
        &[
            ("profit", x.iter().map(|v| v * v - 3.0).collect()),
            ("loss", x.iter().map(|v| 2.0 * v).collect()),
        ],
        "slippage (%)",
        "WETH",
    )
    .unwrap();
    let (w, h, l) = decode(&line);
    assert_eq!((w, h), (WIDTH, HEIGHT));
    assert_ne!(g, l);
}

#[test]
fn bad_data_is_an_error_not_a_panic() {
    assert!(render_bar("t", &["a"], &[f64::NAN], "y").is_err());
    assert!(render_bar("t", &["a", "b"], &[1.0], "y").is_err());
    assert!(render_bar("t", &[], &[], "y").is_err());
    // Constant, negative and huge values still draw.
    assert!(render_bar("t", &["a", "b"], &[-5.0, -5.0], "y").is_ok());
    assert!(render_bar("t", &["a"], &[1e30], "y").is_ok());
    assert!(render_bar("t", &["a"], &[0.0], "y").is_ok());
    let dir = out_dir();
    let err = bar_chart(dir.join("no/such/dir/x.png"), "t", &["a"], &[1.0], "y").unwrap_err();
    assert!(err.to_string().contains("no/such/dir"), "{err}");
}
