// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../interfaces/IPaceAccount.sol";
import {Budgets} from "../libraries/Budgets.sol";
import {OutcomeBounds} from "../libraries/OutcomeBounds.sol";
import {PdrHash} from "../libraries/PdrHash.sol";
import {PdrTerms} from "../libraries/PdrTerms.sol";
import {PostConditions} from "../libraries/PostConditions.sol";
import {PdrCalls} from "./PdrCalls.sol";
import {PaceState} from "./PaceState.sol";
import {UserOpPdr} from "./UserOpPdr.sol";

/// @title PaceCore
/// @notice The enforcement core every PACE entry path shares: a call, or an atomic batch,
///         executes only under a Policy Decision Record (PDR) signed by the verifier over
///         EIP-712 typed data, and the realised outcome is re-checked against the signed bounds
///         after the calls (`libraries/OutcomeBounds.sol`), then the facts the decision rested
///         on against the signed post-conditions (`libraries/PostConditions.sol`). Two entry paths reach it: the direct
///         call (`executePDR`, `executeBatchPDR`, sent by anyone) and the ERC-4337 EntryPoint
///         v0.8 (`validateUserOp`, `executeUserOpPdr`). Each PDR is bound to one path by its
///         EIP-712 domain: the direct path's domain, or the same domain salted with the user
///         operation's hash, which the EntryPoint derives from itself, the chain, the nonce,
///         the call data, every gas limit and fee and the paymaster.
/// @dev    What a concrete account supplies: where the state lives (`_store`), who the owner is
///         (`_isOwner`, `_ownerSigner`), its domains (`_domainSeparator`,
///         `_userOpDomainSeparator`) and where it may run (`_checkHome`). The holder whose
///         balances the bounds, held assets and budgets measure is `_holder()`: the account
///         itself by default, which both accounts keep; a module guarding another account (a
///         Safe) measures that account.
///
///         Checks shared by every path: the signer, nonce lanes, the validity window, the
///         simulation's freshness, the gas floor, the outcome bounds and held assets, the
///         post-conditions, the spending budgets (`libraries/Budgets.sol`) and the transient
///         lock, which every PDR
///         execution and every owner function holds, so none starts inside another.
///
///         On the EntryPoint path the checks split by phase (ERC-7562 bans TIMESTAMP, NUMBER
///         and BALANCE in an unstaked account's validation): the signer, the nonce lane's floor
///         and the pause flag run in validation, the window goes to the EntryPoint as
///         `validationData`; the lane's floor and the pause flag again, freshness, the gas
///         floor, bounds, post-conditions and budgets run in execution, which also moves the lane past the
///         sequence (one lane per key on both paths). A PDR user operation's gas is paid from the account's EntryPoint
///         deposit or by a paymaster, never from the account's ether (`validateUserOp`).
abstract contract PaceCore is IPaceAccount, PaceState {
    using Budgets for Budgets.Ledger;

    /// @dev ERC-4337's `SIG_VALIDATION_FAILED`.
    uint256 private constant _SIG_VALIDATION_FAILED = 1;

    /*//////////////////////////////////////////////////////////////
                          WHAT AN ACCOUNT SUPPLIES
    //////////////////////////////////////////////////////////////*/

    /// @dev The address whose balances the outcome bounds, held assets and budgets measure: the
    ///      account itself.
    function _holder() internal view virtual returns (address) {
        return address(this);
    }

    /// @dev The key whose 65-byte signature of a user operation's hash is the owner's.
    function _ownerSigner() internal view virtual returns (address);

    /// @dev The direct path's EIP-712 domain separator.
    function _domainSeparator() internal view virtual returns (bytes32);

    /// @dev Makes call `index` of a PDR and returns the gas it used, leaving its result in the
    ///      return data buffer (`PdrCalls.call`, which the accounts make themselves). A module
    ///      has its holder make the call.
    function _call(uint256 index, address target, uint256 value, bytes calldata data, uint256 floor)
        internal
        virtual
        returns (uint256 used)
    {
        used = PdrCalls.call(index, target, value, data, floor);
        uint256 bits = PdrCalls.grantBits(target, data);
        if (bits != 0) _recordGrants(bits);
    }

    /// @dev The EntryPoint path's EIP-712 domain separator for the user operation `userOpHash`.
    function _userOpDomainSeparator(bytes32 userOpHash) internal view virtual returns (bytes32);

    /*//////////////////////////////////////////////////////////////
                              PDR EXECUTION
    //////////////////////////////////////////////////////////////*/

    /// @notice Accepts ETH.
    receive() external payable virtual {}

    /// @inheritdoc IPaceAccount
    function executePDR(
        address target,
        uint256 value,
        bytes calldata data,
        bytes32 attestation,
        uint256 terms,
        bytes32 r,
        bytes32 vs
    ) external payable returns (bytes memory result) {
        bytes32 structHash = PdrHash.hashPdr(
            attestation,
            PdrHash.hashSingleCallArray(target, value, data),
            PdrHash.EMPTY_ARRAY_HASH,
            PdrHash.EMPTY_ARRAY_HASH,
            PdrHash.EMPTY_ARRAY_HASH,
            terms
        );
        (bytes32 digest, bool budgeted) = _authorize(structHash, terms, r, vs);
        if (budgeted) revert PaceAccountBudgetRequiresBatch();
        emit PdrExecuted(digest);
        _lock();
        _call(0, target, value, data, _floor(terms));
        _unlockAndReturnResult();
    }

    /// @inheritdoc IPaceAccount
    function executeBatchPDR(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        Check[] calldata checks,
        bytes32 attestation,
        uint256 terms,
        bytes32 r,
        bytes32 vs
    ) external payable {
        if (calls.length == 0) revert PaceAccountEmptyBatch();
        (bytes32 digest, bool budgeted) = _authorize(
            PdrHash.hashBatch(calls, bounds, held, checks, attestation, terms), terms, r, vs
        );
        emit PdrExecuted(digest);
        _runBatch(calls, bounds, held, checks, terms, budgeted);
    }

    /*//////////////////////////////////////////////////////////////
                            ENTRYPOINT PATH
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IPaceAccount
    function validateUserOp(
        PackedUserOperation calldata userOp,
        bytes32 userOpHash,
        uint256 missingAccountFunds
    ) external returns (uint256 validationData) {
        if (msg.sender != ENTRY_POINT) {
            revert PaceAccountNotEntryPoint(msg.sender);
        }
        _checkHome();
        if (userOp.signature.length != 65) return _validatePdrUserOp(userOp, userOpHash);
        validationData = _validateOwnerUserOp(userOp, userOpHash);
        // Only the owner's operations pay their prefund from the account's ether: the owner's
        // key signed their gas terms. A PDR operation's gas comes from the deposit (or a
        // paymaster), which the EntryPoint checks (AA21): the verifier's key signs gas terms
        // and fees but never spends the account's ether on them.
        if (missingAccountFunds != 0) {
            assembly ("memory-safe") {
                // The EntryPoint checks the deposit; a failed send only fails the operation.
                pop(call(gas(), caller(), missingAccountFunds, 0x00, 0x00, 0x00, 0x00))
            }
        }
    }

    /// @inheritdoc IPaceAccount
    function executeUserOpPdr(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        Check[] calldata checks,
        uint256 terms
    ) external {
        // Validation admitted only a non-empty batch the verifier signed.
        if (msg.sender != ENTRY_POINT) {
            revert PaceAccountNotEntryPoint(msg.sender);
        }
        PaceStore storage s = _store();
        uint256 config = s.config;
        if ((config >> _PAUSED_SHIFT) & 0xff != 0) revert PaceAccountPaused();
        // The lane's floor again (an owner's `cancelNonces` earlier in the same bundle cancels),
        // then the lane moves past the sequence, as on the direct path: one lane per key
        // whichever path executes, so no (lane, sequence) runs twice and `nextSequence` counts
        // the EntryPoint's executions. The EntryPoint's sequence of a key steps by one from 0, so
        // `sequence + 1` cannot overflow (a retired lane's floor, type(uint64).max, refused it).
        uint32 key = PdrTerms.key(terms);
        uint64 seq = PdrTerms.sequence(terms);
        if (key == 0) {
            // forge-lint: disable-next-line(unsafe-typecast)
            _checkFloor(0, uint64(config >> _SEQUENCE_SHIFT), seq);
            unchecked {
                s.config = _withSequence(config, seq + 1);
            }
        } else {
            _checkFloor(key, s.laneSequence[key], seq);
            unchecked {
                s.laneSequence[key] = seq + 1;
            }
        }
        _checkFreshness(terms);
        // The EntryPoint's `UserOperationEvent` records the execution, under the user
        // operation's hash: no `PdrExecuted` of its own.
        _runBatch(calls, bounds, held, checks, terms, (config >> _BUDGETED_SHIFT) & 0xff != 0);
    }

    /// @inheritdoc IPaceAccount
    function entryPoint() external pure returns (address) {
        return ENTRY_POINT;
    }

    /*//////////////////////////////////////////////////////////////
                               OWNER PATH
    //////////////////////////////////////////////////////////////*/

    /// @notice Owner-only raw call, for recovery and administration.
    function execute(address target, uint256 value, bytes calldata data)
        external
        payable
        onlyOwner
        returns (bytes memory result)
    {
        emit OwnerExecuted(target, value);
        bool ok;
        (ok, result) = target.call{value: value}(data);
        if (!ok) revert PaceAccountCallFailed(0, result);
        _recordGrants(PdrCalls.ownerGrantBits(data));
    }

    /// @notice Owner-only raw atomic batch.
    function executeBatch(Call[] calldata calls) external payable virtual onlyOwner {
        _executeBatch(calls);
    }

    /// @notice Rotates the verifier key. PDRs signed by the previous key stop being accepted.
    /// @dev    Rotating back to an earlier key revives its signed PDRs whose sequences are still
    ///         ahead of their lanes: after rotating away from a leaked key, also `cancelNonces`.
    function setVerifier(address verifier_) external virtual onlyOwner {
        _setVerifier(verifier_);
    }

    /// @notice Pauses or resumes PDR execution. The owner path stays open.
    function setPaused(bool paused_) external virtual onlyOwner {
        _setPaused(paused_);
    }

    /// @notice Sets the spending budget of `token` (address(0) = ETH): PDR executions may move at
    ///         most `limit` of it out of the account per `period` seconds, in total. A `period`
    ///         of 0 removes the budget. A new budget starts its first period now.
    function setBudget(address token, uint128 limit, uint64 period) external virtual onlyOwner {
        _setBudget(token, limit, period);
    }

    /// @notice Sets each listed allowance of the account to 0 (`token.approve(spender, 0)`), the
    ///         first response to a leaked verifier key: allowances cannot be listed on-chain, but
    ///         the account's `RightGranted` events name every spender a PDR ever approved.
    /// @dev    Best effort: each pair on its own, so a token whose `approve` reverts (one named
    ///         by a spoofed `Approval` log, say) cannot keep the real allowances standing.
    function revokeAllowances(Allowance[] calldata allowances)
        external
        virtual
        onlyOwner
        returns (uint256 failed)
    {
        return _revokeAllowances(allowances);
    }

    /// @notice Revokes each listed right (ERC-20 and Permit2 allowances, operators, credit
    ///         delegations), each on its own, like `revokeAllowances`.
    function revokeRights(Right[] calldata rights)
        external
        virtual
        onlyOwner
        returns (uint256 failed)
    {
        return _revokeRights(rights);
    }

    /// @notice Sets the grant filter to `filter`: the owner declares that no right the account
    ///         granted reaches a token whose bit is clear (after reviewing its `RightGranted`
    ///         records and its own raw calls, each of which sets every bit). A PDR may then leave
    ///         such a token unread. Nothing where the account keeps no filter.
    function setGrantFilter(uint16 filter) external virtual onlyOwner {
        _declareGrants(filter);
    }

    /// @notice Moves nonce lane `key` forward to `sequence`, cancelling every signed PDR below it
    ///         (on the EntryPoint path, the lane's floor: validation refuses a lower sequence).
    /// @dev    `type(uint64).max` retires the lane for good: no PDR can execute on it again.
    function cancelNonces(uint32 key, uint64 sequence) external virtual onlyOwner {
        _raiseLane(key, sequence);
    }

    /*//////////////////////////////////////////////////////////////
                             RECEIVER HOOKS
    //////////////////////////////////////////////////////////////*/

    /// @notice Accepts ERC-721 safe transfers (pure: also while the lock is held).
    function onERC721Received(address, address, uint256, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC721Received.selector;
    }

    /// @notice Accepts ERC-1155 transfers (pure: also while the lock is held).
    function onERC1155Received(address, address, uint256, uint256, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC1155Received.selector;
    }

    /// @notice Accepts ERC-1155 batch transfers (pure: also while the lock is held).
    function onERC1155BatchReceived(
        address,
        address,
        uint256[] calldata,
        uint256[] calldata,
        bytes calldata
    ) external pure returns (bytes4) {
        return this.onERC1155BatchReceived.selector;
    }

    /// @inheritdoc IPaceAccount
    function isValidSignature(bytes32 hash, bytes calldata) external view returns (bytes4) {
        return PdrCalls.signed(hash) ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }

    /// @notice ERC-165: the receiver hooks, ERC-4337's `IAccount` and ERC-165 itself.
    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 // IERC165
            || id == 0x150b7a02 // IERC721Receiver
            || id == 0x4e2312e0 // IERC1155Receiver
            || id == 0x19822f7c; // IAccount (validateUserOp)
    }

    /*//////////////////////////////////////////////////////////////
                                  VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice The key that signs PDRs.
    function verifier() external view returns (address) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return address(uint160(_store().config));
    }

    /// @notice Whether PDR execution is paused.
    function paused() external view returns (bool) {
        return (_store().config >> _PAUSED_SHIFT) & 0xff != 0;
    }

    /// @notice The budget of `token` and its current period (all zero when it has none). Once a
    ///         period has ended, the current one is the period a charge now would open: it
    ///         starts now and nothing is spent in it.
    function budget(address token)
        external
        view
        virtual
        returns (uint128 limit, uint64 period, uint64 windowStart, uint128 spent)
    {
        return _budget(token);
    }

    /// @notice The tokens that have a budget.
    function budgetTokens() external view virtual returns (address[] memory) {
        return _store().budgets.tokens;
    }

    /// @inheritdoc IPaceAccount
    function grantFilter() external view returns (uint16) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return uint16(_grantFilter());
    }

    /// @notice The next sequence number of nonce lane `key`: one past the last sequence a PDR
    ///         executed on it through either path, or the owner's cancel floor. The direct path
    ///         takes exactly this sequence; the EntryPoint path any at or above it (the
    ///         EntryPoint's own nonce orders them).
    function nextSequence(uint32 key) external view returns (uint64) {
        return _sequenceOf(key);
    }

    /// @notice The direct path's EIP-712 domain separator.
    function domainSeparator() external view virtual returns (bytes32) {
        return _domainSeparator();
    }

    /// @notice The EntryPoint path's EIP-712 domain separator for user operation `userOpHash`.
    function userOpDomainSeparator(bytes32 userOpHash) external view virtual returns (bytes32) {
        return _userOpDomainSeparator(userOpHash);
    }

    /// @notice The digest the verifier signs for `calls`, `bounds`, `held`, `checks`,
    ///         `attestation` and `terms` on the direct path.
    function pdrDigest(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        Check[] calldata checks,
        bytes32 attestation,
        uint256 terms
    ) external view virtual returns (bytes32) {
        return PdrHash.toTypedDataHash(
            _domainSeparator(), PdrHash.hashBatch(calls, bounds, held, checks, attestation, terms)
        );
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev The direct path's checks of the PDR whose `hashStruct` is `structHash`, then the
    ///      nonce is consumed (checks-effects-interactions).
    function _authorize(bytes32 structHash, uint256 terms, bytes32 r, bytes32 vs)
        private
        returns (bytes32 digest, bool budgeted)
    {
        _checkHome();
        PaceStore storage s = _store();
        uint256 config = s.config; // the only cold storage read of the common path
        budgeted = (config >> _BUDGETED_SHIFT) & 0xff != 0;
        if ((config >> _PAUSED_SHIFT) & 0xff != 0) revert PaceAccountPaused();

        uint40 validAfter = PdrTerms.validAfter(terms);
        if (block.timestamp < validAfter) {
            revert PaceAccountNotYetValid(validAfter, block.timestamp);
        }
        uint40 validUntil = PdrTerms.validUntil(terms);
        if (block.timestamp > validUntil) revert PaceAccountExpired(validUntil, block.timestamp);
        _checkFreshness(terms);

        digest = PdrHash.toTypedDataHash(_domainSeparator(), structHash);
        address recovered = _recover(digest, r, vs);
        if (!_isVerifier(config, recovered)) revert PaceAccountInvalidSigner(recovered);

        uint32 key = PdrTerms.key(terms);
        uint64 seq = PdrTerms.sequence(terms);
        // A retired lane's sequence is type(uint64).max, so `seq + 1` below cannot overflow.
        if (key == 0) {
            // forge-lint: disable-next-line(unsafe-typecast)
            uint64 expected = uint64(config >> _SEQUENCE_SHIFT);
            if (expected == type(uint64).max) revert PaceAccountLaneRetired(0);
            if (seq != expected) revert PaceAccountInvalidNonce(0, expected, seq);
            unchecked {
                s.config = _withSequence(config, seq + 1);
            }
        } else {
            uint64 expected = s.laneSequence[key];
            if (expected == type(uint64).max) revert PaceAccountLaneRetired(key);
            if (seq != expected) revert PaceAccountInvalidNonce(key, expected, seq);
            unchecked {
                s.laneSequence[key] = seq + 1;
            }
        }
    }

    /// @dev An owner user operation: a 65-byte ECDSA signature of `userOpHash` by the owner,
    ///      call data that is no PDR batch (`executeUserOpPdr` runs only what a PDR signed), and
    ///      an EntryPoint nonce key at or above 2^32 (`nonce >> 96` not 0): keys below are the
    ///      PDR lanes, so neither kind of operation can spend the other's nonces.
    function _validateOwnerUserOp(PackedUserOperation calldata userOp, bytes32 userOpHash)
        private
        view
        returns (uint256)
    {
        if (userOp.nonce >> 96 == 0 || UserOpPdr.isPdrSelector(userOp.callData)) {
            return _SIG_VALIDATION_FAILED;
        }
        bytes calldata sig = userOp.signature;
        bytes32 r = bytes32(sig[0:32]);
        bytes32 sv = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        address signer = _ownerSigner();
        address recovered = ecrecover(userOpHash, v, r, sv);
        return recovered != address(0) && recovered == signer ? 0 : _SIG_VALIDATION_FAILED;
    }

    /// @dev A PDR user operation: its batch and terms, nonce lane, signer and pause flag; its
    ///      window goes back to the EntryPoint. Every bad PDR is `SIG_VALIDATION_FAILED`, never
    ///      a revert.
    function _validatePdrUserOp(PackedUserOperation calldata userOp, bytes32 userOpHash)
        private
        view
        returns (uint256)
    {
        if (
            userOp.signature.length != UserOpPdr.SIGNATURE_LENGTH
                || !UserOpPdr.isBatch(userOp.callData)
                || UserOpPdr.calls(userOp.callData).length == 0
        ) {
            return _SIG_VALIDATION_FAILED;
        }
        uint256 terms = UserOpPdr.terms(userOp.callData);
        // The EntryPoint's nonce is the PDR's: `key << 64 | sequence`.
        if (userOp.nonce != PdrTerms.nonce(terms)) return _SIG_VALIDATION_FAILED;
        uint40 validUntil = PdrTerms.validUntil(terms);
        // validUntil 0 would mean "no expiry" to the EntryPoint.
        if (validUntil == 0) return _SIG_VALIDATION_FAILED;

        uint256 config = _store().config;
        if ((config >> _PAUSED_SHIFT) & 0xff != 0) return _SIG_VALIDATION_FAILED;
        uint64 floor = _sequenceOf(PdrTerms.key(terms));
        if (floor == type(uint64).max || PdrTerms.sequence(terms) < floor) {
            return _SIG_VALIDATION_FAILED;
        }

        (bytes32 attestation, bytes32 r, bytes32 vs) = UserOpPdr.signature(userOp.signature);
        bytes32 digest = PdrHash.toTypedDataHash(
            _userOpDomainSeparator(userOpHash),
            _userOpStructHash(userOp.callData, attestation, terms)
        );
        if (!_isVerifier(config, _recover(digest, r, vs))) return _SIG_VALIDATION_FAILED;
        // The EntryPoint's validAfter is exclusive (`block.timestamp <= validAfter` is not due
        // yet), the PDR's inclusive.
        uint256 validAfter = PdrTerms.validAfter(terms);
        unchecked {
            if (validAfter != 0) --validAfter;
        }
        return (uint256(validUntil) << 160) | (validAfter << 208);
    }

    /// @dev `hashStruct(Pdr)` of the batch in a PDR user operation's call data (one that passed
    ///      `UserOpPdr.isBatch`).
    function _userOpStructHash(bytes calldata callData, bytes32 attestation, uint256 terms)
        private
        pure
        returns (bytes32)
    {
        return PdrHash.hashPdr(
            attestation,
            PdrHash.hashCalls(UserOpPdr.calls(callData)),
            PdrHash.hashBounds(UserOpPdr.bounds(callData)),
            PdrHash.hashAddresses(UserOpPdr.held(callData)),
            PdrHash.hashChecks(UserOpPdr.checks(callData)),
            terms
        );
    }

    /// @dev Reverts unless `seq` is at or above lane `key`'s floor and the lane is not retired.
    function _checkFloor(uint32 key, uint64 floor, uint64 seq) private pure {
        if (floor == type(uint64).max) revert PaceAccountLaneRetired(key);
        if (seq < floor) revert PaceAccountInvalidNonce(key, floor, seq);
    }

    /// @dev Whether `recovered` is the verifier of `config`. A failed recovery is address(0):
    ///      never a match, even for an unset verifier slot.
    function _isVerifier(uint256 config, address recovered) private pure returns (bool ok) {
        assembly ("memory-safe") {
            ok := iszero(or(xor(recovered, and(config, sub(shl(160, 1), 1))), iszero(recovered)))
        }
    }

    /// @dev The simulation's freshness: its block has been produced and is at most
    ///      `maxSimulationAge` blocks old.
    function _checkFreshness(uint256 terms) private view {
        uint48 simulationBlock = PdrTerms.simulationBlock(terms);
        if (simulationBlock > block.number) {
            revert PaceAccountSimulationInFuture(simulationBlock, block.number);
        }
        uint16 maxAge = PdrTerms.maxSimulationAge(terms);
        uint256 age;
        unchecked {
            age = block.number - simulationBlock; // simulationBlock <= block.number, checked above
        }
        if (age > maxAge) revert PaceAccountStaleSimulation(simulationBlock, maxAge, block.number);
    }

    /// @dev A batch under the lock: bounds and KEPT checks measured (an unknown bound kind or
    ///      check relation refused, an `UNGRANTED` bound checked against the grant filter), the
    ///      calls (metered by the budgets when on), bounds checked, then the post-conditions;
    ///      last, the `GRANTED` bounds' tokens recorded in the grant filter.
    function _runBatch(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        Check[] calldata checks,
        uint256 terms,
        bool budgeted
    ) private {
        _lock();
        address holder = _holder();
        // The grant filter matters to `UNGRANTED` bounds only: none without bounds.
        uint256[] memory before =
            OutcomeBounds.measure(bounds, held, holder, bounds.length == 0 ? 0 : _grantFilter());
        uint256[] memory kept = PostConditions.measure(checks);
        _runCalls(calls, terms, budgeted, holder);
        OutcomeBounds.check(bounds, held, before, holder);
        PostConditions.check(checks, kept);
        if (bounds.length != 0) _recordGrants(OutcomeBounds.granted(bounds));
        _unlock();
    }

    /// @dev The batch's calls, metered by the budgets when on.
    function _runCalls(Call[] calldata calls, uint256 terms, bool budgeted, address holder)
        private
    {
        if (budgeted) {
            _store().budgets.charge(_store().budgets.meter(calls, _floor(terms), _pdrCall, holder));
        } else {
            uint256 floor = _floor(terms);
            for (uint256 i; i < calls.length; ++i) {
                floor = _pdrCall(i, calls[i], floor);
            }
        }
    }

    /// @dev The signed gas floor in gas (`PdrTerms.callGasKib` KiB; 0: none). The signer sets
    ///      it at 1.5x the simulated gas: room for refunds and the 1/64 each nested call keeps
    ///      back.
    function _floor(uint256 terms) private pure returns (uint256) {
        return uint256(PdrTerms.callGasKib(terms)) << 10;
    }

    /// @dev Call `index` of a PDR (`PdrCalls.call`); returns the floor left for the next call,
    ///      the floor less what this one used.
    function _pdrCall(uint256 index, Call calldata c, uint256 floor) private returns (uint256) {
        uint256 used = _call(index, c.target, c.value, c.data, floor);
        unchecked {
            return floor > used ? floor - used : 0;
        }
    }

    /// @dev Releases the lock and returns from the lean path with the last call's result,
    ///      ABI-encoded as `bytes`, copied once.
    function _unlockAndReturnResult() private {
        uint256 slot = PdrCalls.LOCK_SLOT;
        assembly ("memory-safe") {
            tstore(slot, 0)
            let m := mload(0x40)
            let n := returndatasize()
            mstore(m, 0x20)
            mstore(add(m, 0x20), n)
            returndatacopy(add(m, 0x40), 0x00, n)
            mstore(add(add(m, 0x40), n), 0) // zero padding
            return(m, add(0x40, and(add(n, 0x1f), not(0x1f))))
        }
    }

    /// @dev EIP-2098 compact signature recovery; returns address(0) on failure.
    ///      High-s values need no rejection here: the nonce, not the signature bytes, prevents
    ///      replay, and any signature over the digest is the verifier's approval.
    function _recover(bytes32 digest, bytes32 r, bytes32 vs) private view returns (address signer) {
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(0x00, digest)
            mstore(0x20, add(shr(255, vs), 27))
            mstore(0x40, r)
            mstore(0x60, shr(1, shl(1, vs)))
            let ok := staticcall(gas(), 0x01, 0x00, 0x80, 0x00, 0x20)
            signer := mul(mload(0x00), and(ok, eq(returndatasize(), 0x20)))
            mstore(0x60, 0)
            mstore(0x40, m)
        }
    }
}
