// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title PdrTerms
/// @notice Packs the scalar PDR fields into the one calldata word the account receives.
/// @dev    Layout, from the most significant bit:
///
///         | bits    | field            | EIP-712 type                          |
///         |---------|------------------|---------------------------------------|
///         | 255-224 | nonce lane key   | high part of `uint256 nonce`          |
///         | 223-160 | lane sequence    | low 64 bits of `uint256 nonce`        |
///         | 159-120 | validAfter       | `uint40`                              |
///         | 119-80  | validUntil       | `uint40`                              |
///         | 79-32   | simulationBlock  | `uint48`                              |
///         | 31-16   | callGasKib       | `uint16`: gas the calls need, in KiB  |
///         | 15-0    | maxSimulationAge | `uint16`                              |
///
///         so `nonce = terms >> 160 = key << 64 | sequence`. Rust packs the same way
///         (`pace_types::pdr::PdrTerms::pack`), and the differential tests hold both to it.
library PdrTerms {
    /// @notice Packs the fields into one word.
    function pack(
        uint32 key_,
        uint64 sequence_,
        uint40 validAfter_,
        uint40 validUntil_,
        uint48 simulationBlock_,
        uint16 maxSimulationAge_,
        uint16 callGasKib_
    ) internal pure returns (uint256) {
        return (uint256(key_) << 224) | (uint256(sequence_) << 160) | (uint256(validAfter_) << 120)
            | (uint256(validUntil_) << 80) | (uint256(simulationBlock_) << 32)
            | (uint256(callGasKib_) << 16) | uint256(maxSimulationAge_);
    }

    /// @notice The EIP-712 `nonce`: lane key << 64 | sequence.
    function nonce(uint256 terms) internal pure returns (uint256) {
        return terms >> 160;
    }

    /// @notice The nonce lane key.
    function key(uint256 terms) internal pure returns (uint32) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint32(terms >> 224);
    }

    /// @notice The lane sequence number.
    function sequence(uint256 terms) internal pure returns (uint64) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint64(terms >> 160);
    }

    /// @notice First valid timestamp (inclusive).
    function validAfter(uint256 terms) internal pure returns (uint40) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint40(terms >> 120);
    }

    /// @notice Last valid timestamp (inclusive).
    function validUntil(uint256 terms) internal pure returns (uint40) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint40(terms >> 80);
    }

    /// @notice Block number of the simulated state.
    function simulationBlock(uint256 terms) internal pure returns (uint48) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint48(terms >> 32);
    }

    /// @notice The gas the calls must be able to use, in units of 1,024 (0: no floor). The
    ///         account refuses to start the calls with less, so a submitter cannot pick a gas
    ///         limit that starves a sub-call the target would catch (a multicall's
    ///         `allowFailure`) onto a path nobody simulated.
    function callGasKib(uint256 terms) internal pure returns (uint16) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint16(terms >> 16);
    }

    /// @notice Blocks past `simulationBlock` during which the PDR stays executable.
    function maxSimulationAge(uint256 terms) internal pure returns (uint16) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint16(terms);
    }
}
