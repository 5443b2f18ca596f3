// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {PaceCore} from "./core/PaceCore.sol";
import {PdrCalls} from "./core/PdrCalls.sol";
import {Revocation} from "./core/Revocation.sol";
import {IPaceModule} from "./interfaces/IPaceModule.sol";
import {ISafe} from "./interfaces/ISafe.sol";
import {SafeConfig, SafeConfigReader} from "./safe/SafeConfig.sol";

/// @title PaceModule
/// @notice The PACE enforcement core as a module of one Safe 1.4.1: once the Safe's owners
///         enable it, a call or an atomic batch an agent proposes executes from the Safe only
///         under a PDR signed by the module's verifier, with the checks every PACE account makes
///         (`core/PaceCore.sol`: signer, nonce lanes, window, freshness, gas floor, outcome
///         bounds and held assets, post-conditions, budgets) measured on the Safe's balances.
/// @dev    What the module adds for a Safe:
///         - each PDR call is a `CALL` from the Safe (`execTransactionFromModule`, operation 0):
///           a PDR cannot express a `DELEGATECALL`;
///         - no PDR call may target the Safe itself (`enableModule`, `setGuard`, owners,
///           threshold, fallback handler: all of its administration), this module or the
///           EntryPoint (`PaceModuleForbiddenTarget`);
///         - the fingerprint of the Safe's configuration (`safe/SafeConfig.sol`: owners,
///           threshold, modules, guard, fallback handler, singleton) is read before and after
///           every PDR call and must not change (`PaceModuleConfigChanged`), whatever route the
///           call takes;
///         - the module's administration (verifier, pause, budgets, lanes, revocations) belongs
///           to the Safe: only a transaction of the Safe itself can use it. Revocations run from
///           the Safe, where the rights are.
///         What it cannot do on 1.4.1: the Safe's owners, and any other enabled module, act on
///         the Safe outside this module, since 1.4.1 has no module guard; the module bounds the
///         calls routed through it. The Safe can always disable the module with its own
///         transaction (`disableModule`): the module is no guard, and nothing the Safe does
///         calls into it.
///
///         One module per Safe (the Safe is an immutable, as the account's owner is). PDRs are
///         signed under name "PaceModule", version "1", with `verifyingContract` the module and
///         `salt` the Safe (`IPaceModule`). Owner user operations never validate (the Safe has
///         no single key); PDR user operations through the EntryPoint are accepted with the
///         module as their sender, paid from the module's EntryPoint deposit.
contract PaceModule is PaceCore, IPaceModule {
    /// @dev The Safe this module guards.
    address private immutable _safe;

    /// @dev The full reader of the Safe's configuration, deployed by the constructor.
    SafeConfigReader private immutable _configReader;

    /// @dev The module's own address: its code refuses to run at any other (a Safe
    ///      `delegatecall` into it would run it on the Safe's storage).
    address private immutable _home;

    uint256 private immutable _cachedChainId;
    bytes32 private immutable _cachedDomainSeparator;

    bytes32 private constant _NAME_HASH = keccak256("PaceModule");
    bytes32 private constant _VERSION_HASH = keccak256("1");

    /// @dev `execTransactionFromModuleReturnData(address,uint256,bytes,uint8)`.
    uint256 private constant _EXEC_FROM_MODULE = 0x5229073f;

    /// @dev What the module's call to the Safe costs besides the gas the Safe passes on, at
    ///      most, with headroom: the call to the Safe's proxy (`PdrCalls.CALL_COST`), the proxy's
    ///      `delegatecall` of the singleton (cold: 2,600), the singleton's dispatch, module
    ///      check (a cold slot: 2,100), its event and its own call to the target
    ///      (`PdrCalls.CALL_COST`), 20,000 in all. Each copy of the call's data adds to it.
    uint256 public constant SAFE_CALL_COST = 20_000;

    /// @dev The gas a revocation through the Safe may use: `Revocation.GAS_PER_REVOCATION`
    ///      plus `SAFE_CALL_COST` (a literal, for assembly; a test checks the sum).
    uint256 public constant REVOCATION_GAS = 220_000;

    /// @param safe_ The Safe to guard and execute from.
    /// @param verifier_ The address of the verifier's signing key.
    constructor(address safe_, address verifier_) {
        if (safe_.code.length == 0) revert PaceModuleInvalidSafe(safe_);
        if (verifier_ == address(0)) revert PaceAccountZeroVerifier();
        _safe = safe_;
        _configReader = new SafeConfigReader();
        _home = address(this);
        _store().config = uint256(uint160(verifier_));
        _cachedChainId = block.chainid;
        _cachedDomainSeparator = _saltedDomain(_safeSalt());
    }

    /*//////////////////////////////////////////////////////////////
                                  VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IPaceModule
    function safe() external view returns (address) {
        return _safe;
    }

    /// @notice The owner of the module's administration: the Safe itself.
    function owner() external view override returns (address) {
        return _safe;
    }

    /// @inheritdoc IPaceModule
    function configHash() external view returns (bytes32) {
        return _configHash();
    }

    /*//////////////////////////////////////////////////////////////
                          WHAT THE CORE NEEDS
    //////////////////////////////////////////////////////////////*/

    /// @dev The state from slot 0: config, lanes, then the budgets (slots 2 and 3).
    function _store() internal pure override returns (PaceStore storage s) {
        assembly ("memory-safe") {
            s.slot := 0
        }
    }

    /// @dev The Safe's balances are what the bounds, held assets and budgets measure.
    function _holder() internal view override returns (address) {
        return _safe;
    }

    /// @dev The Safe itself, by a transaction of its own.
    function _isOwner(address caller) internal view override returns (bool) {
        return caller == _safe;
    }

    /// @dev No key signs for the Safe: owner user operations never validate.
    function _ownerSigner() internal pure override returns (address) {
        return address(0);
    }

    /// @dev Name "PaceModule", version "1", the chain id, this module and the Safe as salt.
    function _domainSeparator() internal view override returns (bytes32) {
        return block.chainid == _cachedChainId ? _cachedDomainSeparator : _saltedDomain(_safeSalt());
    }

    /// @dev As the direct path's, with salt `keccak256(abi.encode(safeSalt, userOpHash))`.
    function _userOpDomainSeparator(bytes32 userOpHash) internal view override returns (bytes32) {
        return _saltedDomain(keccak256(abi.encode(_safeSalt(), userOpHash)));
    }

    function _checkHome() internal view override {
        if (address(this) != _home) revert PaceAccountNotHome(_home);
    }

    /// @dev The Safe makes call `index`: `execTransactionFromModuleReturnData(target, value,
    ///      data, CALL)`, between two reads of its configuration that must agree. The gas floor
    ///      is checked before the call to the Safe, for the gas the Safe's own call of the
    ///      target will forward after three 1/64 retentions (module, proxy, singleton). The
    ///      inner call's result is put back in the return data buffer (the identity precompile
    ///      echoes it) for `PdrCalls.settle`.
    function _call(uint256 index, address target, uint256 value, bytes calldata data, uint256 floor)
        internal
        override
        returns (uint256 used)
    {
        address safe_ = _safe;
        if (target == safe_ || target == address(this) || target == PdrCalls.ENTRY_POINT) {
            revert PaceModuleForbiddenTarget(index, target);
        }
        bytes32 before = _configHash();
        if (before == 0) revert PaceModuleConfigUnreadable(index);
        bytes memory result;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, shl(224, _EXEC_FROM_MODULE))
            mstore(add(m, 0x04), target)
            mstore(add(m, 0x24), value)
            mstore(add(m, 0x44), 0x80)
            mstore(add(m, 0x64), 0) // operation: CALL
            mstore(add(m, 0x84), data.length)
            calldatacopy(add(m, 0xa4), data.offset, data.length)
            mstore(add(add(m, 0xa4), data.length), 0) // zero padding
            let size := add(0xa4, and(add(data.length, 0x1f), not(0x1f)))
            let start := gas()
            if floor {
                // Each copy of the data (here, the proxy's, the singleton's decoding) costs 3
                // gas a word, 12 covers them and their memory.
                let cost := add(SAFE_CALL_COST, mul(shr(5, add(data.length, 0x1f)), 12))
                if value {
                    cost := add(
                        add(cost, 9000), // PdrCalls.VALUE_COST
                        mul(iszero(extcodehash(target)), 25000) // PdrCalls.NEW_ACCOUNT_COST
                    )
                }
                let left := gas()
                if lt(left, add(add(floor, div(floor, 20)), cost)) {
                    left := mul(gt(left, cost), sub(left, cost))
                    mstore(m, shl(224, 0xc8f3ee86)) // PaceAccountInsufficientGas(uint256,uint256)
                    mstore(add(m, 0x04), floor)
                    mstore(add(m, 0x24), sub(left, div(left, 20)))
                    revert(m, 0x44)
                }
            }
            let ok := call(gas(), safe_, 0, m, size, 0x00, 0x00)
            used := sub(start, gas())
            let n := returndatasize()
            if iszero(ok) {
                mstore(m, shl(224, 0x642f64fd)) // PaceModuleSafeReverted(uint256,bytes)
                mstore(add(m, 0x04), index)
                mstore(add(m, 0x24), 0x40)
                mstore(add(m, 0x44), n)
                returndatacopy(add(m, 0x64), 0x00, n)
                mstore(add(add(m, 0x64), n), 0)
                revert(m, add(0x64, and(add(n, 0x1f), not(0x1f))))
            }
            // (bool success, bytes returnData): the inner result's length at 0x40, data at 0x60.
            // A short answer reverts here (returndatacopy out of bounds).
            returndatacopy(m, 0x00, 0x60)
            let success := mload(m)
            let len := mload(add(m, 0x40))
            returndatacopy(add(m, 0x20), 0x60, len)
            mstore(m, len)
            result := m
            mstore(0x40, add(add(m, 0x20), and(add(len, 0x1f), not(0x1f))))
            if iszero(success) {
                let r := mload(0x40)
                mstore(r, shl(224, 0x2acc9d97)) // PaceAccountCallFailed(uint256,bytes)
                mstore(add(r, 0x04), index)
                mstore(add(r, 0x24), 0x40)
                mstore(add(r, 0x44), len)
                returndatacopy(add(r, 0x64), 0x60, len)
                mstore(add(add(r, 0x64), len), 0)
                revert(r, add(0x64, and(add(len, 0x1f), not(0x1f))))
            }
        }
        if (_configHash() != before) revert PaceModuleConfigChanged(index);
        assembly ("memory-safe") {
            // The inner result back in the return data buffer.
            pop(staticcall(gas(), 0x04, add(result, 0x20), mload(result), 0x00, 0x00))
        }
        PdrCalls.settle(index, target, data);
    }

    /// @dev Revocations run from the Safe, which holds the rights; each on its own, reporting
    ///      failure (a right not `Revocation.revocable`, a Safe that refuses, a call that reverts or returns
    ///      a first word of 0). At most `Revocation.GAS_PER_REVOCATION` plus the Safe's cost
    ///      each, and only the first word of the answer is read (no return bomb).
    function _revoke(uint8 kind, address target, address token, address spender)
        internal
        override
        returns (bool ok)
    {
        address safe_ = _safe;
        if (!Revocation.revocable(kind, target, safe_, spender)) return false;
        bytes memory data = Revocation.callData(kind, token, spender);
        if (data.length == 0) return false;
        assembly ("memory-safe") {
            let m := mload(0x40)
            let n := mload(data)
            mstore(m, shl(224, _EXEC_FROM_MODULE))
            mstore(add(m, 0x04), target)
            mstore(add(m, 0x24), 0)
            mstore(add(m, 0x44), 0x80)
            mstore(add(m, 0x64), 0) // operation: CALL
            mstore(add(m, 0x84), n)
            mcopy(add(m, 0xa4), add(data, 0x20), n)
            mstore(add(add(m, 0xa4), n), 0) // zero padding
            let size := add(0xa4, and(add(n, 0x1f), not(0x1f)))
            // (bool success, bytes returnData): the inner answer's length at 0x40, its first
            // word at 0x60.
            if call(REVOCATION_GAS, safe_, 0, m, size, 0x00, 0x00) {
                if gt(returndatasize(), 0x5f) {
                    returndatacopy(m, 0x00, 0x60)
                    ok := eq(mload(m), 1)
                    if and(ok, gt(mload(add(m, 0x40)), 0x1f)) {
                        ok := 0
                        if gt(returndatasize(), 0x7f) {
                            returndatacopy(m, 0x60, 0x20)
                            ok := iszero(iszero(mload(m)))
                        }
                    }
                }
            }
        }
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev The fingerprint of the Safe's configuration (`SafeConfig.fingerprint`; 0:
    ///      unreadable).
    function _configHash() internal view virtual returns (bytes32) {
        return SafeConfig.fingerprint(ISafe(_safe), address(this), _configReader);
    }

    function _safeSalt() private view returns (bytes32) {
        return bytes32(uint256(uint160(_safe)));
    }

    function _saltedDomain(bytes32 salt) private view returns (bytes32) {
        return keccak256(
            abi.encode(
                SALTED_DOMAIN_TYPEHASH,
                _NAME_HASH,
                _VERSION_HASH,
                block.chainid,
                address(this),
                salt
            )
        );
    }
}
