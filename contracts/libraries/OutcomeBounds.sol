// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../interfaces/IPaceAccount.sol";

/// @title OutcomeBounds
/// @notice The outcome a PDR's signed bounds and held assets enforce: `measure` reads every
///         quantity before the calls, `check` reads them again after the calls and reverts if a
///         change is outside what was signed.
///
///         A bound's quantity `q`, by `kind`:
///         - `BALANCE` (0): the account's balance of the ERC-20 `token` (`balanceOf(account)`),
///           or of ETH for address(0);
///         - `ERC721` (1): 1 if `token.ownerOf(id)` is the account, else 0; an `ownerOf` that
///           reverts, returns fewer than 32 bytes or a word that is not exactly the account
///           counts as 0 (ERC-721 reverts for a token that does not exist), but one that ran
///           out of gas is a failed read;
///         - `ERC1155` (2): `token.balanceOf(account, id)`;
///         - `HOLDING` (3): the balance of `token` (ETH for address(0)) held by the third party
///           `address(uint160(id))`, such as the issuer of a share the account receives; an
///           `id` wider than 160 bits reverts (`PaceAccountInvalidBoundHolder`);
///         - `UNGRANTED` (4): no quantity (0). When the PDR starts, the bits `id` of the
///           account's grant filter (`IPaceAccount.grantFilter`) must be clear, or the
///           execution reverts (`PaceAccountGrantRecorded`): the assets the PDR leaves unread
///           are ones no right the account granted reaches;
///         - `GRANTED` (5): no quantity (0). After the calls the account records `token`'s
///           bit in its grant filter: the calls granted a right over it that the account's
///           own calls do not name (through another contract).
///         Any other kind reverts (`PaceAccountUnknownBoundKind`) in `measure`, before any call
///         of the PDR. A bound holds when `q` rose by at least `minIn` and at most `maxIn`, or
///         fell by at most `maxOut` with `minIn` 0. A held asset (an ERC-20, address(0) for ETH)
///         holds when the account's balance did not fall: a zero-outflow bound in one word.
///
///         Reads fail closed: a BALANCE, ERC1155 or HOLDING read, or a held asset's, from a
///         token without code, that reverts or returns fewer than 32 bytes, and an ERC721 read
///         that runs out of gas, revert the execution (`PaceAccountUnreadableBound` /
///         `PaceAccountUnreadableHeld`, naming the entry). ETH never fails.
/// @dev    Internal functions only, compiled into the account and run in its context. The
///         account's quantities are `holder`'s, the address whose balances the PDR bounds (the
///         account itself, `address()`, for `PaceAccount` and `PaceDelegate`). The fields are
///         read straight from calldata: a `Bound` is six words (token, kind, id, maxOut, minIn,
///         maxIn), a held asset one. They are used as sent, which is what `PdrHash` hashed and
///         the verifier signed. Every read is a `staticcall` with all the gas left, its
///         arguments in the scratch space and its one result word at 0x00; the free memory
///         pointer is restored where 0x40 is borrowed.
library OutcomeBounds {
    /// @notice The account's balance of an ERC-20, or of ETH for address(0).
    uint8 internal constant BALANCE = 0;
    /// @notice Whether the account owns ERC-721 id `id` (1 or 0).
    uint8 internal constant ERC721 = 1;
    /// @notice The account's balance of ERC-1155 id `id`.
    uint8 internal constant ERC1155 = 2;
    /// @notice A third party's (`address(uint160(id))`) balance of an ERC-20, or of ETH.
    uint8 internal constant HOLDING = 3;
    /// @notice Grant-filter bits `id` clear when the PDR starts.
    uint8 internal constant UNGRANTED = 4;
    /// @notice `token`'s grant-filter bit recorded after the calls.
    uint8 internal constant GRANTED = 5;

    /// @notice Every bound's quantity, then every held asset's balance, in one array of
    ///         `bounds.length + held.length` words; `filter` is the account's grant filter
    ///         (16 bits) that `UNGRANTED` bounds are checked against.
    function measure(
        IPaceAccount.Bound[] calldata bounds,
        address[] calldata held,
        address holder,
        uint256 filter
    ) internal view returns (uint256[] memory before) {
        uint256 n = bounds.length;
        uint256 total = n + held.length;
        assembly ("memory-safe") {
            // Allocated without zeroing: every word is written below.
            before := mload(0x40)
            mstore(before, total)
            mstore(0x40, add(before, shl(5, add(total, 1))))
        }
        for (uint256 i; i < n; ++i) {
            uint256 q = _quantity(i, _at(bounds, i), holder, filter);
            assembly ("memory-safe") {
                mstore(add(before, shl(5, add(i, 1))), q)
            }
        }
        for (uint256 j; j < held.length; ++j) {
            uint256 q = _heldBalance(j, held, holder);
            assembly ("memory-safe") {
                mstore(add(before, shl(5, add(add(n, j), 1))), q)
            }
        }
    }

    /// @notice Reads every quantity again and reverts on the first bound, then the first held
    ///         asset, whose change from `before` (what `measure` returned) is not allowed.
    function check(
        IPaceAccount.Bound[] calldata bounds,
        address[] calldata held,
        uint256[] memory before,
        address holder
    ) internal view {
        uint256 n = bounds.length;
        for (uint256 i; i < n; ++i) {
            uint256 off = _at(bounds, i);
            // The calls' own grants do not matter after them: the filter is checked once.
            uint256 q = _quantity(i, off, holder, 0);
            assembly ("memory-safe") {
                let b := mload(add(before, shl(5, add(i, 1))))
                let minIn := calldataload(add(off, 0x80))
                // Rose (or unchanged): minIn <= q - b <= maxIn.
                let d := sub(q, b)
                let bad := or(lt(d, minIn), gt(d, calldataload(add(off, 0xa0))))
                // Fell: minIn == 0 and b - q <= maxOut.
                if lt(q, b) { bad := or(minIn, gt(sub(b, q), calldataload(add(off, 0x60)))) }
                if bad {
                    let m := mload(0x40)
                    mstore(m, shl(224, 0xc73afb04)) // PaceAccountOutcomeOutOfBounds(uint256,address,uint256,uint256)
                    mstore(add(m, 0x04), i)
                    mstore(add(m, 0x24), calldataload(off))
                    mstore(add(m, 0x44), b)
                    mstore(add(m, 0x64), q)
                    revert(m, 0x84)
                }
            }
        }
        for (uint256 j; j < held.length; ++j) {
            uint256 q = _heldBalance(j, held, holder);
            assembly ("memory-safe") {
                let b := mload(add(before, shl(5, add(add(n, j), 1))))
                if lt(q, b) {
                    let m := mload(0x40)
                    mstore(m, shl(224, 0xf11c1f45)) // PaceAccountHeldBalanceFell(uint256,address,uint256,uint256)
                    mstore(add(m, 0x04), j)
                    mstore(add(m, 0x24), calldataload(add(held.offset, shl(5, j))))
                    mstore(add(m, 0x44), b)
                    mstore(add(m, 0x64), q)
                    revert(m, 0x84)
                }
            }
        }
    }

    /// @dev The calldata offset of `bounds[i]` (six words each; `i` is below the length).
    function _at(IPaceAccount.Bound[] calldata bounds, uint256 i)
        private
        pure
        returns (uint256 off)
    {
        assembly ("memory-safe") {
            off := add(bounds.offset, mul(i, 0xc0))
        }
    }

    /// @notice The grant-filter bits (in place, `PdrCalls.grantBits`) of the `GRANTED`
    ///         bounds' tokens.
    function granted(IPaceAccount.Bound[] calldata bounds) internal pure returns (uint256 bits) {
        assembly ("memory-safe") {
            let end := add(bounds.offset, mul(bounds.length, 0xc0))
            for { let off := bounds.offset } lt(off, end) { off := add(off, 0xc0) } {
                if eq(calldataload(add(off, 0x20)), GRANTED) {
                    // PdrCalls.grantBit of the bound's token (GRANT_SHIFT is 240).
                    bits := or(bits, shl(add(240, and(calldataload(off), 15)), 1))
                }
            }
        }
    }

    /// @dev The quantity of bound `index`, whose six words start at calldata offset `off`;
    ///      `filter` is the grant filter an `UNGRANTED` bound is checked against (0: none).
    function _quantity(uint256 index, uint256 off, address holder, uint256 filter)
        private
        view
        returns (uint256 q)
    {
        assembly ("memory-safe") {
            let token := calldataload(off)
            let id := calldataload(add(off, 0x40))
            let ok := 1
            let kind := calldataload(add(off, 0x20))
            switch kind
            case 0 {
                // BALANCE: balanceOf(holder), or the holder's ETH.
                switch token
                case 0 {
                    q := selfbalance()
                    if iszero(eq(holder, address())) { q := balance(holder) }
                }
                default {
                    mstore(0x00, 0x70a08231) // balanceOf(address)
                    mstore(0x20, holder)
                    // The call runs before returndatasize is read (arguments go right to left).
                    ok := and(
                        gt(returndatasize(), 0x1f),
                        staticcall(gas(), token, 0x1c, 0x24, 0x00, 0x20)
                    )
                    q := mload(0x00)
                }
            }
            case 1 {
                // ERC721: ownerOf(id) == account, anything else (a revert included) 0. A call
                // that failed leaving less than 1/63 of the gas it started with ran out of it
                // (EIP-150 forwards all but 1/64): that is no answer, so the read fails, or a
                // submitter could pick the gas that makes a costly ownerOf count as 0.
                mstore(0x00, 0x6352211e) // ownerOf(uint256)
                mstore(0x20, id)
                let g := gas()
                q := staticcall(gas(), token, 0x1c, 0x24, 0x00, 0x20)
                if iszero(q) { ok := iszero(lt(gas(), div(g, 63))) }
                q := and(and(q, gt(returndatasize(), 0x1f)), eq(mload(0x00), holder))
            }
            case 2 {
                // ERC1155: balanceOf(holder, id); 0x40 is borrowed and restored.
                let m := mload(0x40)
                mstore(0x00, 0x00fdd58e) // balanceOf(address,uint256)
                mstore(0x20, holder)
                mstore(0x40, id)
                ok := and(
                    gt(returndatasize(), 0x1f),
                    staticcall(gas(), token, 0x1c, 0x44, 0x00, 0x20)
                )
                q := mload(0x00)
                mstore(0x40, m)
            }
            case 3 {
                // HOLDING: the holder's balanceOf, or its ETH.
                if shr(160, id) {
                    mstore(0x00, shl(224, 0xe7172178)) // PaceAccountInvalidBoundHolder(uint256,uint256)
                    mstore(0x04, index)
                    mstore(0x24, id)
                    revert(0x00, 0x44)
                }
                switch token
                case 0 { q := balance(id) }
                default {
                    mstore(0x00, 0x70a08231) // balanceOf(address)
                    mstore(0x20, id)
                    ok := and(
                        gt(returndatasize(), 0x1f),
                        staticcall(gas(), token, 0x1c, 0x24, 0x00, 0x20)
                    )
                    q := mload(0x00)
                }
            }
            case 4 {
                // UNGRANTED: the filter's bits `id` clear.
                let hit := and(filter, id)
                if hit {
                    mstore(0x00, shl(224, 0x2268d1a5)) // PaceAccountGrantRecorded(uint256,uint256)
                    mstore(0x04, index)
                    mstore(0x24, hit)
                    revert(0x00, 0x44)
                }
            }
            case 5 {
            // GRANTED: recorded after the calls (`granted`).
            }
            default {
                mstore(0x00, shl(224, 0xb9ce2a84)) // PaceAccountUnknownBoundKind(uint256,uint256)
                mstore(0x04, index)
                mstore(0x24, kind)
                revert(0x00, 0x44)
            }
            if iszero(ok) {
                mstore(0x00, shl(224, 0x79b6774a)) // PaceAccountUnreadableBound(uint256,address)
                mstore(0x04, index)
                mstore(0x24, token)
                revert(0x00, 0x44)
            }
        }
    }

    /// @dev `holder`'s balance of held asset `index` (`held[index]`; ETH for address(0)).
    function _heldBalance(uint256 index, address[] calldata held, address holder)
        private
        view
        returns (uint256 q)
    {
        assembly ("memory-safe") {
            let token := calldataload(add(held.offset, shl(5, index)))
            switch token
            case 0 {
                q := selfbalance()
                if iszero(eq(holder, address())) { q := balance(holder) }
            }
            default {
                mstore(0x00, 0x70a08231) // balanceOf(address)
                mstore(0x20, holder)
                if iszero(
                    and(
                        gt(returndatasize(), 0x1f),
                        staticcall(gas(), token, 0x1c, 0x24, 0x00, 0x20)
                    )
                ) {
                    mstore(0x00, shl(224, 0x085dcb4c)) // PaceAccountUnreadableHeld(uint256,address)
                    mstore(0x04, index)
                    mstore(0x24, token)
                    revert(0x00, 0x44)
                }
                q := mload(0x00)
            }
        }
    }
}
