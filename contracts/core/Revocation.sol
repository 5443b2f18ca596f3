// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Revocation
/// @notice Revokes one right of the account (`IPaceAccount.Right`), reporting failure instead
///         of reverting, so one bad entry cannot keep the others standing.
library Revocation {
    /// @notice An ERC-20 allowance: `target.approve(spender, 0)`.
    uint8 internal constant ALLOWANCE = 0;
    /// @notice A Permit2 allowance: `target.lockdown([(token, spender)])`.
    uint8 internal constant PERMIT2 = 1;
    /// @notice An operator: `target.setApprovalForAll(spender, false)`.
    uint8 internal constant OPERATOR = 2;
    /// @notice A credit delegation: `target.approveDelegation(spender, 0)`.
    uint8 internal constant CREDIT_DELEGATION = 3;

    /// @dev Gas each revocation may use at most: a token that burns all it gets cannot starve
    ///      the revocations after it.
    uint256 internal constant GAS_PER_REVOCATION = 200_000;

    /// @notice Revokes right `kind` of `target` for `spender` (`token`: the Permit2 token).
    ///         False when the right is not `revocable`, the call reverts or returns a first word
    ///         of 0, or `kind` is unknown.
    function revoke(uint8 kind, address target, address token, address spender)
        internal
        returns (bool ok)
    {
        if (!revocable(kind, target, address(this), spender)) return false;
        bytes memory data = callData(kind, token, spender);
        if (data.length == 0) return false;
        assembly ("memory-safe") {
            ok := call(GAS_PER_REVOCATION, target, 0, add(data, 0x20), mload(data), 0x00, 0x20)
            // A first return word of 0 is `false` (a token returning nothing succeeds).
            if and(ok, gt(returndatasize(), 0x1f)) { ok := iszero(iszero(mload(0x00))) }
        }
    }

    /// @notice Whether right `kind` of `target` may be revoked for `holder`: `target` has code,
    ///         and an `ALLOWANCE` only where `target` answers `allowance(holder, spender)` with a
    ///         word. An ERC-721 collection takes `approve(spender, 0)` as the approval of item 0
    ///         to `spender`, a grant: it keeps no `allowance`, so nothing is sent to it.
    function revocable(uint8 kind, address target, address holder, address spender)
        internal
        view
        returns (bool ok)
    {
        if (target.code.length == 0) return false;
        if (kind != ALLOWANCE) return true;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, shl(224, 0xdd62ed3e)) // allowance(address,address)
            mstore(add(m, 0x04), holder)
            mstore(add(m, 0x24), spender)
            ok := staticcall(GAS_PER_REVOCATION, target, m, 0x44, 0x00, 0x00)
            ok := and(ok, gt(returndatasize(), 0x1f))
        }
    }

    /// @notice The call that revokes right `kind` for `spender` (`token`: the Permit2 token);
    ///         empty when `kind` is unknown.
    function callData(uint8 kind, address token, address spender)
        internal
        pure
        returns (bytes memory data)
    {
        if (kind == ALLOWANCE) {
            data = abi.encodeWithSelector(0x095ea7b3, spender, uint256(0));
        } else if (kind == PERMIT2) {
            // lockdown((address token, address spender)[]) with one pair.
            data = abi.encodeWithSelector(0xcc53287f, uint256(0x20), uint256(1), token, spender);
        } else if (kind == OPERATOR) {
            data = abi.encodeWithSelector(0xa22cb465, spender, false);
        } else if (kind == CREDIT_DELEGATION) {
            data = abi.encodeWithSelector(0xc04a8a10, spender, uint256(0));
        }
    }
}
