use pace_contracts::{Error, MAINNET_PAIR_INIT_CODE_HASH, UNISWAP_V2_NAMES, uniswap_v2};

#[test]
fn every_uniswap_artifact_loads() {
    for name in UNISWAP_V2_NAMES {
        let artifact = uniswap_v2(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(artifact.name, *name);
        assert!(!artifact.bytecode.is_empty(), "{name} creation code");
        assert!(
            !artifact.deployed_bytecode.is_empty(),
            "{name} runtime code"
        );
        assert!(!artifact.abi.is_empty(), "{name} abi");
    }
    assert!(matches!(
        uniswap_v2("UniswapV3Pool"),
        Err(Error::UnknownPrebuiltArtifact { .. })
    ));
}

/// Router02 locates pairs by CREATE2 with mainnet's pair init-code hash; the npm pair code must
/// hash to it for the npm factory and router to work together.
#[test]
fn npm_pair_code_has_the_init_code_hash_router02_expects() {
    let pair = uniswap_v2("UniswapV2Pair").unwrap();
    assert_eq!(
        alloy_primitives::keccak256(&pair.bytecode),
        MAINNET_PAIR_INIT_CODE_HASH
    );
    let router = uniswap_v2("UniswapV2Router02").unwrap();
    assert!(
        router
            .bytecode
            .windows(32)
            .any(|w| w == MAINNET_PAIR_INIT_CODE_HASH.as_slice())
    );
}
