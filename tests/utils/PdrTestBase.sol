// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {OutcomeBounds} from "../../contracts/libraries/OutcomeBounds.sol";
import {PdrHash} from "../../contracts/libraries/PdrHash.sol";
import {PdrTerms} from "../../contracts/libraries/PdrTerms.sol";

/// @notice Shared setup for PaceAccount tests: an owner, a verifier key and helpers that build
///         and sign PDRs exactly as the Rust signer does (EIP-712, compact signatures).
abstract contract PdrTestBase is Test {
    uint256 internal constant VERIFIER_KEY = 0xA11CE;
    uint256 internal constant OTHER_KEY = 0xB0B;
    uint64 internal constant MAX_AGE = 5;

    address internal owner = makeAddr("owner");
    address internal verifierAddr = vm.addr(VERIFIER_KEY);
    PaceAccount internal account;

    function _deployAccount() internal {
        vm.roll(100);
        vm.warp(1_700_000_000);
        account = new PaceAccount(owner, verifierAddr);
    }

    /// @dev The unpacked scalar fields of a PDR, for readable tests.
    struct Terms {
        uint32 key;
        uint64 sequence;
        uint40 validAfter;
        uint40 validUntil;
        uint64 simulationBlock;
        uint16 maxSimulationAge;
        uint16 callGasKib;
    }

    /// @dev Default terms: lane 0, next sequence, valid for an hour, simulated one block ago.
    function _terms() internal view returns (Terms memory t) {
        t.sequence = account.nextSequence(0);
        t.validAfter = uint40(block.timestamp - 1);
        t.validUntil = uint40(block.timestamp + 3600);
        t.simulationBlock = uint64(block.number - 1);
        // forge-lint: disable-next-line(unsafe-typecast)
        t.maxSimulationAge = uint16(MAX_AGE);
    }

    function _pack(Terms memory t) internal pure returns (uint256) {
        return PdrTerms.pack(
            t.key,
            t.sequence,
            t.validAfter,
            t.validUntil,
            // forge-lint: disable-next-line(unsafe-typecast)
            uint48(t.simulationBlock),
            t.maxSimulationAge,
            t.callGasKib
        );
    }

    function _attestation(uint256 salt) internal pure returns (bytes32) {
        return PdrHash.hashAttestation(
            keccak256(abi.encode("policy", salt)),
            keccak256(abi.encode("intent", salt)),
            keccak256(abi.encode("simulation", salt))
        );
    }

    function _one(address target, uint256 value, bytes memory data)
        internal
        pure
        returns (IPaceAccount.Call[] memory calls)
    {
        calls = new IPaceAccount.Call[](1);
        calls[0] = IPaceAccount.Call(target, value, data);
    }

    function _noBounds() internal pure returns (IPaceAccount.Bound[] memory) {
        return new IPaceAccount.Bound[](0);
    }

    function _noHeld() internal pure returns (address[] memory) {
        return new address[](0);
    }

    function _noChecks() internal pure returns (IPaceAccount.Check[] memory) {
        return new IPaceAccount.Check[](0);
    }

    /// @dev A BALANCE bound on the account's `token` (address(0) = ETH), inflow uncapped.
    function _balanceBound(address token, uint256 maxOut, uint256 minIn)
        internal
        pure
        returns (IPaceAccount.Bound memory)
    {
        return IPaceAccount.Bound(token, OutcomeBounds.BALANCE, 0, maxOut, minIn, type(uint256).max);
    }

    /// @dev Signs, with `key`, the PDR digest that `acct` computes, as (r, vs).
    function _signFor(
        PaceAccount acct,
        uint256 key,
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        IPaceAccount.Check[] memory checks,
        bytes32 attestation,
        uint256 terms
    ) internal view returns (bytes32 r, bytes32 vs) {
        bytes32 digest = acct.pdrDigest(calls, bounds, held, checks, attestation, terms);
        (r, vs) = vm.signCompact(key, digest);
    }

    /// @dev As `_signFor` with no checks.
    function _signFor(
        PaceAccount acct,
        uint256 key,
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        bytes32 attestation,
        uint256 terms
    ) internal view returns (bytes32 r, bytes32 vs) {
        return _signFor(acct, key, calls, bounds, held, _noChecks(), attestation, terms);
    }

    /// @dev As `_signFor` with no held assets.
    function _signFor(
        PaceAccount acct,
        uint256 key,
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        bytes32 attestation,
        uint256 terms
    ) internal view returns (bytes32 r, bytes32 vs) {
        return _signFor(acct, key, calls, bounds, _noHeld(), attestation, terms);
    }

    function _sign(
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        IPaceAccount.Check[] memory checks,
        bytes32 attestation,
        uint256 terms
    ) internal view returns (bytes32 r, bytes32 vs) {
        return _signFor(account, VERIFIER_KEY, calls, bounds, held, checks, attestation, terms);
    }

    function _sign(
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        bytes32 attestation,
        uint256 terms
    ) internal view returns (bytes32 r, bytes32 vs) {
        return _signFor(account, VERIFIER_KEY, calls, bounds, held, attestation, terms);
    }

    function _sign(
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        bytes32 attestation,
        uint256 terms
    ) internal view returns (bytes32 r, bytes32 vs) {
        return _sign(calls, bounds, _noHeld(), attestation, terms);
    }

    /// @dev Signs and submits `calls` as one batch PDR without bounds; with `revertData`,
    ///      expects the submission to revert with it.
    function _batch(IPaceAccount.Call[] memory calls, bytes memory revertData) internal {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), att, t);
        if (revertData.length != 0) vm.expectRevert(revertData);
        account.executeBatchPDR(calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs);
    }
}
