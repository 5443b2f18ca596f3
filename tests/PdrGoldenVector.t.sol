// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {PaceAccount} from "../contracts/PaceAccount.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {PdrHash} from "../contracts/libraries/PdrHash.sol";
import {PdrTerms} from "../contracts/libraries/PdrTerms.sol";

/// @notice The committed golden vector (tests/vectors/pdr_golden.json), reproduced by the
///         account's own hashing. The Rust signer reproduces the same file in
///         crates/signer/tests/it/golden.rs: one struct, two hashers, one vector.
contract PdrGoldenVectorTest is Test {
    string internal json;

    function setUp() public {
        json = vm.readFile(string.concat(vm.projectRoot(), "/tests/vectors/pdr_golden.json"));
    }

    function _u(string memory key) internal view returns (uint256) {
        return vm.parseJsonUint(json, string.concat(".", key));
    }

    function _b32(string memory key) internal view returns (bytes32) {
        return vm.parseJsonBytes32(json, string.concat(".", key));
    }

    function _calls() internal view returns (IPaceAccount.Call[] memory calls) {
        address[] memory targets = vm.parseJsonAddressArray(json, ".callTargets");
        uint256[] memory values = vm.parseJsonUintArray(json, ".callValues");
        bytes[] memory data = vm.parseJsonBytesArray(json, ".callData");
        calls = new IPaceAccount.Call[](targets.length);
        for (uint256 i; i < targets.length; ++i) {
            calls[i] = IPaceAccount.Call(targets[i], values[i], data[i]);
        }
    }

    function _bounds() internal view returns (IPaceAccount.Bound[] memory bounds) {
        address[] memory tokens = vm.parseJsonAddressArray(json, ".boundTokens");
        uint256[] memory maxOut = vm.parseJsonUintArray(json, ".boundMaxOut");
        uint256[] memory minIn = vm.parseJsonUintArray(json, ".boundMinIn");
        bounds = new IPaceAccount.Bound[](tokens.length);
        for (uint256 i; i < tokens.length; ++i) {
            bounds[i] = IPaceAccount.Bound(tokens[i], maxOut[i], minIn[i]);
        }
    }

    function test_GoldenVector() public {
        vm.chainId(_u("chainId"));
        address accountAddr = vm.parseJsonAddress(json, ".account");
        uint256 key = vm.parseJsonUint(json, ".verifierKey");
        deployCodeTo(
            "PaceAccount.sol:PaceAccount", abi.encode(address(this), vm.addr(key)), accountAddr
        );
        PaceAccount account = PaceAccount(payable(accountAddr));

        bytes32 att =
            PdrHash.hashAttestation(_b32("policyHash"), _b32("intentHash"), _b32("simulationHash"));
        uint256 terms = PdrTerms.pack(
            uint32(_u("key")),
            uint64(_u("sequence")),
            uint40(_u("validAfter")),
            uint40(_u("validUntil")),
            uint48(_u("simulationBlock")),
            uint16(_u("maxSimulationAge")),
            uint16(_u("callGasKib"))
        );
        bytes32 digest = account.pdrDigest(_calls(), _bounds(), att, terms);
        (bytes32 r, bytes32 vs) = vm.signCompact(key, digest);

        if (vm.envOr("PACE_PRINT_GOLDEN", false)) {
            emit log_named_bytes32("attestation", att);
            emit log_named_uint("terms", terms);
            emit log_named_bytes32("digest", digest);
            emit log_named_bytes32("r", r);
            emit log_named_bytes32("vs", vs);
            return;
        }
        assertEq(att, _b32("expected.attestation"), "attestation");
        assertEq(terms, _u("expected.terms"), "terms");
        assertEq(digest, _b32("expected.digest"), "digest");
        assertEq(r, _b32("expected.r"), "r");
        assertEq(vs, _b32("expected.vs"), "vs");
    }
}
