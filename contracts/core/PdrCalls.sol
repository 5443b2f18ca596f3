// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title PdrCalls
/// @notice One call of a PDR, as every entry path makes it.
library PdrCalls {
    /// @dev The ERC-4337 EntryPoint v0.8: it holds the account's deposit, so no PDR calls it.
    address internal constant ENTRY_POINT = 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108;

    /// @dev What a call costs the account besides the gas it forwards, at most, without a
    ///      value transfer, with headroom: the target's cold access (2,600), the cold access of
    ///      its code if it is an EIP-7702 delegate (2,600) and the instructions between the gas
    ///      check and the call (under 100), 5,300 in all, plus 500 gas of headroom. Its data is
    ///      already in memory when the check runs.
    uint256 internal constant CALL_COST = 5800;
    /// @dev What a value transfer adds (the 2,300 the callee receives on top is not counted) ...
    uint256 internal constant VALUE_COST = 9000;
    /// @dev ... and, to an empty account (EIP-161), what creating it adds.
    uint256 internal constant NEW_ACCOUNT_COST = 25_000;

    /// @dev Transient slot of the lock held by every PDR execution and owner function
    ///      (`keccak256("pace.account.lock")`): 0 when free, 1 when held, or the hash the running
    ///      PDR signed (`approveHash`).
    uint256 internal constant LOCK_SLOT =
        0xe6475957d9b5c12f9aec21e9f578f2df502ebd51e2693fff6fa85b182ade208a;
    /// @dev `IPaceSignatures.approveHash(bytes32,bytes,bytes)`.
    uint256 private constant _APPROVE_HASH = 0x1e775ef4;

    /// @dev topic0 of `IPaceAccount.RightGranted(address,address,bytes4,address)`.
    bytes32 private constant _RIGHT_GRANTED =
        0x522d5ed19bd3defeec8e7d9297cfaa933620fa11e904b45b3fef1a7f0e97ce47;

    /// @dev The account's grant filter: bits 240-255 of its packed state. Bit `240 + (a & 15)`
    ///      is set once the account has made a call to an address `a` whose low four bits are
    ///      `a & 15` that may have left a right behind (`grantBits`). Bits are only ever set.
    uint256 internal constant GRANT_SHIFT = 240;
    /// @dev Every bit of the grant filter.
    uint256 internal constant ALL_GRANTS = 0xffff << 240;

    /// @notice The grant-filter bit (in place) of `target`: bit `GRANT_SHIFT + (target & 15)`.
    function grantBit(address target) internal pure returns (uint256) {
        return uint256(1) << (GRANT_SHIFT + (uint160(target) & 15));
    }

    /// @notice The grant filter's bits (in place, bits 240-255) that a call of the account to
    ///         `target` with `data` sets: none for an ERC-20 `transfer(address,uint256)` of
    ///         exactly its 68 bytes (it moves the caller's own balance and grants nothing); every bit for a call to the
    ///         account itself (`approveHash`: a signature can grant a right over any asset);
    ///         otherwise `target`'s bit, and for Permit2's `approve(token, spender, amount,
    ///         expiration)` (by selector, on any contract) the token's bit too. A call of any other function may have granted a right over what
    ///         `target` records, whatever its name: it is never left out.
    function grantBits(address target, bytes calldata data) internal view returns (uint256 bits) {
        assembly ("memory-safe") {
            let selector := 0
            if gt(data.length, 3) { selector := shr(224, calldataload(data.offset)) }
            if iszero(and(eq(selector, 0xa9059cbb), eq(data.length, 0x44))) {
                bits := shl(add(GRANT_SHIFT, and(target, 15)), 1)
                if and(eq(selector, 0x87517c45), gt(data.length, 0x23)) {
                    let token := calldataload(add(data.offset, 0x04))
                    bits := or(bits, shl(add(GRANT_SHIFT, and(token, 15)), 1))
                }
                if eq(target, address()) { bits := ALL_GRANTS }
            }
        }
    }

    /// @notice The grant filter's bits that an owner's raw call with `data` sets: none for an
    ///         ERC-20 `transfer` of exactly its 68 bytes, every bit for anything else. No
    ///         simulation saw the call, so nothing says which rights it granted or where: an
    ///         approval given to a token's mirror, a forwarder or a registry the token trusts
    ///         reaches that token, not the contract called.
    function ownerGrantBits(bytes calldata data) internal pure returns (uint256 bits) {
        assembly ("memory-safe") {
            bits := ALL_GRANTS
            if eq(data.length, 0x44) {
                if eq(shr(224, calldataload(data.offset)), 0xa9059cbb) { bits := 0 }
            }
        }
    }

    /// @notice Runs call `index` of a PDR and returns the gas it used, from just before the gas
    ///         check to just after the call (the call's own cost and all its callee spent).
    /// @dev    The call:
    ///         - may not target the account itself, except `approveHash` (see there), nor the
    ///           EntryPoint (the account's deposit);
    ///         - starts only if its callee gets at least `floor` gas (0: no floor). The check
    ///           runs after the data is copied to memory, right before the call: the callee gets
    ///           all but 1/64 of what is left after the call's own cost (EIP-150), which is at
    ///           most `CALL_COST`, plus `VALUE_COST` with value, plus `NEW_ACCOUNT_COST` when
    ///           that value goes to an empty account; so that cost and `floor + floor / 63`
    ///           suffice;
    ///         - reverts the execution with its revert data if it fails, or if it is an ERC-20
    ///           `transfer`, `transferFrom` or `approve` (by selector) that returns 32 bytes or
    ///           more whose first word is 0. Returning nothing (USDT-style) is success;
    ///         - when it grants a right (`approve`, `increaseAllowance`, `increaseApproval`,
    ///           `setApprovalForAll`, `approveDelegation`, Permit2's `approve`), emits
    ///           `RightGranted`, the account's own record of what to revoke.
    ///         Its result stays in the return data buffer, uncopied.
    function call(uint256 index, address target, uint256 value, bytes calldata data, uint256 floor)
        internal
        returns (uint256 used)
    {
        if (target == address(this)) {
            approveHash(index, value, data);
            return 0;
        }
        assembly ("memory-safe") {
            if eq(target, ENTRY_POINT) {
                mstore(0x00, shl(224, 0x9a6a6225)) // PaceAccountEntryPointCall(uint256)
                mstore(0x04, index)
                revert(0x00, 0x24)
            }
            let m := mload(0x40)
            calldatacopy(m, data.offset, data.length)
            let start := gas()
            if floor {
                let cost := CALL_COST
                if value {
                    // EXTCODEHASH is 0 for an empty account.
                    cost := add(
                        add(cost, VALUE_COST),
                        mul(iszero(extcodehash(target)), NEW_ACCOUNT_COST)
                    )
                }
                let left := gas()
                if lt(left, add(add(floor, div(floor, 63)), cost)) {
                    // What the callee would have got.
                    left := mul(gt(left, cost), sub(left, cost))
                    mstore(m, shl(224, 0xc8f3ee86)) // PaceAccountInsufficientGas(uint256,uint256)
                    mstore(add(m, 0x04), floor)
                    mstore(add(m, 0x24), sub(left, div(left, 64)))
                    revert(m, 0x44)
                }
            }
            let ok := call(gas(), target, value, m, data.length, 0x00, 0x00)
            used := sub(start, gas())
            if iszero(ok) {
                let n := returndatasize()
                mstore(m, shl(224, 0x2acc9d97)) // PaceAccountCallFailed(uint256,bytes)
                mstore(add(m, 0x04), index)
                mstore(add(m, 0x24), 0x40)
                mstore(add(m, 0x44), n)
                returndatacopy(add(m, 0x64), 0x00, n)
                mstore(add(add(m, 0x64), n), 0) // zero padding
                revert(m, add(0x64, and(add(n, 0x1f), not(0x1f))))
            }
        }
        settle(index, target, data);
    }

    /// @notice What follows every successful call of a PDR, with the call's result in the
    ///         return data buffer: an ERC-20 `transfer`, `transferFrom` or `approve` (by
    ///         selector) whose result is 32 bytes or more with a first word of 0 reverts the
    ///         execution (`PaceAccountCallReturnedFalse`); a call that grants a right emits
    ///         `RightGranted`. The buffer is left as it was.
    /// @dev    Shared by the accounts (`call`) and by a module whose holder makes the call
    ///         (`PaceModule`), which puts the holder's inner result back in the buffer first.
    function settle(uint256 index, address target, bytes calldata data) internal {
        assembly ("memory-safe") {
            let m := mload(0x40)
            if gt(data.length, 3) {
                let selector := shr(224, calldataload(data.offset))
                if gt(returndatasize(), 0x1f) {
                    if or(
                        or(eq(selector, 0xa9059cbb), eq(selector, 0x23b872dd)), // transfer, transferFrom
                        eq(selector, 0x095ea7b3) // approve
                    ) {
                        returndatacopy(0x00, 0x00, 0x20)
                        if iszero(mload(0x00)) {
                            mstore(0x00, shl(224, 0x535473c5)) // PaceAccountCallReturnedFalse(uint256)
                            mstore(0x04, index)
                            revert(0x00, 0x24)
                        }
                    }
                }
                let mask := sub(shl(160, 1), 1)
                let token := target
                let spender := 0
                // approve, increaseAllowance, increaseApproval, setApprovalForAll,
                // approveDelegation: the spender first.
                let granted :=
                    and(
                        gt(data.length, 0x23),
                        or(
                            or(
                                or(eq(selector, 0x095ea7b3), eq(selector, 0x39509351)),
                                or(eq(selector, 0xd73dd623), eq(selector, 0xa22cb465))
                            ),
                            eq(selector, 0xc04a8a10)
                        )
                    )
                if granted { spender := and(calldataload(add(data.offset, 0x04)), mask) }
                // Permit2's approve(token, spender, amount, expiration).
                if and(eq(selector, 0x87517c45), gt(data.length, 0x43)) {
                    granted := 1
                    token := and(calldataload(add(data.offset, 0x04)), mask)
                    spender := and(calldataload(add(data.offset, 0x24)), mask)
                }
                if granted {
                    mstore(m, shl(224, selector))
                    mstore(add(m, 0x20), token)
                    log3(m, 0x40, _RIGHT_GRANTED, target, spender)
                }
            }
        }
    }

    /// @notice Signs `digest` (the first argument of `IPaceSignatures.approveHash`) for the rest
    ///         of the running PDR: `isValidSignature(digest, ...)` holds until the lock is
    ///         released. Nothing is called: the domain and message that follow the digest are
    ///         for the verifier, which signed the PDR only after judging them as the approval
    ///         they are and checking that they hash to `digest`. It emits no `RightGranted`: what
    ///         the signature grants is in the digest's typed data, which the account does not
    ///         read (`IPaceSignatures` says what a signature grant leaves behind).
    /// @dev    The digest replaces the lock's value 1, so a PDR signs at most one hash, and a
    ///         digest of 0 or 1 (which would release the lock or read as "nothing signed") is
    ///         refused. Any other call to the account itself, one with value, a second
    ///         `approveHash` in a PDR, or one of 0 or 1 reverts `PaceAccountSelfCall(index)`.
    function approveHash(uint256 index, uint256 value, bytes calldata data) internal {
        assembly ("memory-safe") {
            let digest := calldataload(add(data.offset, 0x04))
            if or(
                or(or(value, lt(data.length, 0x24)), lt(digest, 2)),
                or(
                    iszero(eq(shr(224, calldataload(data.offset)), _APPROVE_HASH)),
                    iszero(eq(tload(LOCK_SLOT), 1))
                )
            ) {
                mstore(0x00, shl(224, 0xb9b65a5b)) // PaceAccountSelfCall(uint256)
                mstore(0x04, index)
                revert(0x00, 0x24)
            }
            tstore(LOCK_SLOT, digest)
        }
    }

    /// @notice Whether the running PDR signed `digest` with `approveHash`.
    function signed(bytes32 digest) internal view returns (bool ok) {
        assembly ("memory-safe") {
            ok := and(gt(digest, 1), eq(tload(LOCK_SLOT), digest))
        }
    }
}
