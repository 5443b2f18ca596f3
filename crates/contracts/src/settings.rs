//! What gets compiled and embedded: included by both the build script (`build/main.rs`, which
//! compiles and embeds) and the library (which serves the embedded artifacts), so there is one
//! copy.

/// The solc version `script/solc` wraps (pinned in package.json and foundry.toml).
pub(crate) const SOLC_VERSION: semver::Version = semver::Version::new(0, 8, 30);

/// Optimizer runs, as in foundry.toml.
pub(crate) const OPTIMIZER_RUNS: usize = 10_000;

/// The prebuilt Uniswap V2 artifacts embedded, with their npm file relative to the workspace
/// root (compiled by Uniswap with solc 0.5.16 / 0.6.6; not recompiled here).
pub(crate) const UNISWAP_FILES: &[(&str, &str)] = &[
    (
        "UniswapV2Factory",
        "node_modules/@uniswap/v2-core/build/UniswapV2Factory.json",
    ),
    (
        "UniswapV2Pair",
        "node_modules/@uniswap/v2-core/build/UniswapV2Pair.json",
    ),
    (
        "UniswapV2Router02",
        "node_modules/@uniswap/v2-periphery/build/UniswapV2Router02.json",
    ),
    (
        "WETH9",
        "node_modules/@uniswap/v2-periphery/build/WETH9.json",
    ),
    (
        "DeflatingERC20",
        "node_modules/@uniswap/v2-periphery/build/DeflatingERC20.json",
    ),
];
