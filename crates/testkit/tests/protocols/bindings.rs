//! The bindings and the artifacts agree: every selector, event topic and error declared in
//! `protocols::bindings` exists in the ABI of the artifact the bed deploys; the Permit2-
//! compatible contract has exactly Permit2's AllowanceTransfer ABI as the Universal Router
//! package declares it; the pinned versions are package.json's.

use alloy_json_abi::JsonAbi;
use alloy_primitives::{Address, B256, U256, b256};
use alloy_sol_types::{SolInterface, SolStruct};
use pace_testkit::protocols::{
    bindings::*,
    npm::{self, NpmArtifact, POOL_INIT_CODE_HASH},
    universal_router::UniversalRouter as Router,
};
use std::collections::BTreeSet;

fn npm_abi(artifact: pace_testkit::protocols::Result<NpmArtifact>) -> JsonAbi {
    artifact.unwrap_or_else(|e| panic!("{e}")).abi
}

fn embedded_abi(name: &str) -> JsonAbi {
    pace_contracts::artifacts()
        .unwrap()
        .get(name)
        .unwrap()
        .abi
        .clone()
}

fn functions<I: SolInterface>(abi: &JsonAbi, what: &str) {
    let known: BTreeSet<[u8; 4]> = abi.functions().map(|f| f.selector().0).collect();
    for selector in I::selectors() {
        assert!(
            known.contains(&selector),
            "{what}: no function {selector:02x?}"
        );
    }
}

/// Every event topic of the `sol!` events enum `$events` is in `$abi`.
macro_rules! events {
    ($events:ty, $abi:expr, $what:expr) => {{
        let known: BTreeSet<B256> = $abi.events().map(|e| e.selector()).collect();
        for topic in <$events>::SELECTORS {
            assert!(
                known.contains(&B256::from(*topic)),
                "{}: no event {topic:02x?}",
                $what
            );
        }
    }};
}

fn errors<I: SolInterface>(abi: &JsonAbi, what: &str) {
    let known: BTreeSet<[u8; 4]> = abi.errors().map(|e| e.selector().0).collect();
    for selector in I::selectors() {
        assert!(
            known.contains(&selector),
            "{what}: no error {selector:02x?}"
        );
    }
}

#[test]
fn uniswap_bindings_match_the_npm_artifacts() {
    let factory = npm_abi(npm::uniswap::factory());
    functions::<IUniswapV3Factory::IUniswapV3FactoryCalls>(&factory, "factory");
    events!(
        IUniswapV3Factory::IUniswapV3FactoryEvents,
        &factory,
        "factory"
    );
    let pool = npm_abi(npm::uniswap::pool());
    functions::<IUniswapV3Pool::IUniswapV3PoolCalls>(&pool, "pool");
    events!(IUniswapV3Pool::IUniswapV3PoolEvents, &pool, "pool");
    let npm_abi_ = npm_abi(npm::uniswap::position_manager());
    functions::<NonfungiblePositionManager::NonfungiblePositionManagerCalls>(&npm_abi_, "NPM");
    events!(
        NonfungiblePositionManager::NonfungiblePositionManagerEvents,
        &npm_abi_,
        "NPM"
    );
    let router = npm_abi(npm::uniswap::swap_router());
    functions::<SwapRouter::SwapRouterCalls>(&router, "SwapRouter");
    let quoter = npm_abi(npm::uniswap::quoter_v2());
    functions::<QuoterV2::QuoterV2Calls>(&quoter, "QuoterV2");
    let ur = npm_abi(npm::uniswap::universal_router());
    functions::<UniversalRouter::UniversalRouterCalls>(&ur, "UniversalRouter");
    errors::<UniversalRouter::UniversalRouterErrors>(&ur, "UniversalRouter");
}

