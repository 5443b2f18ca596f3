// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "../utils/DefiFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice Shared helpers of the hardening tests. They reach the account's owner functions by
///         selector and declare its events themselves, so the same tests also compile against
///         an account that lacks them (and fail there, which is what they show).
abstract contract HardeningBase is DefiFixture {
    /// @notice A right to revoke, laid out as `IPaceAccount.Right`.
    struct Right {
        uint8 kind;
        address target;
        address token;
        address spender;
    }

    uint8 internal constant ALLOWANCE = 0;
    uint8 internal constant PERMIT2 = 1;
    uint8 internal constant OPERATOR = 2;
    uint8 internal constant CREDIT_DELEGATION = 3;

    event AllowanceRevoked(address indexed token, address indexed spender);
    event RevocationFailed(uint256 index, address indexed target, address indexed spender);
    event RightRevoked(
        uint8 kind, address indexed target, address indexed token, address indexed spender
    );
    event RightGranted(
        address indexed target, address indexed spender, bytes4 selector, address token
    );

    /// @dev A signed lean PDR (`executePDR`) of one call, on lane 0's next sequence.
    function _leanPdr(address target, bytes memory data) internal view returns (bytes memory) {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(_one(target, 0, data), _noBounds(), att, t);
        return abi.encodeCall(account.executePDR, (target, 0, data, att, t, r, vs));
    }

    /// @dev A signed batch PDR (`executeBatchPDR`) of `calls`, no bounds, on lane 0.
    function _batchPdr(IPaceAccount.Call[] memory calls) internal view returns (bytes memory) {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), att, t);
        return abi.encodeCall(
            account.executeBatchPDR, (calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs)
        );
    }

    /// @dev Sends `cd` to the account from `from`; reverts with the account's revert data.
    function _send(address from, bytes memory cd) internal returns (bytes memory ret) {
        bool ok;
        vm.prank(from);
        (ok, ret) = address(account).call(cd);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
    }

    /// @dev The owner's `revokeAllowances`; returns how many pairs failed, as reported (an
    ///      atomic revocation that reports nothing: 0).
    function _revokeAllowances(IPaceAccount.Allowance[] memory list) internal returns (uint256) {
        bytes memory ret = _send(owner, abi.encodeCall(account.revokeAllowances, (list)));
        return ret.length == 32 ? abi.decode(ret, (uint256)) : 0;
    }

    /// @dev The owner's `revokeRights`; returns how many rights failed, as reported.
    function _revokeRights(Right[] memory rights) internal returns (uint256) {
        bytes memory ret = _send(
            owner,
            abi.encodeWithSignature("revokeRights((uint8,address,address,address)[])", rights)
        );
        assertEq(ret.length, 32, "revokeRights reports how many rights failed");
        return abi.decode(ret, (uint256));
    }

    function _pair(address token, address spender)
        internal
        pure
        returns (IPaceAccount.Allowance memory)
    {
        return IPaceAccount.Allowance(token, spender);
    }
}
