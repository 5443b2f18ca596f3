// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {HardeningBase} from "./HardeningBase.sol";
import {ReentrantApproveToken, Reenterer} from "./HardeningMocks.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice Re-entry into revocation. After a verifier key leaks, the owner revokes the
///         account's allowances. A listed token whose `approve` calls back into the account can
///         replay a PDR signed with the leaked key inside the revocation and grant the allowance
///         again, while the revocation reports success. The owner's functions hold the same
///         transient lock as PDR executions, so the replay is refused.
contract RevocationReentryTest is HardeningBase {
    ReentrantApproveToken internal token;
    address internal thief = makeAddr("thief");

    function setUp() public {
        _deployDefi();
        token = new ReentrantApproveToken();
        token.mint(address(account), 1000 ether);
        // A PDR once approved the thief's contract (the leaked key signed it).
        _send(
            address(this), _leanPdr(address(token), abi.encodeCall(token.approve, (thief, 5 ether)))
        );
        assertEq(token.allowance(address(account), thief), 5 ether);
    }

    /// @dev Arms the token with a PDR, signed by the verifier, granting the thief everything.
    function _armReplay(bool swallow) internal returns (bytes memory pdr) {
        pdr = _leanPdr(address(token), abi.encodeCall(token.approve, (thief, type(uint256).max)));
        token.arm(address(account), pdr, swallow);
    }

    function _list() internal view returns (IPaceAccount.Allowance[] memory list) {
        list = new IPaceAccount.Allowance[](2);
        list[0] = _pair(address(token), thief);
        list[1] = _pair(address(dai), address(router));
    }

    /// The token hides the failed replay: the revocation goes through, and the allowance is 0.
    function test_AReplayInsideTheRevocationIsRefusedAndTheAllowanceEndsAtZero() public {
        _send(
            address(this), _leanPdr(address(dai), abi.encodeCall(dai.approve, (address(router), 7)))
        );
        _armReplay(true);
        uint64 sequence = account.nextSequence(0);

        uint256 failed = _revokeAllowances(_list());

        assertEq(token.allowance(address(account), thief), 0, "allowance revoked, not re-granted");
        assertTrue(token.replayed(), "the token tried the replay");
        assertFalse(token.replayOk(), "the replay was refused");
        assertEq(
            token.replayResult(),
            abi.encodeWithSelector(IPaceAccount.PaceAccountReentrant.selector),
            "refused by the lock"
        );
        assertEq(dai.allowance(address(account), address(router)), 0);
        assertEq(failed, 0);
        assertEq(account.nextSequence(0), sequence, "the replayed PDR did not run");
    }

    /// The token passes the refusal on: that pair is reported failed, the other is revoked, and
    /// nothing was granted inside the revocation.
    function test_AReplayThatRevertsTheTokensApproveIsReportedAndGrantsNothing() public {
        _send(
            address(this), _leanPdr(address(dai), abi.encodeCall(dai.approve, (address(router), 7)))
        );
        _armReplay(false);

        vm.expectEmit(address(account));
        emit RevocationFailed(0, address(token), thief);
        vm.expectEmit(address(account));
        emit AllowanceRevoked(address(dai), address(router));
        uint256 failed = _revokeAllowances(_list());

        assertEq(failed, 1, "the hostile pair is reported");
        assertTrue(
            token.allowance(address(account), thief) != type(uint256).max,
            "the replay granted nothing"
        );
        assertEq(dai.allowance(address(account), address(router)), 0, "the real pair is revoked");
    }

    /// Every owner function holds the lock: a target of the owner's raw call cannot start a PDR.
    function test_AnOwnerCallsTargetCannotStartAPdr() public {
        Reenterer re = new Reenterer();
        bytes memory pdr = _leanPdr(address(dai), abi.encodeCall(dai.transfer, (thief, 1000 ether)));
        uint256 before = dai.balanceOf(thief);
        _send(
            owner,
            abi.encodeCall(
                account.execute, (address(re), 0, abi.encodeCall(re.poke, (address(account), pdr)))
            )
        );
        assertFalse(re.ok(), "refused inside the owner's call");
        assertEq(re.result(), abi.encodeWithSelector(IPaceAccount.PaceAccountReentrant.selector));
        assertEq(dai.balanceOf(thief), before);
        // Outside the owner's call the same PDR is valid: the refusal was the lock's.
        _send(address(this), pdr);
        assertEq(dai.balanceOf(thief), before + 1000 ether);
    }
}
