//! The protocols' own compiled artifacts (ABI, creation code, library link references), read
//! at run time from the pinned npm packages under the checkout's `node_modules/`.
//!
//! Read here, never embedded: Uniswap V3 core and Aave V3 are BUSL-1.1, so their bytecode stays
//! out of every binary the workspace ships and is only deployed by tests (docs/third-party.md).
//! Each package's installed version is checked against the pinned one before anything is read.

use super::chain::{Error, Result};
use alloy_json_abi::JsonAbi;
use alloy_primitives::{Address, B256, Bytes, hex, keccak256};
use serde_json::Value;
use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

/// A pinned npm package (exact version, as in package.json).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Package {
    /// The npm name, e.g. `@uniswap/v3-core`.
    pub name: &'static str,
    /// The exact version package.json pins.
    pub version: &'static str,
}

/// Uniswap V3 core: UniswapV3Factory, UniswapV3Pool (BUSL-1.1).
pub const V3_CORE: Package = Package {
    name: "@uniswap/v3-core",
    version: "1.0.1",
};
/// Uniswap V3 periphery: SwapRouter, NonfungiblePositionManager, QuoterV2 (GPL-2.0-or-later).
pub const V3_PERIPHERY: Package = Package {
    name: "@uniswap/v3-periphery",
    version: "1.4.4",
};
/// SwapRouter02, Uniswap's router over V2 and V3 (GPL-2.0-or-later).
pub const SWAP_ROUTER_CONTRACTS: Package = Package {
    name: "@uniswap/swap-router-contracts",
    version: "1.3.1",
};
/// The Universal Router (GPL-3.0-or-later sources).
pub const UNIVERSAL_ROUTER: Package = Package {
    name: "@uniswap/universal-router",
    version: "2.1.0",
};
/// Aave V3 core (BUSL-1.1).
pub const AAVE_CORE_V3: Package = Package {
    name: "@aave/core-v3",
    version: "1.19.3",
};
/// CoW Protocol: GPv2Settlement and its allow-list authentication (LGPL-3.0-or-later), with
/// compiled artifacts under `lib/contracts/`.
pub const COW_CONTRACTS: Package = Package {
    name: "@cowprotocol/contracts",
    version: "1.8.0",
};

/// Uniswap V4 core: `PoolManager` and its test routers, as forge artifacts under `out/`
/// (BUSL-1.1).
pub const V4_CORE: Package = Package {
    name: "@uniswap/v4-core",
    version: "1.0.2",
};

/// Balancer V2's deployment tasks: each contract's ABI (`abi/`) and creation code
/// (`bytecode/`) under `dist/tasks/<task>/` (GPL-3.0-only).
pub const BALANCER_V2: Package = Package {
    name: "@balancer-labs/v2-deployments",
    version: "3.2.0",
};

/// ENS: the registry of names (`ENSRegistry`, compiled with solc 0.5.0; CC0-1.0), with
/// Truffle artifacts under `build/contracts/`.
pub const ENS: Package = Package {
    name: "@ensdomains/ens",
    version: "0.6.2",
};

/// `ENSRegistry()`: the ENS registry, its root node owned by the deployer.
pub fn ens_registry() -> Result<NpmArtifact> {
    NpmArtifact::load_from(ENS, "build/contracts", "ENSRegistry.json")
}

/// Safe 1.4.1: the `Safe` and `SafeL2` singletons, `SafeProxyFactory` and
/// `CompatibilityFallbackHandler` (LGPL-3.0), with compiled artifacts under `build/artifacts/`.
pub const SAFE_CONTRACTS: Package = Package {
    name: "@safe-global/safe-contracts",
    version: "1.4.1",
};

/// The pool init-code hash hard-coded in the V3 periphery's `PoolAddress.POOL_INIT_CODE_HASH`
/// (mainnet's): the periphery finds pools by CREATE2 address with it, so the core artifact's
/// pool creation code must hash to it (checked by the tests).
pub const POOL_INIT_CODE_HASH: B256 =
    alloy_primitives::b256!("e34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54");

