// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPointFixture} from "./EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice One account and the way a PDR reaches it, for cases written once and run on each
///         entry path: a concrete contract per path says which account (the standalone account
///         or an EOA delegated to `PaceDelegate`) and whether PDRs go through the EntryPoint;
///         the helpers sign and submit a PDR on that path and expect its refusal there.
abstract contract EntryPaths is EntryPointFixture {
    function setUp() public virtual {
        _deployWorld();
    }

    /// @dev The account under test: whose balances a PDR moves.
    function _holder() internal view virtual returns (address);

    /// @dev Where PDRs and the owner's administration go: the holder itself, or the module
    ///      that guards it.
    function _pace() internal view virtual returns (address) {
        return _holder();
    }

    /// @dev Whether PDRs reach it through the EntryPoint.
    function _viaEntryPoint() internal pure virtual returns (bool);

    /// @dev The direct path's digest of `p` at the holder.
    function _directDigest(Pdr memory p) internal view virtual returns (bytes32);

    /// @dev Pauses the holder's PDR execution (as its owner).
    function _pause() internal virtual;

    /// @dev The next sequence of lane `key` on this path.
    function _nextSeq(uint32 key) internal view returns (uint64) {
        if (_viaEntryPoint()) return uint64(ep.getNonce(_pace(), key));
        return IPaceAccount(_pace()).nextSequence(key);
    }

    function _freshTerms() internal view returns (Terms memory t) {
        t = _terms();
        t.sequence = _nextSeq(0);
    }

    /// @dev The direct call of `presented` with signature (`r`, `vs`).
    function _callDirect(Pdr memory presented, bytes32 r, bytes32 vs) internal {
        IPaceAccount(_pace())
            .executeBatchPDR(
                presented.calls,
                presented.bounds,
                presented.held,
                presented.checks,
                presented.attestation,
                presented.terms,
                r,
                vs
            );
    }

    /// @dev The direct-path signature of `p` by `key`.
    function _signDirect(Pdr memory p, uint256 key) internal view returns (bytes32 r, bytes32 vs) {
        return vm.signCompact(key, _directDigest(p));
    }

    /// @dev The user operation carrying `p`, signed by `key`.
    function _op(Pdr memory p, uint256 key)
        internal
        view
        returns (IPaceAccount.PackedUserOperation memory op)
    {
        op = _pdrOpUnsigned(_pace(), p);
        _signPdrOp(op, p, key);
    }

    /// @dev Submits `p` signed by `key`; it must execute.
    function _execute(Pdr memory p, uint256 key) internal {
        if (_viaEntryPoint()) {
            (bool ok, bytes memory reason) = _handleRecorded(_op(p, key));
            assertTrue(ok, string(reason));
        } else {
            (bytes32 r, bytes32 vs) = _signDirect(p, key);
            _callDirect(p, r, vs);
        }
    }

    /// @dev Submits `p` signed by `key`; the direct path must revert with `err` (its selector
    ///      only when `err` is 4 bytes long), the EntryPoint path must fail validation with
    ///      `aa` or, when `aa` is empty, fail execution with `err`.
    function _expectRefused(Pdr memory p, uint256 key, bytes memory err, string memory aa)
        internal
    {
        if (!_viaEntryPoint()) {
            (bytes32 r, bytes32 vs) = _signDirect(p, key);
            // forge-lint: disable-next-line(unsafe-typecast)
            if (err.length == 4) vm.expectPartialRevert(bytes4(err));
            else vm.expectRevert(err);
            _callDirect(p, r, vs);
            return;
        }
        IPaceAccount.PackedUserOperation memory op = _op(p, key);
        if (bytes(aa).length != 0) {
            _expectFailedOp(op, aa);
            return;
        }
        (bool ok, bytes memory reason) = _handleRecorded(op);
        assertFalse(ok, "executed");
        // forge-lint: disable-next-line(unsafe-typecast)
        if (err.length == 4) assertEq(bytes4(reason), bytes4(err), "error");
        else assertEq(reason, err, "error");
    }
}
