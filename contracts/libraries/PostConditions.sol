// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../interfaces/IPaceAccount.sol";

/// @title PostConditions
/// @notice The facts a PDR's decision rested on that the execution can change, re-checked after
///         the calls: each `IPaceAccount.Check` is a static call (`target`, `data`) whose answer's
///         word `word` (`q`) must satisfy the check's `relation`:
///         - `WITHIN` (0): `lo <= q <= hi`;
///         - `KEPT` (1): `b - lo <= q <= b + hi`, `b` the same read before the calls, saturating
///           at 0 and `type(uint256).max`.
///         `measure` runs before the calls, with the outcome bounds' own reads: it refuses an
///         unknown relation (`PaceAccountUnknownCheckRelation`) before any call and reads `b` for
///         every KEPT check (a WITHIN check needs no read before). `check` runs after the
///         outcome bounds held and reverts on the first check that fails
///         (`PaceAccountCheckFailed`).
///
///         Reads fail closed: a read that reverts, runs out of gas, or answers fewer than
///         `word + 1` words (a target without code answers none) reverts the execution
///         (`PaceAccountUnreadableCheck`). Every read is given all the gas left, and one that
///         returns leaving less than 1/63 of the gas it started with counts as out of gas
///         (EIP-150 forwards all but 1/64, the rule the ERC-721 bound applies), even when it
///         answered: a submitter who starves a read only reverts the PDR, and no gas it picks
///         turns a starved read (a `try` inside the target, say) into an answer that passes.
/// @dev    Internal functions only, compiled into the account and run in its context, under its
///         lock. Each element is reached through Solidity's checked calldata access, and its
///         words are used as sent, which is what `PdrHash.hashChecks` hashed and the verifier
///         signed. A read's call data is copied above the free memory pointer, and its answer's
///         word to the scratch space at 0x00; nothing is allocated but `measure`'s array.
library PostConditions {
    /// @notice `lo <= q <= hi`.
    uint8 internal constant WITHIN = 0;
    /// @notice `b - lo <= q <= b + hi`, `b` the read before the calls.
    uint8 internal constant KEPT = 1;

    /// @notice Refuses an unknown relation and reads every KEPT check's answer before the calls,
    ///         in an array of `checks.length` words (0 for a WITHIN check).
    function measure(IPaceAccount.Check[] calldata checks)
        internal
        view
        returns (uint256[] memory before)
    {
        uint256 n = checks.length;
        assembly ("memory-safe") {
            before := mload(0x40)
            mstore(before, n)
            mstore(0x40, add(before, shl(5, add(n, 1))))
        }
        for (uint256 i; i < n; ++i) {
            IPaceAccount.Check calldata c = checks[i];
            uint256 relation;
            assembly ("memory-safe") {
                relation := calldataload(add(c, 0x60))
            }
            uint256 b;
            if (relation == KEPT) {
                b = _read(i, c);
            } else if (relation != WITHIN) {
                assembly ("memory-safe") {
                    mstore(0x00, shl(224, 0xbb80b967)) // PaceAccountUnknownCheckRelation(uint256,uint256)
                    mstore(0x04, i)
                    mstore(0x24, relation)
                    revert(0x00, 0x44)
                }
            }
            assembly ("memory-safe") {
                mstore(add(before, shl(5, add(i, 1))), b)
            }
        }
    }

    /// @notice Reads every check again after the calls and reverts on the first whose answer is
    ///         outside its range (`before` is what `measure` returned).
    function check(IPaceAccount.Check[] calldata checks, uint256[] memory before) internal view {
        for (uint256 i; i < checks.length; ++i) {
            IPaceAccount.Check calldata c = checks[i];
            uint256 q = _read(i, c);
            assembly ("memory-safe") {
                let lo := calldataload(add(c, 0x80))
                let hi := calldataload(add(c, 0xa0))
                let b := mload(add(before, shl(5, add(i, 1))))
                // WITHIN (b is 0): lo <= q <= hi.
                let bad := or(lt(q, lo), gt(q, hi))
                if calldataload(add(c, 0x60)) {
                    // KEPT: b - lo <= q <= b + hi, saturating.
                    let low := mul(gt(b, lo), sub(b, lo))
                    let high := add(b, hi)
                    if lt(high, b) { high := not(0) }
                    bad := or(lt(q, low), gt(q, high))
                }
                if bad {
                    let m := mload(0x40)
                    mstore(m, shl(224, 0xa35e2371)) // PaceAccountCheckFailed(uint256,address,uint256,uint256)
                    mstore(add(m, 0x04), i)
                    mstore(add(m, 0x24), calldataload(c))
                    mstore(add(m, 0x44), b)
                    mstore(add(m, 0x64), q)
                    revert(m, 0x84)
                }
            }
        }
    }

    /// @dev Word `word` of the answer of check `index`'s static call, or a revert.
    function _read(uint256 index, IPaceAccount.Check calldata c) private view returns (uint256 q) {
        bytes calldata data = c.data;
        assembly ("memory-safe") {
            let target := calldataload(c)
            let word := calldataload(add(c, 0x40))
            let m := mload(0x40)
            calldatacopy(m, data.offset, data.length)
            // A failed call is no answer whatever gas it had; a call that succeeded leaving less
            // than 1/63 of the gas it started with may have been starved (EIP-150 forwards all
            // but 1/64) into an answer it would not give with enough gas: no answer either.
            let g := gas()
            let ok := staticcall(gas(), target, m, data.length, 0x00, 0x00)
            ok := and(ok, iszero(lt(gas(), div(g, 63))))
            if or(lt(returndatasize(), add(shl(5, word), 0x20)), or(gt(word, 0xffff), iszero(ok))) {
                mstore(0x00, shl(224, 0x337d60ce)) // PaceAccountUnreadableCheck(uint256,address)
                mstore(0x04, index)
                mstore(0x24, target)
                revert(0x00, 0x44)
            }
            returndatacopy(0x00, shl(5, word), 0x20)
            q := mload(0x00)
        }
    }
}