#[test]
fn aave_bindings_match_the_npm_artifacts() {
    let abi = |name: &str| npm_abi(npm::aave::artifact(name));
    functions::<PoolAddressesProvider::PoolAddressesProviderCalls>(
        &abi("PoolAddressesProvider"),
        "PoolAddressesProvider",
    );
    functions::<ACLManager::ACLManagerCalls>(&abi("ACLManager"), "ACLManager");
    functions::<AavePool::AavePoolCalls>(&abi("Pool"), "Pool");
    functions::<PoolConfigurator::PoolConfiguratorCalls>(
        &abi("PoolConfigurator"),
        "PoolConfigurator",
    );
    functions::<AaveOracle::AaveOracleCalls>(&abi("AaveOracle"), "AaveOracle");
    functions::<AaveProtocolDataProvider::AaveProtocolDataProviderCalls>(
        &abi("AaveProtocolDataProvider"),
        "AaveProtocolDataProvider",
    );
    let debt = abi("VariableDebtToken");
    functions::<IAaveVariableDebtToken::IAaveVariableDebtTokenCalls>(&debt, "VariableDebtToken");
    events!(
        IAaveVariableDebtToken::IAaveVariableDebtTokenEvents,
        &debt,
        "VariableDebtToken"
    );
}

#[test]
fn mock_bindings_match_the_embedded_artifacts() {
    let permit2 = embedded_abi("MockPermit2");
    functions::<MockPermit2::MockPermit2Calls>(&permit2, "MockPermit2");
    events!(MockPermit2::MockPermit2Events, &permit2, "MockPermit2");
    errors::<MockPermit2::MockPermit2Errors>(&permit2, "MockPermit2");
    let feed = embedded_abi("MockAggregatorV3");
    functions::<MockAggregatorV3::MockAggregatorV3Calls>(&feed, "MockAggregatorV3");
    events!(
        MockAggregatorV3::MockAggregatorV3Events,
        &feed,
        "MockAggregatorV3"
    );
    errors::<MockAggregatorV3::MockAggregatorV3Errors>(&feed, "MockAggregatorV3");
    let comptroller = embedded_abi("MockComptroller");
    functions::<MockComptroller::MockComptrollerCalls>(&comptroller, "MockComptroller");
    events!(
        MockComptroller::MockComptrollerEvents,
        &comptroller,
        "MockComptroller"
    );
    errors::<MockComptroller::MockComptrollerErrors>(&comptroller, "MockComptroller");
    let c_token = embedded_abi("MockCToken");
    functions::<MockCToken::MockCTokenCalls>(&c_token, "MockCToken");
    events!(MockCToken::MockCTokenEvents, &c_token, "MockCToken");
    errors::<MockCToken::MockCTokenErrors>(&c_token, "MockCToken");
}

/// The ABI of `IPermit2` as the Universal Router package ships it (an ethers factory in
/// TypeScript whose `_abi` literal is JSON with bare keys and trailing commas).
fn ipermit2_abi() -> JsonAbi {
    let file = npm::node_modules()
        .unwrap()
        .join("@uniswap/universal-router/typechain/factories/IPermit2__factory.ts");
    let source = std::fs::read_to_string(&file).unwrap();
    let start = source.find("const _abi = [").expect("an _abi literal") + "const _abi = ".len();
    let end = start + source[start..].find("\n];").expect("its end") + 2;
    let mut json = String::new();
    for line in source[start..end].lines() {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        match body.split_once(": ") {
            Some((key, rest)) if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                json.push_str(&format!("{indent}\"{key}\": {rest}\n"));
            }
            _ => json.push_str(&format!("{line}\n")),
        }
    }
    // Trailing commas before a closing bracket.
    let mut clean = String::with_capacity(json.len());
    let chars: Vec<char> = json.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']')) {
                continue;
            }
        }
        clean.push(*c);
    }
    serde_json::from_str(&clean).unwrap_or_else(|e| panic!("IPermit2 ABI: {e}"))
}

