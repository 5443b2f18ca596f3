//! What gets compiled and embedded: included by both the build script (`build/main.rs`, which
//! compiles and embeds) and the library (which serves the embedded artifacts), so there is one
//! copy.

/// The solc version `script/solc` wraps (pinned in package.json and foundry.toml).
pub(crate) const SOLC_VERSION: semver::Version = semver::Version::new(0, 8, 30);

/// Optimizer runs, as in foundry.toml.
pub(crate) const OPTIMIZER_RUNS: usize = 10_000;

/// The prebuilt npm artifacts embedded, with their npm file relative to the workspace root (not
/// recompiled here): Uniswap V2 (compiled by Uniswap with solc 0.5.16 / 0.6.6) and the ERC-4337
/// EntryPoint v0.8 (compiled by eth-infinitism).
pub(crate) const PREBUILT_FILES: &[(&str, &str)] = &[
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
    (
        "EntryPoint",
        "node_modules/@account-abstraction/contracts/artifacts/EntryPoint.json",
    ),
    (
        "Safe",
        "node_modules/@safe-global/safe-contracts/build/artifacts/contracts/Safe.sol/Safe.json",
    ),
    (
        "SafeProxyFactory",
        "node_modules/@safe-global/safe-contracts/build/artifacts/contracts/proxies/SafeProxyFactory.sol/SafeProxyFactory.json",
    ),
    (
        "CompatibilityFallbackHandler",
        "node_modules/@safe-global/safe-contracts/build/artifacts/contracts/handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json",
    ),
];