/// The `node_modules/` directory of the checkout: looked up from the current directory and
/// from this crate's source directory, upwards (where `npm ci` installed the toolchain).
pub fn node_modules() -> Result<PathBuf> {
    let mut starts = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR"))];
    if let Ok(cwd) = std::env::current_dir() {
        starts.insert(0, cwd);
    }
    for start in &starts {
        for dir in start.ancestors() {
            let candidate = dir.join("node_modules");
            if candidate.join(V3_CORE.name).join("package.json").is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(Error::msg(format!(
        "no node_modules/ with {} above {:?}: run `npm ci` in the checkout",
        V3_CORE.name, starts
    )))
}

/// One library placeholder in an unlinked creation code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkReference {
    /// The library's contract name, e.g. `BorrowLogic`.
    pub library: String,
    /// Byte offset of its 20-byte address in the creation code.
    pub offset: usize,
}

/// A compiled contract from an npm package (Hardhat artifact format).
#[derive(Clone, Debug)]
pub struct NpmArtifact {
    /// The contract name.
    pub name: String,
    /// The file it was read from.
    pub path: PathBuf,
    /// The ABI.
    pub abi: JsonAbi,
    /// Creation code as hex (no `0x`), library placeholders still in it.
    bytecode: String,
    /// Where the creation code needs library addresses.
    pub links: Vec<LinkReference>,
}

impl NpmArtifact {
    /// Reads `artifacts/<rel>` of `package` (e.g. `contracts/UniswapV3Factory.sol/
    /// UniswapV3Factory.json`), after checking the installed version is the pinned one.
    pub fn load(package: Package, rel: &str) -> Result<Self> {
        Self::load_from(package, "artifacts", rel)
    }

    /// Reads `<dir>/<rel>` of `package` (a package that ships its artifacts elsewhere than
    /// `artifacts/`), after checking the installed version is the pinned one.
    pub fn load_from(package: Package, dir: &str, rel: &str) -> Result<Self> {
        Self::read(&package_root(package)?.join(dir).join(rel))
    }

    /// Reads the forge artifact `out/<rel>` of `package` (`abi`, `bytecode.object`, no
    /// libraries), after checking the installed version is the pinned one.
    pub fn load_forge(package: Package, rel: &str) -> Result<Self> {
        let path = package_root(package)?.join("out").join(rel);
        let json = read_json(&path)?;
        let abi = abi_of(&path, &json["abi"])?;
        let bytecode = code_of(&path, &json["bytecode"]["object"], "bytecode.object")?;
        let name = Path::new(rel)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(rel)
            .to_owned();
        Ok(Self {
            name,
            path,
            abi,
            bytecode,
            links: Vec::new(),
        })
    }

    /// Reads contract `name` of deployment task `task` of `package` (Balancer's layout: the
    /// ABI in `dist/tasks/<task>/abi/<name>.json`, the creation code in
    /// `dist/tasks/<task>/bytecode/<name>.json`), after checking the installed version is the
    /// pinned one. Such code needs no libraries.
    pub fn load_task(package: Package, task: &str, name: &str) -> Result<Self> {
        let dir = package_root(package)?.join("dist/tasks").join(task);
        let file = format!("{name}.json");
        let abi_path = dir.join("abi").join(&file);
        let abi = abi_of(&abi_path, &read_json(&abi_path)?)?;
        let path = dir.join("bytecode").join(&file);
        let bytecode = code_of(&path, &read_json(&path)?["creationCode"], "creationCode")?;
        Ok(Self {
            name: name.to_owned(),
            path,
            abi,
            bytecode,
            links: Vec::new(),
        })
    }

    fn read(path: &Path) -> Result<Self> {
        let bad = |m: String| Error::msg(format!("{}: {m}", path.display()));
        let json = read_json(path)?;
        let name = json["contractName"]
            .as_str()
            .ok_or_else(|| bad("no contractName".into()))?
            .to_owned();
        let abi = abi_of(path, &json["abi"])?;
        let bytecode = code_of(path, &json["bytecode"], "bytecode")?;
        let mut links = Vec::new();
        if let Some(files) = json["linkReferences"].as_object() {
            for libraries in files.values() {
                for (library, places) in libraries.as_object().into_iter().flatten() {
                    for place in places.as_array().into_iter().flatten() {
                        let offset = place["start"]
                            .as_u64()
                            .ok_or_else(|| bad(format!("link reference of {library}")))?;
                        links.push(LinkReference {
                            library: library.clone(),
                            offset: usize::try_from(offset).map_err(|e| bad(e.to_string()))?,
                        });
                    }
                }
            }
        }
        Ok(Self {
            name,
            path: path.to_owned(),
            abi,
            bytecode,
            links,
        })
    }

    /// The libraries the creation code needs, each once, sorted.
    pub fn libraries(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.links.iter().map(|l| l.library.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The creation code with every library placeholder replaced by its address in
    /// `libraries` (by contract name). A library the code needs and `libraries` lacks is an
    /// error, never a zero address.
    pub fn linked(&self, libraries: &BTreeMap<String, Address>) -> Result<Bytes> {
        let mut code = self.bytecode.clone();
        for link in &self.links {
            let address = libraries.get(&link.library).ok_or_else(|| {
                Error::msg(format!("{} needs library {}", self.name, link.library))
            })?;
            let at = 2 * link.offset;
            if code.len() < at + 40 || !code.is_char_boundary(at) {
                return Err(Error::msg(format!("{}: bad link offset", self.name)));
            }
            code.replace_range(at..at + 40, &hex::encode(address));
        }
        hex::decode(&code)
            .map(Bytes::from)
            .map_err(|e| Error::msg(format!("{}: creation code: {e}", self.name)))
    }

    /// Creation code followed by ABI-encoded constructor arguments; the contract must need no
    /// libraries.
    pub fn deploy_code(&self, ctor_args: &[u8]) -> Result<Bytes> {
        self.deploy_code_linked(&BTreeMap::new(), ctor_args)
    }

    /// [`Self::linked`] code followed by ABI-encoded constructor arguments.
    pub fn deploy_code_linked(
        &self,
        libraries: &BTreeMap<String, Address>,
        ctor_args: &[u8],
    ) -> Result<Bytes> {
        let mut code = self.linked(libraries)?.to_vec();
        code.extend_from_slice(ctor_args);
        Ok(code.into())
    }

    /// keccak256 of the creation code (for contracts created with CREATE2 by a factory).
    pub fn init_code_hash(&self) -> Result<B256> {
        Ok(keccak256(self.linked(&BTreeMap::new())?))
    }
}

/// The installed `package`'s directory, after checking its version is the pinned one.
fn package_root(package: Package) -> Result<PathBuf> {
    let root = node_modules()?.join(package.name);
    check_version(&root, package)?;
    Ok(root)
}

/// The JSON file at `path`.
fn read_json(path: &Path) -> Result<Value> {
    let bad = |m: String| Error::msg(format!("{}: {m}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| bad(e.to_string()))
}

/// The ABI `value` of the artifact at `path`.
fn abi_of(path: &Path, value: &Value) -> Result<JsonAbi> {
    serde_json::from_value(value.clone())
        .map_err(|e| Error::msg(format!("{}: abi: {e}", path.display())))
}

/// The creation code `value` (field `field`) of the artifact at `path`, as hex without `0x`.
fn code_of(path: &Path, value: &Value, field: &str) -> Result<String> {
    Ok(value
        .as_str()
        .ok_or_else(|| Error::msg(format!("{}: no {field}", path.display())))?
        .trim_start_matches("0x")
        .to_owned())
}

/// Fails unless `root/package.json` says `package.version`.
fn check_version(root: &Path, package: Package) -> Result<()> {
    let file = root.join("package.json");
    let text = std::fs::read_to_string(&file)
        .map_err(|e| Error::msg(format!("{}: {e} (run `npm ci`)", file.display())))?;
    let json: Value =
        serde_json::from_str(&text).map_err(|e| Error::msg(format!("{}: {e}", file.display())))?;
    match json["version"].as_str() {
        Some(v) if v == package.version => Ok(()),
        other => Err(Error::msg(format!(
            "{} is {other:?} in node_modules, but {} is pinned: run `npm ci`",
            package.name, package.version
        ))),
    }
}

/// The Uniswap V3 and Universal Router artifacts the test bed deploys.
pub mod uniswap {
    use super::*;

    /// `UniswapV3Factory` (no constructor arguments).
    pub fn factory() -> Result<NpmArtifact> {
        NpmArtifact::load(
            V3_CORE,
            "contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
        )
    }

    /// `UniswapV3Pool` (created by the factory; read for its init-code hash).
    pub fn pool() -> Result<NpmArtifact> {
        NpmArtifact::load(V3_CORE, "contracts/UniswapV3Pool.sol/UniswapV3Pool.json")
    }

    /// `SwapRouter(factory, WETH9)`.
    pub fn swap_router() -> Result<NpmArtifact> {
        NpmArtifact::load(V3_PERIPHERY, "contracts/SwapRouter.sol/SwapRouter.json")
    }

    /// `NonfungiblePositionManager(factory, WETH9, tokenDescriptor)`.
    pub fn position_manager() -> Result<NpmArtifact> {
        NpmArtifact::load(
            V3_PERIPHERY,
            "contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
        )
    }

    /// `QuoterV2(factory, WETH9)`.
    pub fn quoter_v2() -> Result<NpmArtifact> {
        NpmArtifact::load(V3_PERIPHERY, "contracts/lens/QuoterV2.sol/QuoterV2.json")
    }

    /// `SwapRouter02(factoryV2, factoryV3, positionManager, WETH9)`.
    pub fn swap_router02() -> Result<NpmArtifact> {
        NpmArtifact::load(
            SWAP_ROUTER_CONTRACTS,
            "contracts/SwapRouter02.sol/SwapRouter02.json",
        )
    }

    /// `UniversalRouter(RouterParameters)`.
    pub fn universal_router() -> Result<NpmArtifact> {
        NpmArtifact::load(
            UNIVERSAL_ROUTER,
            "contracts/UniversalRouter.sol/UniversalRouter.json",
        )
    }
}

/// The Aave V3 artifacts the test bed deploys.
pub mod aave {
    use super::*;

    /// The logic libraries Pool and PoolConfigurator link, in an order that deploys each after
    /// the libraries it links itself (FlashLoanLogic links BorrowLogic).
    pub const LIBRARIES: [&str; 8] = [
        "BorrowLogic",
        "BridgeLogic",
        "ConfiguratorLogic",
        "EModeLogic",
        "LiquidationLogic",
        "PoolLogic",
        "SupplyLogic",
        "FlashLoanLogic",
    ];

    /// An artifact of `@aave/core-v3` by contract name.
    pub fn artifact(name: &str) -> Result<NpmArtifact> {
        let dir = match name {
            "Pool" | "PoolConfigurator" | "DefaultReserveInterestRateStrategy" => "protocol/pool",
            "PoolAddressesProvider" | "ACLManager" => "protocol/configuration",
            "AToken" | "VariableDebtToken" | "StableDebtToken" => "protocol/tokenization",
            "AaveOracle" | "AaveProtocolDataProvider" => "misc",
            library if LIBRARIES.contains(&library) => "protocol/libraries/logic",
            other => return Err(Error::msg(format!("no Aave artifact `{other}` is known"))),
        };
        NpmArtifact::load(
            AAVE_CORE_V3,
            &format!("contracts/{dir}/{name}.sol/{name}.json"),
        )
    }
}

/// The CoW Protocol artifacts: the settlement contract and its solver allow-list.
pub mod cow {
    use super::*;

    /// `GPv2Settlement(authenticator, vault)`.
    pub fn settlement() -> Result<NpmArtifact> {
        NpmArtifact::load_from(COW_CONTRACTS, "lib/contracts", "GPv2Settlement.json")
    }

    /// `GPv2AllowListAuthentication` (no constructor arguments; `initializeManager` once).
    pub fn authentication() -> Result<NpmArtifact> {
        NpmArtifact::load_from(
            COW_CONTRACTS,
            "lib/contracts",
            "GPv2AllowListAuthentication.json",
        )
    }
}

/// The Uniswap V4 core artifacts the bed deploys.
pub mod uniswap_v4 {
    use super::*;

    /// `PoolManager(initialOwner)`.
    pub fn pool_manager() -> Result<NpmArtifact> {
        NpmArtifact::load_forge(V4_CORE, "PoolManager.sol/PoolManager.json")
    }

    /// `PoolModifyLiquidityTest(manager)`: v4-core's router for adding liquidity in tests.
    pub fn modify_liquidity_router() -> Result<NpmArtifact> {
        NpmArtifact::load_forge(
            V4_CORE,
            "PoolModifyLiquidityTest.sol/PoolModifyLiquidityTest.json",
        )
    }
}

/// The Balancer V2 artifacts of its first deployment (task `20210418`): the Vault, its
/// authorizer and the weighted pool factory.
pub mod balancer {
    use super::*;

    /// `Authorizer(admin)`.
    pub fn authorizer() -> Result<NpmArtifact> {
        NpmArtifact::load_task(BALANCER_V2, "20210418-authorizer", "Authorizer")
    }

    /// `Vault(authorizer, weth, pauseWindowDuration, bufferPeriodDuration)`.
    pub fn vault() -> Result<NpmArtifact> {
        NpmArtifact::load_task(BALANCER_V2, "20210418-vault", "Vault")
    }

    /// `WeightedPoolFactory(vault)`.
    pub fn weighted_pool_factory() -> Result<NpmArtifact> {
        NpmArtifact::load_task(BALANCER_V2, "20210418-weighted-pool", "WeightedPoolFactory")
    }
}

/// The Safe 1.4.1 artifacts: the singletons, the proxy factory and the fallback handler.
pub mod safe {
    use super::*;

    fn load(rel: &str) -> Result<NpmArtifact> {
        NpmArtifact::load_from(SAFE_CONTRACTS, "build/artifacts/contracts", rel)
    }

    /// The `Safe` singleton, or `SafeL2` (which also emits each transaction as an event).
    pub fn singleton(l2: bool) -> Result<NpmArtifact> {
        if l2 {
            load("SafeL2.sol/SafeL2.json")
        } else {
            load("Safe.sol/Safe.json")
        }
    }

    /// `SafeProxyFactory`.
    pub fn proxy_factory() -> Result<NpmArtifact> {
        load("proxies/SafeProxyFactory.sol/SafeProxyFactory.json")
    }

    /// `CompatibilityFallbackHandler`.
    pub fn fallback_handler() -> Result<NpmArtifact> {
        load("handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json")
    }
}
