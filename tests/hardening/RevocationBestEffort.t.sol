// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Vm} from "forge-std/Vm.sol";
import {HardeningBase} from "./HardeningBase.sol";
import {HookedERC721, HookedERC1155, RightsToken, SpoofingToken} from "./HardeningMocks.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {MockPermit2} from "../../contracts/mocks/protocols/MockPermit2.sol";

/// @notice Spoofed logs and best-effort revocation. Anyone can make a fake token log an ERC-20
///         `Approval` naming the account; an owner who revokes every pair the logs name lists
///         it, and its `approve` reverts. The revocation goes on past it: the real allowances are
///         revoked and the fake pair is reported. The account's own `RightGranted` events, which
///         only a PDR call can cause, name exactly the rights PDRs granted, and `revokeRights`
///         revokes each kind: ERC-20 and Permit2 allowances, operators, credit delegations.
contract RevocationBestEffortTest is HardeningBase {
    bytes32 internal constant RIGHT_GRANTED_TOPIC =
        keccak256("RightGranted(address,address,bytes4,address)");
    bytes32 internal constant APPROVAL_TOPIC = keccak256("Approval(address,address,uint256)");

    SpoofingToken internal fake;
    RightsToken internal rights;
    HookedERC721 internal nft;
    HookedERC1155 internal multi;
    MockPermit2 internal permit2;
    address internal spender = makeAddr("spender");
    address internal operator = makeAddr("operator");
    address internal borrower = makeAddr("borrower");

    function setUp() public {
        _deployDefi();
        fake = new SpoofingToken();
        rights = new RightsToken();
        nft = new HookedERC721();
        multi = new HookedERC1155();
        permit2 = new MockPermit2();
    }

    /// @dev One PDR granting every kind of right the account records.
    function _grantEverything() internal {
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](8);
        calls[0] =
            IPaceAccount.Call(address(dai), 0, abi.encodeCall(dai.approve, (spender, 1 ether)));
        calls[1] = IPaceAccount.Call(
            address(rights), 0, abi.encodeCall(rights.increaseAllowance, (spender, 2 ether))
        );
        calls[2] = IPaceAccount.Call(
            address(rights), 0, abi.encodeCall(rights.increaseApproval, (operator, 3 ether))
        );
        calls[3] = IPaceAccount.Call(
            address(nft), 0, abi.encodeCall(nft.setApprovalForAll, (operator, true))
        );
        calls[4] = IPaceAccount.Call(
            address(multi), 0, abi.encodeCall(multi.setApprovalForAll, (operator, true))
        );
        calls[5] = IPaceAccount.Call(
            address(rights), 0, abi.encodeCall(rights.approveDelegation, (borrower, 4 ether))
        );
        calls[6] = IPaceAccount.Call(
            address(permit2),
            0,
            abi.encodeCall(
                permit2.approve, (address(weth), spender, 5 ether, uint48(block.timestamp + 1 days))
            )
        );
        // Not a right: a transfer is not recorded.
        calls[7] = IPaceAccount.Call(address(dai), 0, abi.encodeCall(dai.transfer, (spender, 1)));
        _send(address(this), _batchPdr(calls));
    }

    /// Every right a PDR grants is logged by the account itself, with the selector that granted
    /// it and, for Permit2, the token inside Permit2.
    function test_APdrLogsEveryRightItGrants() public {
        vm.recordLogs();
        _grantEverything();
        Vm.Log[] memory logs = vm.getRecordedLogs();

        address[7] memory targets = [
            address(dai),
            address(rights),
            address(rights),
            address(nft),
            address(multi),
            address(rights),
            address(permit2)
        ];
        address[7] memory spenders =
            [spender, spender, operator, operator, operator, borrower, spender];
        bytes4[7] memory selectors = [
            dai.approve.selector,
            rights.increaseAllowance.selector,
            rights.increaseApproval.selector,
            nft.setApprovalForAll.selector,
            multi.setApprovalForAll.selector,
            rights.approveDelegation.selector,
            permit2.approve.selector
        ];
        address[7] memory tokens = [
            address(dai),
            address(rights),
            address(rights),
            address(nft),
            address(multi),
            address(rights),
            address(weth)
        ];
        uint256 n;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(account) || logs[i].topics[0] != RIGHT_GRANTED_TOPIC) {
                continue;
            }
            assertLt(n, 7, "one record per right granted, none for the transfer");
            assertEq(logs[i].topics.length, 3);
            assertEq(address(uint160(uint256(logs[i].topics[1]))), targets[n], "target");
            assertEq(address(uint160(uint256(logs[i].topics[2]))), spenders[n], "spender");
            (bytes4 selector, address token) = abi.decode(logs[i].data, (bytes4, address));
            assertEq(selector, selectors[n], "selector");
            assertEq(token, tokens[n], "token");
            ++n;
        }
        assertEq(n, 7, "every right granted is recorded");
    }

    /// @dev A PDR approving `spender` for DAI and WETH, then a spoofed `Approval` of the fake
    ///      token naming the account; returns the logs.
    function _approveAndSpoof() internal returns (Vm.Log[] memory) {
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
        calls[0] =
            IPaceAccount.Call(address(dai), 0, abi.encodeCall(dai.approve, (spender, 1 ether)));
        calls[1] =
            IPaceAccount.Call(address(weth), 0, abi.encodeCall(weth.approve, (spender, 2 ether)));
        vm.recordLogs();
        _send(address(this), _batchPdr(calls));
        fake.spoof(address(account), spender, type(uint256).max);
        return vm.getRecordedLogs();
    }

    /// The token logs name three "allowances" of the account; the account's own records name
    /// the two its PDR granted, never the fake.
    function test_TheAccountsRecordsNameOnlyWhatItsPdrsGranted() public {
        Vm.Log[] memory logs = _approveAndSpoof();
        uint256 approvals;
        uint256 records;
        for (uint256 i; i < logs.length; ++i) {
            bytes32 topic = logs[i].topics[0];
            if (
                topic == APPROVAL_TOPIC
                    && logs[i].topics[1] == bytes32(uint256(uint160(address(account))))
            ) {
                ++approvals;
            }
            if (logs[i].emitter == address(account) && topic == RIGHT_GRANTED_TOPIC) {
                assertTrue(address(uint160(uint256(logs[i].topics[1]))) != address(fake));
                ++records;
            }
        }
        assertEq(approvals, 3, "the spoofed Approval names the account");
        assertEq(records, 2, "the account records only the rights its PDR granted");
    }

    /// An owner who revokes every pair the `Approval` logs name lists the fake token, whose
    /// `approve` reverts: the real allowances are revoked anyway and the fake pair reported.
    function test_ASpoofedPairIsReportedAndTheRealAllowancesAreRevoked() public {
        _approveAndSpoof();
        IPaceAccount.Allowance[] memory list = new IPaceAccount.Allowance[](3);
        list[0] = _pair(address(dai), spender);
        list[1] = _pair(address(fake), spender);
        list[2] = _pair(address(weth), spender);
        vm.expectEmit(address(account));
        emit AllowanceRevoked(address(dai), spender);
        vm.expectEmit(address(account));
        emit RevocationFailed(1, address(fake), spender);
        vm.expectEmit(address(account));
        emit AllowanceRevoked(address(weth), spender);
        uint256 failed = _revokeAllowances(list);

        assertEq(dai.allowance(address(account), spender), 0, "real allowance revoked");
        assertEq(weth.allowance(address(account), spender), 0, "real allowance revoked");
        assertEq(failed, 1, "the fake pair is reported");
    }

    /// A pair whose token has no code is reported too, and the rest revoked.
    function test_APairWithoutCodeIsReported() public {
        _send(address(this), _leanPdr(address(dai), abi.encodeCall(dai.approve, (spender, 1))));
        IPaceAccount.Allowance[] memory list = new IPaceAccount.Allowance[](2);
        list[0] = _pair(makeAddr("no code"), spender);
        list[1] = _pair(address(dai), spender);
        assertEq(_revokeAllowances(list), 1);
        assertEq(dai.allowance(address(account), spender), 0);
    }

    /// An ERC-721 collection takes `approve(spender, 0)` as the approval of item 0 to `spender`.
    /// An allowance revocation listing the collection (its `RightGranted` records carry the same
    /// `approve` selector) must not grant the item: the collection keeps no `allowance`, so the
    /// pair is reported and nothing is sent; the other pairs are revoked.
    function test_AnAllowanceRevocationOnAnErc721GrantsNoItem() public {
        nft.mint(address(account), 0);
        _send(address(this), _leanPdr(address(dai), abi.encodeCall(dai.approve, (spender, 1))));
        IPaceAccount.Allowance[] memory list = new IPaceAccount.Allowance[](2);
        list[0] = _pair(address(nft), spender);
        list[1] = _pair(address(dai), spender);
        vm.expectEmit(address(account));
        emit RevocationFailed(0, address(nft), spender);
        assertEq(_revokeAllowances(list), 1, "the collection's pair is reported");

        assertEq(nft.getApproved(0), address(0), "item 0 approved to nobody");
        assertEq(dai.allowance(address(account), spender), 0, "the real allowance revoked");

        Right[] memory rights_ = new Right[](1);
        rights_[0] = Right(ALLOWANCE, address(nft), address(0), spender);
        assertEq(_revokeRights(rights_), 1, "the same through revokeRights");
        assertEq(nft.getApproved(0), address(0), "item 0 approved to nobody");
    }

    /// `revokeRights` revokes each kind the account records: ERC-20 allowances (including those
    /// granted by `increaseAllowance` / `increaseApproval`), the Permit2 allowance (`lockdown`),
    /// ERC-721 and ERC-1155 operators and a credit delegation; a bad entry among them (an
    /// unknown kind, a target without code, a reverting target) is reported and skipped.
    function test_RevokeRightsRevokesEveryKind() public {
        _grantEverything();
        (uint160 amount,,) = permit2.allowance(address(account), address(weth), spender);
        assertEq(amount, 5 ether);
        assertTrue(nft.isApprovedForAll(address(account), operator));
        assertTrue(multi.isApprovedForAll(address(account), operator));
        assertEq(rights.borrowAllowance(address(account), borrower), 4 ether);

        Right[] memory list = new Right[](10);
        list[0] = Right(ALLOWANCE, address(dai), address(0), spender);
        list[1] = Right(9, address(dai), address(0), spender); // unknown kind
        list[2] = Right(ALLOWANCE, address(rights), address(0), spender);
        list[3] = Right(ALLOWANCE, address(rights), address(0), operator);
        list[4] = Right(PERMIT2, address(permit2), address(weth), spender);
        list[5] = Right(OPERATOR, address(fake), address(0), operator); // no setApprovalForAll
        list[6] = Right(OPERATOR, address(nft), address(0), operator);
        list[7] = Right(OPERATOR, address(multi), address(0), operator);
        list[8] = Right(CREDIT_DELEGATION, makeAddr("no code"), address(0), borrower);
        list[9] = Right(CREDIT_DELEGATION, address(rights), address(0), borrower);

        vm.expectEmit(address(account));
        emit RightRevoked(ALLOWANCE, address(dai), address(0), spender);
        vm.expectEmit(address(account));
        emit RevocationFailed(1, address(dai), spender);
        vm.expectEmit(address(account));
        emit RightRevoked(PERMIT2, address(permit2), address(weth), spender);
        vm.expectEmit(address(account));
        emit RevocationFailed(5, address(fake), operator);
        vm.expectEmit(address(account));
        emit RightRevoked(CREDIT_DELEGATION, address(rights), address(0), borrower);
        assertEq(_revokeRights(list), 3, "three bad entries reported");

        assertEq(dai.allowance(address(account), spender), 0);
        assertEq(rights.allowance(address(account), spender), 0);
        assertEq(rights.allowance(address(account), operator), 0);
        (amount,,) = permit2.allowance(address(account), address(weth), spender);
        assertEq(amount, 0, "Permit2 allowance locked down");
        assertFalse(nft.isApprovedForAll(address(account), operator), "ERC-721 operator revoked");
        assertFalse(multi.isApprovedForAll(address(account), operator), "ERC-1155 operator revoked");
        assertEq(rights.borrowAllowance(address(account), borrower), 0, "credit delegation revoked");
    }

    /// Revocation is the owner's only.
    function test_RevertWhen_SomeoneElseRevokes() public {
        Right[] memory list = new Right[](1);
        list[0] = Right(ALLOWANCE, address(dai), address(0), spender);
        vm.prank(spender);
        (bool ok, bytes memory ret) = address(account)
            .call(abi.encodeWithSignature("revokeRights((uint8,address,address,address)[])", list));
        assertFalse(ok);
        assertEq(ret, abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, spender));
    }
}