/// Permit2's AllowanceTransfer functions, events and errors, exactly: same signatures, outputs,
/// mutability and indexed fields; nothing of SignatureTransfer, nothing extra.
#[test]
fn mock_permit2_has_permit2s_allowance_transfer_abi() {
    const SIGNATURE_TRANSFER: [&str; 4] = [
        "permitTransferFrom",
        "permitWitnessTransferFrom",
        "invalidateUnorderedNonces",
        "nonceBitmap",
    ];
    let permit2 = ipermit2_abi();
    let ours = embedded_abi("MockPermit2");
    let shape = |f: &alloy_json_abi::Function| {
        (
            f.signature(),
            f.outputs
                .iter()
                .map(|p| p.selector_type().into_owned())
                .collect::<Vec<_>>(),
            f.state_mutability,
        )
    };
    let expected: BTreeSet<_> = permit2
        .functions()
        .filter(|f| !SIGNATURE_TRANSFER.contains(&f.name.as_str()))
        .map(shape)
        .collect();
    let actual: BTreeSet<_> = ours.functions().map(shape).collect();
    assert_eq!(actual, expected);
    assert_eq!(expected.len(), 9);
    let event = |e: &alloy_json_abi::Event| {
        (
            e.signature(),
            e.inputs.iter().map(|p| p.indexed).collect::<Vec<_>>(),
        )
    };
    let expected: BTreeSet<_> = permit2
        .events()
        .filter(|e| e.name != "UnorderedNonceInvalidation")
        .map(event)
        .collect();
    let actual: BTreeSet<_> = ours.events().map(event).collect();
    assert_eq!(actual, expected);
    for name in [
        "AllowanceExpired",
        "ExcessiveInvalidation",
        "InsufficientAllowance",
    ] {
        let theirs: Vec<_> = permit2
            .errors
            .get(name)
            .unwrap()
            .iter()
            .map(|e| e.signature())
            .collect();
        let mine: Vec<_> = ours
            .errors
            .get(name)
            .unwrap()
            .iter()
            .map(|e| e.signature())
            .collect();
        assert_eq!(mine, theirs, "{name}");
    }
}

/// The EIP-712 digests of Uniswap's Permit2 SDK (npm permit2-sdk 1.4.0, its tests' vectors:
/// all-zero permits, Permit2 at the zero address, chain 1).
#[test]
fn permit_digests_match_the_permit2_sdk_vectors() {
    let zero = MockPermit2::PermitDetails {
        token: Address::ZERO,
        amount: Default::default(),
        expiration: Default::default(),
        nonce: Default::default(),
    };
    let single = MockPermit2::PermitSingle {
        details: zero.clone(),
        spender: Address::ZERO,
        sigDeadline: U256::ZERO,
    };
    let router = Router {
        router: Address::ZERO,
        permit2: Address::ZERO,
    };
    assert_eq!(
        router.permit_digest(1, &single),
        b256!("d47437bffdbc4d123a2165feb6ca646b8700c038622ce304f84e9048bc744f36")
    );
    let batch = MockPermit2::PermitBatch {
        details: vec![zero],
        spender: Address::ZERO,
        sigDeadline: U256::ZERO,
    };
    assert_eq!(
        batch.eip712_signing_hash(&router.permit2_domain(1)),
        b256!("49642ada5f77eb9458f8265eb01fed2684c2f25d50534fea3efdf2cf395deb2f")
    );
}

#[test]
fn the_npm_pool_init_code_hash_is_the_periphery_constant() {
    let hash = npm::uniswap::pool().unwrap().init_code_hash().unwrap();
    assert_eq!(hash, POOL_INIT_CODE_HASH);
}

#[test]
fn pinned_versions_are_package_jsons() {
    let root = npm::node_modules().unwrap().join("..");
    let text = std::fs::read_to_string(root.join("package.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    for p in [
        npm::V3_CORE,
        npm::V3_PERIPHERY,
        npm::UNIVERSAL_ROUTER,
        npm::AAVE_CORE_V3,
        npm::SWAP_ROUTER_CONTRACTS,
        npm::ENS,
        npm::COW_CONTRACTS,
        npm::SAFE_CONTRACTS,
    ] {
        assert_eq!(
            json["devDependencies"][p.name].as_str(),
            Some(p.version),
            "{}",
            p.name
        );
    }
}

#[test]
fn aave_pool_links_every_logic_library_it_needs() {
    let pool = npm::aave::artifact("Pool").unwrap();
    assert_eq!(
        pool.libraries(),
        [
            "BorrowLogic",
            "BridgeLogic",
            "EModeLogic",
            "FlashLoanLogic",
            "LiquidationLogic",
            "PoolLogic",
            "SupplyLogic"
        ]
    );
    let err = pool.linked(&Default::default()).unwrap_err().to_string();
    assert!(err.contains("needs library"), "{err}");
    let all = npm::aave::LIBRARIES
        .iter()
        .map(|n| (n.to_string(), Address::repeat_byte(0xab)))
        .collect();
    let code = pool.linked(&all).unwrap();
    let placeholder = code.windows(20).any(|w| w == [0xab; 20]);
    assert!(placeholder, "the library address is in the code");
}
