// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {MockPermit2} from "../contracts/mocks/protocols/MockPermit2.sol";

/// @notice A Permit2 client pulling with an allowance the account granted through Permit2.
contract Permit2Spender {
    MockPermit2 internal immutable PERMIT2;

    constructor(MockPermit2 permit2) {
        PERMIT2 = permit2;
    }

    function pull(address from, uint160 amount, address token) external {
        PERMIT2.transferFrom(from, msg.sender, amount, token);
    }
}

/// @notice Spending budgets see the allowances a PDR grants through Permit2: a Permit2
///         `approve(token, spender, amount, expiration)` on a budgeted token is charged what the
///         spender can pull after the batch (its unexpired Permit2 allowance, at most the token
///         allowance the account gives Permit2), as a token `approve` is charged its standing
///         allowance.
contract Permit2BudgetTest is DefiFixture {
    address internal constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;
    uint128 internal constant LIMIT = 100 ether;

    Permit2Spender internal spender;

    function setUp() public {
        _deployDefi();
        deployCodeTo("MockPermit2.sol:MockPermit2", PERMIT2);
        spender = new Permit2Spender(MockPermit2(PERMIT2));
        vm.startPrank(owner);
        // The everyday set-up: the token approved to Permit2 once, without a limit.
        account.execute(address(dai), 0, abi.encodeCall(dai.approve, (PERMIT2, type(uint256).max)));
        account.setBudget(address(dai), LIMIT, 1 days);
        vm.stopPrank();
    }

    function _grantData(address token, address to, uint160 amount, uint48 expiration)
        internal
        pure
        returns (bytes memory)
    {
        return abi.encodeCall(MockPermit2.approve, (token, to, amount, expiration));
    }

    /// @dev A batch of one Permit2 grant.
    function _grant(address token, address to, uint160 amount, uint48 expiration)
        internal
        view
        returns (IPaceAccount.Call[] memory)
    {
        return _one(PERMIT2, 0, _grantData(token, to, amount, expiration));
    }

    function _spent() internal view returns (uint128 spent) {
        (,,, spent) = account.budget(address(dai));
    }

    function _exceeded(uint256 total) internal view returns (bytes memory) {
        return abi.encodeWithSelector(
            IPaceAccount.PaceAccountBudgetExceeded.selector, address(dai), total, LIMIT
        );
    }

    /// A leaked verifier key signs a Permit2 grant without a limit to its own spender: nothing
    /// moves during the PDR, but the spender could pull every DAI afterwards, so it reverts.
    function test_RevertWhen_APermit2GrantLeftStandingExceedsTheBudget() public {
        uint48 later = uint48(block.timestamp + 30 days);
        _batch(
            _grant(address(dai), address(spender), type(uint160).max, later),
            _exceeded(type(uint160).max)
        );
        (uint160 amount,,) =
            MockPermit2(PERMIT2).allowance(address(account), address(dai), address(spender));
        assertEq(amount, 0);
        // Within the budget, the standing Permit2 allowance is what gets charged.
        _batch(_grant(address(dai), address(spender), 40 ether, later), "");
        assertEq(_spent(), 40 ether);
        // What was charged is what the spender can pull.
        spender.pull(address(account), 40 ether, address(dai));
        assertEq(dai.balanceOf(address(this)), 40 ether);
    }

    /// Grant-then-pull, the Universal Router's pattern: only what left the account is charged,
    /// once, and a second grant to the same spender in the batch is not charged twice.
    function test_APermit2GrantTheBatchUsesUpIsChargedOnce() public {
        uint48 later = uint48(block.timestamp + 1 hours);
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](3);
        calls[0] =
            IPaceAccount.Call(PERMIT2, 0, _grantData(address(dai), address(this), 30 ether, later));
        calls[1] = calls[0];
        calls[2] =
            IPaceAccount.Call(address(this), 0, abi.encodeCall(this.pullFromAccount, (30 ether)));
        _batch(calls, "");
        assertEq(_spent(), 30 ether);
        assertEq(dai.balanceOf(address(this)), 30 ether);
    }

    /// Called by the account inside a PDR: pulls `amount` DAI through Permit2 as its spender.
    function pullFromAccount(uint160 amount) external {
        MockPermit2(PERMIT2).transferFrom(address(account), address(this), amount, address(dai));
    }

    /// The spender can pull no more than the token allowance Permit2 holds: that is the charge.
    function test_APermit2GrantIsChargedAtMostTheTokenAllowanceToPermit2() public {
        vm.prank(owner);
        account.execute(address(dai), 0, abi.encodeCall(dai.approve, (PERMIT2, 10 ether)));
        _batch(_grant(address(dai), address(spender), 1000 ether, uint48(block.timestamp + 1)), "");
        assertEq(_spent(), 10 ether);
    }

    /// An expired Permit2 allowance can pull nothing and is charged nothing; one that expires
    /// at this block's timestamp still can, and is charged.
    function test_AnExpiredPermit2GrantIsNotCharged() public {
        _batch(_grant(address(dai), address(spender), 1000 ether, uint48(block.timestamp - 1)), "");
        assertEq(_spent(), 0);
        _batch(
            _grant(address(dai), address(spender), 1000 ether, uint48(block.timestamp)),
            _exceeded(1000 ether)
        );
    }

    /// Grants of unbudgeted tokens through Permit2 are free, as their token approvals are.
    function test_Permit2GrantsOfOtherTokensAreFree() public {
        _batch(
            _grant(address(weth), address(spender), type(uint160).max, uint48(block.timestamp + 1)),
            ""
        );
        assertEq(_spent(), 0);
    }

    /// No Permit2 where the canonical one lives: a grant "succeeds" (a call to an address
    /// without code does), but its allowance cannot be read, so the execution reverts.
    function test_RevertWhen_Permit2CannotBeRead() public {
        vm.etch(PERMIT2, "");
        _batch(
            _grant(address(dai), address(spender), 1 ether, uint48(block.timestamp + 1)),
            abi.encodeWithSelector(IPaceAccount.PaceAccountUnreadableToken.selector, PERMIT2)
        );
    }
}
