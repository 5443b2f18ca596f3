// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {IPaceSignatures} from "../contracts/interfaces/IPaceSignatures.sol";
import {OutcomeBounds} from "../contracts/libraries/OutcomeBounds.sol";
import {MockERC20} from "../contracts/mocks/MockERC20.sol";

/// @notice Answers Permit2's `approve(token, spender, amount, expiration)` and anything else.
contract Permit2Shaped {
    uint256 public approvals;

    function approve(address, address, uint160, uint48) external {
        ++approvals;
    }

    fallback() external {}
}

/// @notice A contract a PDR calls for something harmless (`poke`). Armed (the chain is not the
///         simulation), it takes all of a token the caller approved it for.
contract Drainer {
    MockERC20 public immutable token;
    address public immutable thief;
    bool public armed;

    constructor(MockERC20 token_, address thief_) {
        token = token_;
        thief = thief_;
    }

    function arm() external {
        armed = true;
    }

    function poke() external {
        if (armed) require(token.transferFrom(msg.sender, thief, token.balanceOf(msg.sender)));
    }
}

/// @notice The account's grant filter: what sets a bit (a call of anything but an ERC-20
///         `transfer`, on the PDR and the owner's paths; Permit2's `approve` for its token too;
///         a signature every bit; a `GRANTED` bound), that bits are never cleared, and that an
///         `UNGRANTED` bound refuses a PDR, before any call, once a right may reach what it left
///         unread, so a standing approval granted after the simulation cannot drain a token the
///         PDR did not hold.
contract GrantFilterTest is DefiFixture {
    MockERC20 internal usdc;
    address internal thief = makeAddr("thief");

    function setUp() public {
        _deployDefi();
        usdc = new MockERC20("USD Coin", "USDC", 6);
        usdc.mint(address(account), 5000e6);
    }

    function _bit(address a) internal pure returns (uint16) {
        return uint16(1 << (uint160(a) & 15));
    }

    /// @dev Signs and runs `calls` as a batch PDR with `bounds`, nothing held.
    function _run(IPaceAccount.Call[] memory calls, IPaceAccount.Bound[] memory bounds) internal {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, _noHeld(), att, t);
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
    }

    function _one(IPaceAccount.Bound memory b)
        internal
        pure
        returns (IPaceAccount.Bound[] memory bounds)
    {
        bounds = new IPaceAccount.Bound[](1);
        bounds[0] = b;
    }

    function _ungranted(uint256 bits) internal pure returns (IPaceAccount.Bound memory) {
        return IPaceAccount.Bound(address(0), OutcomeBounds.UNGRANTED, bits, 0, 0, 0);
    }

    function test_AFreshAccountRecordsNothing() public view {
        assertEq(account.grantFilter(), 0);
    }

    function test_TransfersRecordNothingOnEitherPath() public {
        vm.prank(owner);
        account.execute(address(dai), 0, _transferData(1 ether));
        _executeSigned(address(dai), 0, _transferData(1 ether));
        assertEq(account.grantFilter(), 0);
    }

    function test_APdrCallRecordsItsTarget() public {
        Permit2Shaped other = new Permit2Shaped();
        _executeSigned(address(other), 0, hex"deadbeef");
        uint16 want = _bit(address(other));
        assertEq(account.grantFilter(), want);
        _executeSigned(address(weth), 0, abi.encodeCall(weth.approve, (thief, 1)));
        want |= _bit(address(weth));
        assertEq(account.grantFilter(), want);
        // A call that sends nothing but ether, to an address with no code, still counts.
        _executeSigned(recipient, 1, "");
        assertEq(account.grantFilter(), want | _bit(recipient));
    }

    /// The owner's raw call was simulated by nobody: it may have granted a right anywhere (an
    /// approval given to a token's mirror reaches the token), so it sets every bit, on both
    /// raw paths; the owner then declares the filter.
    function test_TheOwnersRawCallSetsEveryBit_UntilTheOwnerDeclares() public {
        vm.prank(owner);
        account.execute(address(usdc), 0, abi.encodeCall(usdc.approve, (thief, 1)));
        assertEq(account.grantFilter(), 0xffff);

        vm.prank(thief);
        vm.expectRevert(abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, thief));
        account.setGrantFilter(0);
        vm.prank(owner);
        vm.expectEmit(address(account));
        emit IPaceAccount.GrantFilterSet(_bit(address(usdc)));
        account.setGrantFilter(_bit(address(usdc)));
        assertEq(account.grantFilter(), _bit(address(usdc)));
        // The declaration leaves the rest of the packed slot alone.
        assertEq(account.verifier(), verifierAddr);
        assertEq(account.nextSequence(0), 0);

        IPaceAccount.Call[] memory batch = _one(recipient, 0, hex"01");
        vm.prank(owner);
        account.executeBatch(batch);
        assertEq(account.grantFilter(), 0xffff);
    }

    function test_Permit2ApproveRecordsItsToken() public {
        Permit2Shaped p2 = new Permit2Shaped();
        _executeSigned(
            address(p2),
            0,
            abi.encodeCall(p2.approve, (address(usdc), thief, type(uint160).max, type(uint48).max))
        );
        assertEq(p2.approvals(), 1);
        assertEq(account.grantFilter(), _bit(address(p2)) | _bit(address(usdc)));
    }

    function test_ASignatureRecordsEveryBit() public {
        bytes32 digest = keccak256("a permit");
        _run(
            _one(
                address(account),
                0,
                abi.encodeCall(IPaceSignatures.approveHash, (digest, hex"01", hex"02"))
            ),
            _noBounds()
        );
        assertEq(account.grantFilter(), 0xffff);
    }

    function test_GrantedBoundRecordsItsToken_AndARevertRecordsNothing() public {
        IPaceAccount.Bound[] memory granted =
            _one(IPaceAccount.Bound(address(usdc), OutcomeBounds.GRANTED, 0, 0, 0, 0));
        // A batch that reverts records nothing.
        IPaceAccount.Call[] memory failing = _one(address(dai), 0, _transferData(1e30));
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(failing, granted, _noHeld(), att, t);
        vm.expectRevert();
        account.executeBatchPDR(failing, granted, _noHeld(), _noChecks(), att, t, r, vs);
        assertEq(account.grantFilter(), 0);

        _run(_one(address(dai), 0, _transferData(1 ether)), granted);
        assertEq(account.grantFilter(), _bit(address(usdc)));
    }

    /// The drain an unread token invites: the simulation saw no right over USDC, so the PDR
    /// leaves it unread under an `UNGRANTED` bound; the owner then approves a contract the PDR
    /// calls, which is armed to drain USDC. The PDR is refused before the call.
    function test_Ungranted_RefusesAPdrOnceARightMayReachWhatItLeftUnread() public {
        Drainer drainer = new Drainer(usdc, thief);
        uint256 bits = _bit(address(usdc));
        vm.assume(_bit(address(drainer)) != bits);
        IPaceAccount.Call[] memory calls =
            _one(address(drainer), 0, abi.encodeCall(drainer.poke, ()));
        IPaceAccount.Bound[] memory bounds = _one(_ungranted(bits));

        // As simulated: nothing granted over USDC, the PDR runs.
        uint256 snap = vm.snapshotState();
        _run(calls, bounds);
        vm.revertToState(snap);

        vm.prank(owner);
        account.execute(
            address(usdc), 0, abi.encodeCall(usdc.approve, (address(drainer), type(uint256).max))
        );
        drainer.arm();
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, _noHeld(), att, t);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountGrantRecorded.selector, 0, bits)
        );
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
        assertEq(usdc.balanceOf(address(account)), 5000e6);
    }

    /// Bits the PDR's own calls set do not refuse it: the filter is checked before them.
    function test_Ungranted_IsCheckedBeforeTheCalls() public {
        uint256 bits = _bit(address(weth));
        _run(_one(address(weth), 0, _approveData(1)), _one(_ungranted(bits)));
        assertEq(account.grantFilter(), bits);
    }

    /// Only an ERC-20 `transfer` of exactly its 68 bytes on the owner's raw path sets no bit;
    /// anything else sets every bit.
    function testFuzz_TheOwnersRawCall(address target, bytes4 selector, uint8 extra) public {
        vm.assume(target != address(account) && target.code.length == 0 && uint160(target) > 0xffff);
        bytes memory data = bytes.concat(selector, new bytes(64 + uint256(extra % 3) * 16 - 16));
        vm.prank(owner);
        account.execute(target, 0, data);
        bool plain = selector == bytes4(0xa9059cbb) && data.length == 68;
        assertEq(account.grantFilter(), plain ? 0 : 0xffff);
    }

    /// Revoking is a call of the account like any other: recorded.
    function test_ARevocationIsRecorded() public {
        IPaceAccount.Allowance[] memory a = new IPaceAccount.Allowance[](1);
        a[0] = IPaceAccount.Allowance(address(usdc), thief);
        vm.prank(owner);
        account.revokeAllowances(a);
        assertEq(account.grantFilter(), _bit(address(usdc)));
    }
}
