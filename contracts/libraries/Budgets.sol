// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../interfaces/IPaceAccount.sol";
import {HolderBalance} from "./HolderBalance.sol";

/// @title Budgets
/// @notice The account's spending budgets and the metering that charges PDR executions against
///         them. A budget gives a token (address(0) = ETH) a limit per period; one execution
///         spends, per budgeted token, (1) every fall of the account's balance across each of its
///         calls, summed, so a later inflow (a borrow, say) cannot net out an earlier transfer,
///         and (2) every allowance of the token that its `approve` / `increaseAllowance` /
///         `increaseApproval` calls, and its Permit2 `approve` calls, leave standing after it,
///         since a spender can pull that later, outside any PDR. `PaceAccount` states what this
///         does and does not cover.
/// @dev    Internal functions only: they are compiled into the account and run in its context
///         (the events are the account's). The balances and allowances metered are `holder`'s,
///         the address whose assets the PDR moves (the account itself for `PaceAccount` and
///         `PaceDelegate`); the account's own signing calls are calls to `address(this)`. A
///         budgeted execution is `charge(meter(calls, floor, run, holder))`, where `run` is the
///         account's own way of making one PDR call.
library Budgets {
    /*//////////////////////////////////////////////////////////////
                                  TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice A spending budget and its current period.
    struct Budget {
        uint128 limit;
        uint64 period;
        uint64 windowStart;
        uint128 spent;
    }

    /// @notice Every budget of an account, and the tokens that have one, in the order they got
    ///         it (a removal moves the last token into the gap).
    /// @dev    As a storage variable it takes two slots, `budgetOf` then `tokens`: the layout of
    ///         a `mapping(address => Budget)` declared right before an `address[]`.
    struct Ledger {
        mapping(address token => Budget) budgetOf;
        address[] tokens;
    }

    /*//////////////////////////////////////////////////////////////
                                CONSTANTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The most tokens that can have a budget at once.
    uint256 internal constant MAX_TOKENS = 8;

    bytes4 private constant _APPROVE = 0x095ea7b3; // approve(address,uint256)
    bytes4 private constant _INCREASE_ALLOWANCE = 0x39509351; // increaseAllowance(address,uint256)
    bytes4 private constant _INCREASE_APPROVAL = 0xd73dd623; // increaseApproval(address,uint256)
    bytes4 private constant _DECREASE_ALLOWANCE = 0xa457c2d7; // decreaseAllowance(address,uint256)
    bytes4 private constant _DECREASE_APPROVAL = 0x66188463; // decreaseApproval(address,uint256)
    bytes4 private constant _TRANSFER = 0xa9059cbb; // transfer(address,uint256)
    bytes4 private constant _TRANSFER_FROM = 0x23b872dd; // transferFrom(address,address,uint256)

    /// @dev The canonical Permit2, at the same address on every chain.
    address private constant _PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

    /*//////////////////////////////////////////////////////////////
                                 LEDGER
    //////////////////////////////////////////////////////////////*/

    /// @notice Sets the budget of `token` to at most `limit` per `period` seconds; a `period` of
    ///         0 removes it. A new budget starts its first period now; a changed one keeps its
    ///         period and what was spent in it. Reverts with `PaceAccountTooManyBudgets` for a
    ///         new token past `MAX_TOKENS`.
    /// @return any Whether any token has a budget afterwards.
    function set(Ledger storage self, address token, uint128 limit, uint64 period)
        internal
        returns (bool any)
    {
        Budget storage b = self.budgetOf[token];
        bool exists = b.period != 0;
        if (period == 0) {
            if (exists) _removeToken(self.tokens, token);
            delete self.budgetOf[token];
        } else {
            if (!exists) {
                if (self.tokens.length == MAX_TOKENS) {
                    revert IPaceAccount.PaceAccountTooManyBudgets();
                }
                self.tokens.push(token);
                b.windowStart = uint64(block.timestamp);
            }
            b.limit = limit;
            b.period = period;
        }
        return self.tokens.length != 0;
    }

    /// @notice The budget of `token` and its current period (all zero when it has none). Once a
    ///         period has ended, the current one is the period a charge now would open: it
    ///         starts now and nothing is spent in it.
    function current(Ledger storage self, address token)
        internal
        view
        returns (uint128 limit, uint64 period, uint64 windowStart, uint128 spent)
    {
        Budget memory b = self.budgetOf[token];
        if (b.period != 0 && block.timestamp >= uint256(b.windowStart) + b.period) {
            return (b.limit, b.period, uint64(block.timestamp), 0);
        }
        return (b.limit, b.period, b.windowStart, b.spent);
    }

    /*//////////////////////////////////////////////////////////////
                                METERING
    //////////////////////////////////////////////////////////////*/

    /// @notice Runs `calls`, each through `run`, and returns what each budgeted token spent (in
    ///         `self.tokens` order): the sum of the account's balance falls across every call,
    ///         plus the allowances the batch's approvals leave standing.
    /// @dev    Before each call, a call to a budgeted token must be one whose effect the
    ///         metering sees (`_checkCall`). `run(i, call, floor)` makes call `i` and returns
    ///         the floor left for the next one; `floor` is the first call's.
    function meter(
        Ledger storage self,
        IPaceAccount.Call[] calldata calls,
        uint256 floor,
        function(uint256, IPaceAccount.Call calldata, uint256) internal returns (uint256) run,
        address holder
    ) internal returns (uint256[] memory spent) {
        address[] memory tokens = self.tokens;
        uint256 n = tokens.length;
        spent = new uint256[](n);
        uint256[] memory bal = new uint256[](n);
        for (uint256 j; j < n; ++j) {
            bal[j] = HolderBalance.balanceOf(tokens[j], holder);
        }
        for (uint256 i; i < calls.length; ++i) {
            IPaceAccount.Call calldata c = calls[i];
            _checkCall(tokens, c);
            floor = run(i, c, floor);
            for (uint256 j; j < n; ++j) {
                uint256 b = HolderBalance.balanceOf(tokens[j], holder);
                if (b < bal[j]) spent[j] = _saturatingAdd(spent[j], bal[j] - b);
                bal[j] = b;
            }
        }
        for (uint256 i; i < calls.length; ++i) {
            (address token, address spender) = _approvedSpender(calls, i);
            if (spender == address(0)) continue;
            for (uint256 j; j < n; ++j) {
                if (tokens[j] == token) {
                    uint256 standing = calls[i].target == _PERMIT2
                        ? _permit2AllowanceOf(token, holder, spender)
                        : _allowanceOf(token, holder, spender);
                    spent[j] = _saturatingAdd(spent[j], standing);
                }
            }
        }
    }

    /// @notice Adds what a metered execution spent of each token (`meter`'s result) to its
    ///         period's total, opening a new period first if the last one has ended. Reverts with
    ///         `PaceAccountBudgetExceeded` if a total would pass its limit.
    function charge(Ledger storage self, uint256[] memory spent) internal {
        for (uint256 i; i < spent.length; ++i) {
            if (spent[i] == 0) continue;
            address token = self.tokens[i];
            Budget storage b = self.budgetOf[token];
            if (block.timestamp >= uint256(b.windowStart) + b.period) {
                b.windowStart = uint64(block.timestamp);
                b.spent = 0;
            }
            uint256 total = _saturatingAdd(b.spent, spent[i]);
            if (total > b.limit) {
                revert IPaceAccount.PaceAccountBudgetExceeded(token, total, b.limit);
            }
            // forge-lint: disable-next-line(unsafe-typecast)
            b.spent = uint128(total); // <= limit, a uint128
            emit IPaceAccount.BudgetCharged(token, spent[i], total, b.windowStart);
        }
    }

    /*//////////////////////////////////////////////////////////////
                                 PRIVATE
    //////////////////////////////////////////////////////////////*/

    /// @dev A call to a budgeted token may only use the ERC-20 functions whose effect the
    ///      metering sees (balance falls, allowances): anything else (`approveAndCall`, an
    ///      operator grant, the token's own multicall, a plain ether send) could hand out the
    ///      right to move the token unseen.
    ///      And an account with budgets signs nothing (`approveHash`): a signed permit hands out
    ///      the right to move a token without a call the metering sees.
    function _checkCall(address[] memory tokens, IPaceAccount.Call calldata c) private view {
        if (c.target == address(this)) revert IPaceAccount.PaceAccountBudgetedSignature();
        for (uint256 j; j < tokens.length; ++j) {
            if (tokens[j] != c.target || c.target == address(0)) continue;
            bytes4 selector = c.data.length < 4 ? bytes4(0) : bytes4(c.data[:4]);
            if (
                selector != _TRANSFER && selector != _TRANSFER_FROM && selector != _APPROVE
                    && selector != _INCREASE_ALLOWANCE && selector != _INCREASE_APPROVAL
                    && selector != _DECREASE_ALLOWANCE && selector != _DECREASE_APPROVAL
            ) {
                revert IPaceAccount.PaceAccountBudgetedTokenCall(c.target, selector);
            }
            return;
        }
    }

    /// @dev The (token, spender) call `i` grants an allowance of, if it is the first such call
    ///      of the batch to both; spender address(0) otherwise.
    function _approvedSpender(IPaceAccount.Call[] calldata calls, uint256 i)
        private
        pure
        returns (address token, address spender)
    {
        (token, spender) = _grantee(calls[i]);
        if (spender == address(0)) return (token, spender);
        for (uint256 k; k < i; ++k) {
            (address t, address s) = _grantee(calls[k]);
            if (t == token && s == spender && calls[k].target == calls[i].target) {
                return (token, address(0));
            }
        }
    }

    /// @dev The (token, spender) of an `approve(address,uint256)` /
    ///      `increaseAllowance(address,uint256)` / `increaseApproval(address,uint256)` call (the
    ///      token is its target), or of a Permit2 `approve(token, spender, amount, expiration)`;
    ///      spender address(0) for any other call.
    function _grantee(IPaceAccount.Call calldata c)
        private
        pure
        returns (address token, address spender)
    {
        token = c.target;
        bytes calldata data = c.data;
        assembly ("memory-safe") {
            if gt(data.length, 0x23) {
                let selector := shr(224, calldataload(data.offset))
                let first := and(calldataload(add(data.offset, 0x04)), sub(shl(160, 1), 1))
                switch eq(token, _PERMIT2)
                case 1 {
                    if and(eq(selector, 0x87517c45), gt(data.length, 0x43)) {
                        token := first
                        spender := and(calldataload(add(data.offset, 0x24)), sub(shl(160, 1), 1))
                    }
                }
                default {
                    // approve, increaseAllowance, increaseApproval
                    if or(
                        or(eq(selector, 0x095ea7b3), eq(selector, 0x39509351)),
                        eq(selector, 0xd73dd623)
                    ) {
                        spender := first
                    }
                }
            }
        }
    }

    /// @dev What `spender` can pull of `holder`'s `token` through Permit2: its unexpired Permit2
    ///      allowance, at most the token allowance `holder` gives Permit2. An unreadable answer
    ///      reverts the execution.
    function _permit2AllowanceOf(address token, address holder, address spender)
        private
        view
        returns (uint256 amount)
    {
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, shl(224, 0x927da105)) // allowance(owner, token, spender)
            mstore(add(m, 0x04), holder)
            mstore(add(m, 0x24), token)
            mstore(add(m, 0x44), spender)
            let ok := staticcall(gas(), _PERMIT2, m, 0x64, m, 0x40)
            if iszero(and(ok, gt(returndatasize(), 0x3f))) {
                mstore(0x00, shl(224, 0x13ccbedb)) // PaceAccountUnreadableToken(address)
                mstore(0x04, _PERMIT2)
                revert(0x00, 0x24)
            }
            amount := mload(m)
            if lt(mload(add(m, 0x20)), timestamp()) { amount := 0 }
        }
        uint256 pullable = _allowanceOf(token, holder, _PERMIT2);
        if (pullable < amount) amount = pullable;
    }

    /// @dev `token.allowance(holder, spender)`; a token that cannot answer reverts the
    ///      execution.
    function _allowanceOf(address token, address holder, address spender)
        private
        view
        returns (uint256 a)
    {
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, shl(224, 0xdd62ed3e)) // allowance(owner, spender)
            mstore(add(m, 0x04), holder)
            mstore(add(m, 0x24), spender)
            let ok := staticcall(gas(), token, m, 0x44, m, 0x20)
            if iszero(and(ok, gt(returndatasize(), 0x1f))) {
                mstore(0x00, shl(224, 0x13ccbedb)) // PaceAccountUnreadableToken(address)
                mstore(0x04, token)
                revert(0x00, 0x24)
            }
            a := mload(m)
        }
    }

    function _saturatingAdd(uint256 a, uint256 b) private pure returns (uint256) {
        unchecked {
            uint256 c = a + b;
            return c < a ? type(uint256).max : c;
        }
    }

    function _removeToken(address[] storage tokens, address token) private {
        uint256 n = tokens.length;
        for (uint256 i; i < n; ++i) {
            if (tokens[i] == token) {
                tokens[i] = tokens[n - 1];
                tokens.pop();
                return;
            }
        }
    }
}
