// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../interfaces/IPaceAccount.sol";
import {Budgets} from "../libraries/Budgets.sol";
import {PdrCalls} from "./PdrCalls.sol";
import {Revocation} from "./Revocation.sol";

/// @title PaceState
/// @notice The state of a PACE account and the owner's administration of it: the verifier, the
///         pause flag, the nonce lanes, the spending budgets and the revocation of rights, with
///         the owner check and the transient lock every owner function holds.
/// @dev    Shared by the enforcement core (`PaceCore`, which adds the PDR paths) and by code
///         that only administers: `PaceDelegate`'s administration module runs these functions
///         by `delegatecall` in the delegated EOA's context, on the same storage and the same
///         transient lock. It inherits no interface, so a contract without the PDR paths can be
///         built on it; its errors and events are `IPaceAccount`'s.
abstract contract PaceState {
    using Budgets for Budgets.Ledger;

    /// @notice The state of a PACE account, wherever a concrete account keeps it.
    /// @param config verifier (bits 0-159) | paused (160-167) | lane-0 sequence (168-231) |
    ///        budgets on (232-239) | grant filter (240-255, `PdrCalls.grantBits`): the one slot
    ///        of the common path.
    /// @param laneSequence The sequences of the nonce lanes other than lane 0.
    /// @param budgets The spending budgets.
    struct PaceStore {
        uint256 config;
        mapping(uint32 key => uint64 sequence) laneSequence;
        Budgets.Ledger budgets;
    }

    /// @notice The ERC-4337 EntryPoint v0.8 (its deterministic address on every chain).
    address internal constant ENTRY_POINT = PdrCalls.ENTRY_POINT;

    /// @dev The EIP-712 domain type of the salted domains (the EntryPoint path, the delegate).
    bytes32 internal constant SALTED_DOMAIN_TYPEHASH = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract,"
        "bytes32 salt)"
    );

    uint256 internal constant _PAUSED_SHIFT = 160;
    uint256 internal constant _SEQUENCE_SHIFT = 168;
    uint256 internal constant _BUDGETED_SHIFT = 232;
    uint256 internal constant _SEQUENCE_MASK = 0xffffffffffffffff;

    /// @dev Transient slot of the lock held by every PDR execution and owner function.
    uint256 private constant _LOCK_SLOT = PdrCalls.LOCK_SLOT;

    /*//////////////////////////////////////////////////////////////
                          WHAT AN ACCOUNT SUPPLIES
    //////////////////////////////////////////////////////////////*/

    /// @dev The account's state.
    function _store() internal pure virtual returns (PaceStore storage s);

    /// @dev Whether `caller` may use the owner's functions (the EntryPoint counts when it runs
    ///      an owner user operation: `validateUserOp` admits only PDR batches otherwise).
    function _isOwner(address caller) internal view virtual returns (bool);

    /// @dev Reverts when the code runs where the account must not (an EIP-7702 delegation to a
    ///      standalone account).
    function _checkHome() internal view virtual;

    /// @dev Whether the account keeps a grant filter: only an account that no key can act for
    ///      outside its own code (a `PaceAccount`). An EIP-7702 EOA's key signs transactions
    ///      and permits of its own, and a Safe's owners act beside its module: neither knows
    ///      its grants, and every bit of their filter reads as set.
    function _keepsGrants() internal view virtual returns (bool) {
        return false;
    }

    /*//////////////////////////////////////////////////////////////
                             ADMINISTRATION
    //////////////////////////////////////////////////////////////*/

    /// @dev The owner's functions: the owner only, at the account's home, under the lock, so a
    ///      token called by one cannot start a PDR inside it.
    modifier onlyOwner() {
        _checkHome();
        if (!_isOwner(msg.sender)) revert IPaceAccount.PaceAccountNotOwner(msg.sender);
        _lock();
        _;
        _unlock();
    }

    /// @dev The owner's raw atomic batch.
    function _executeBatch(IPaceAccount.Call[] calldata calls) internal {
        for (uint256 i; i < calls.length; ++i) {
            IPaceAccount.Call calldata c = calls[i];
            emit IPaceAccount.OwnerExecuted(c.target, c.value);
            (bool ok, bytes memory ret) = c.target.call{value: c.value}(c.data);
            if (!ok) revert IPaceAccount.PaceAccountCallFailed(i, ret);
            _recordGrants(PdrCalls.ownerGrantBits(c.data));
        }
    }

    /// @dev The grant filter, 16 bits (bit `a & 15` for a call to address `a` that may have
    ///      left a right behind): all set where the account keeps none.
    function _grantFilter() internal view returns (uint256) {
        return _keepsGrants() ? _store().config >> PdrCalls.GRANT_SHIFT : 0xffff;
    }

    /// @dev Replaces the grant filter with `filter` (the owner's declaration).
    function _declareGrants(uint16 filter) internal {
        if (!_keepsGrants()) return;
        PaceStore storage s = _store();
        s.config = (s.config & ~PdrCalls.ALL_GRANTS) | (uint256(filter) << PdrCalls.GRANT_SHIFT);
        emit IPaceAccount.GrantFilterSet(filter);
    }

    /// @dev Sets `bits` (in place, `PdrCalls.grantBits`) in the grant filter; one write, and
    ///      only when a bit is new.
    function _recordGrants(uint256 bits) internal {
        if (bits == 0 || !_keepsGrants()) return;
        PaceStore storage s = _store();
        uint256 config = s.config;
        if (bits & ~config != 0) s.config = config | bits;
    }

    /// @dev Sets the verifier (never address(0)).
    function _setVerifier(address verifier_) internal {
        if (verifier_ == address(0)) revert IPaceAccount.PaceAccountZeroVerifier();
        PaceStore storage s = _store();
        uint256 config = s.config;
        // forge-lint: disable-next-line(unsafe-typecast)
        emit IPaceAccount.VerifierRotated(address(uint160(config)), verifier_);
        s.config = (config >> 160 << 160) | uint160(verifier_);
    }

    /// @dev Sets or clears the pause flag.
    function _setPaused(bool paused_) internal {
        PaceStore storage s = _store();
        uint256 flag = paused_ ? 1 : 0;
        s.config = (s.config & ~(uint256(0xff) << _PAUSED_SHIFT)) | (flag << _PAUSED_SHIFT);
        emit IPaceAccount.PauseSet(paused_);
    }

    /// @dev Sets a budget and the config's budgets-on flag.
    function _setBudget(address token, uint128 limit, uint64 period) internal {
        PaceStore storage s = _store();
        uint256 on = s.budgets.set(token, limit, period) ? 1 : 0;
        s.config = (s.config & ~(uint256(0xff) << _BUDGETED_SHIFT)) | (on << _BUDGETED_SHIFT);
        emit IPaceAccount.BudgetSet(token, limit, period);
    }

    /// @dev Sets each listed allowance to 0, each on its own; the number that failed.
    function _revokeAllowances(IPaceAccount.Allowance[] calldata allowances)
        internal
        returns (uint256 failed)
    {
        for (uint256 i; i < allowances.length; ++i) {
            IPaceAccount.Allowance calldata a = allowances[i];
            // A revocation is a call of the account too: recorded like any other.
            _recordGrants(PdrCalls.grantBit(a.token));
            if (_revoke(Revocation.ALLOWANCE, a.token, address(0), a.spender)) {
                emit IPaceAccount.AllowanceRevoked(a.token, a.spender);
            } else {
                emit IPaceAccount.RevocationFailed(i, a.token, a.spender);
                ++failed;
            }
        }
    }

    /// @dev Revokes each listed right, each on its own; the number that failed.
    function _revokeRights(IPaceAccount.Right[] calldata rights) internal returns (uint256 failed) {
        for (uint256 i; i < rights.length; ++i) {
            IPaceAccount.Right calldata g = rights[i];
            _recordGrants(PdrCalls.grantBit(g.target));
            if (_revoke(g.kind, g.target, g.token, g.spender)) {
                emit IPaceAccount.RightRevoked(g.kind, g.target, g.token, g.spender);
            } else {
                emit IPaceAccount.RevocationFailed(i, g.target, g.spender);
                ++failed;
            }
        }
    }

    /// @dev Revokes one right of the holder, reporting failure (`Revocation.revoke`, made by
    ///      the account itself; a module has its holder make it).
    function _revoke(uint8 kind, address target, address token, address spender)
        internal
        virtual
        returns (bool)
    {
        return Revocation.revoke(kind, target, token, spender);
    }

    /// @dev Moves lane `key` forward to `sequence` (reverts unless it is ahead).
    function _raiseLane(uint32 key, uint64 sequence) internal {
        uint64 current = _sequenceOf(key);
        if (sequence <= current) {
            revert IPaceAccount.PaceAccountNonceNotIncreasing(key, current, sequence);
        }
        _setSequence(key, sequence);
        emit IPaceAccount.NoncesCancelled(key, sequence);
    }

    /// @dev The budget of `token` and its current period (`Budgets.current`).
    function _budget(address token)
        internal
        view
        returns (uint128 limit, uint64 period, uint64 windowStart, uint128 spent)
    {
        return _store().budgets.current(token);
    }

    /*//////////////////////////////////////////////////////////////
                              NONCE LANES
    //////////////////////////////////////////////////////////////*/

    function _sequenceOf(uint32 key) internal view returns (uint64) {
        PaceStore storage s = _store();
        // forge-lint: disable-next-line(unsafe-typecast)
        return key == 0 ? uint64(s.config >> _SEQUENCE_SHIFT) : s.laneSequence[key];
    }

    function _setSequence(uint32 key, uint64 sequence) internal {
        PaceStore storage s = _store();
        if (key == 0) {
            s.config = _withSequence(s.config, sequence);
        } else {
            s.laneSequence[key] = sequence;
        }
    }

    function _withSequence(uint256 config, uint64 sequence) internal pure returns (uint256) {
        return
            (config & ~(_SEQUENCE_MASK << _SEQUENCE_SHIFT)) | (uint256(sequence) << _SEQUENCE_SHIFT);
    }

    /*//////////////////////////////////////////////////////////////
                                  LOCK
    //////////////////////////////////////////////////////////////*/

    /// @dev Whether the lock is held (a PDR execution or an owner function is running).
    function _locked() internal view returns (bool held) {
        uint256 slot = _LOCK_SLOT;
        assembly ("memory-safe") {
            held := iszero(iszero(tload(slot))) // 1, or the hash a PDR signed
        }
    }

    /// @dev Takes the lock, or reverts if it is held.
    function _lock() internal {
        uint256 slot = _LOCK_SLOT;
        assembly ("memory-safe") {
            if tload(slot) {
                mstore(0x00, shl(224, 0x80467d42)) // PaceAccountReentrant()
                revert(0x00, 0x04)
            }
            tstore(slot, 1)
        }
    }

    function _unlock() internal {
        uint256 slot = _LOCK_SLOT;
        assembly ("memory-safe") {
            tstore(slot, 0)
        }
    }
}
