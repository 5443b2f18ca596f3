// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {PaceCore} from "../../contracts/core/PaceCore.sol";

/// @notice A throwaway account on the real enforcement core, with the standalone account's
///         EntryPoint domain, whose validation also runs `_probe` (through `_checkHome`, which
///         `validateUserOp` calls): the ERC-7562 scan must catch what the probe reads.
abstract contract ProbingAccount is PaceCore {
    constructor(address verifier_) {
        _setVerifier(verifier_);
    }

    /// @notice No owner.
    function owner() external pure returns (address) {
        return address(0);
    }

    /// @dev What the validation reads besides the core's own.
    function _probe() internal view virtual;

    function _store() internal pure override returns (PaceStore storage s) {
        assembly ("memory-safe") {
            s.slot := 0
        }
    }

    function _isOwner(address caller) internal view override returns (bool) {
        return caller == ENTRY_POINT;
    }

    function _ownerSigner() internal pure override returns (address) {
        return address(0);
    }

    function _domainSeparator() internal view override returns (bytes32) {
        return keccak256(abi.encode(block.chainid, address(this)));
    }

    function _userOpDomainSeparator(bytes32 userOpHash) internal view override returns (bytes32) {
        return keccak256(
            abi.encode(
                keccak256(
                    "EIP712Domain(string name,string version,uint256 chainId,"
                    "address verifyingContract,bytes32 salt)"
                ),
                keccak256("PaceAccount"),
                keccak256("3"),
                block.chainid,
                address(this),
                userOpHash
            )
        );
    }

    function _checkHome() internal view override {
        _probe();
    }
}

/// @notice Reads TIMESTAMP in validation.
contract TimestampReadingAccount is ProbingAccount {
    constructor(address verifier_) ProbingAccount(verifier_) {}

    function _probe() internal view override {
        if (block.timestamp == 0) revert();
    }
}

/// @notice Reads SELFBALANCE in validation.
contract SelfBalanceReadingAccount is ProbingAccount {
    constructor(address verifier_) ProbingAccount(verifier_) {}

    function _probe() internal view override {
        if (address(this).balance == type(uint256).max) revert();
    }
}
