// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceDelegate} from "../../contracts/interfaces/IPaceDelegate.sol";
import {PaceHalmosBase} from "./PaceHalmosBase.sol";

/// @notice The proofs' account as `PaceDelegate` (the real one, or a variant with one guard
///         removed, chosen by `_newDelegate`), set up with the proofs' verifier. Halmos has no
///         EIP-7702 delegation: the delegate's code runs at its own address, which then plays the
///         EOA, so the owner is the account itself (`owner()`), and every owner function, the
///         set-up and the administration module it reaches by `delegatecall` run as they do at
///         a delegated EOA (code at one address, storage and `address(this)` at the account).
abstract contract DelegateUnderProof is PaceHalmosBase {
    /// @dev Deploys the delegate code under proof (its constructor deploys its module).
    function _newDelegate() internal virtual returns (address);

    /// @dev The delegate, set up by itself (the EOA's own call) with `verifier_`.
    function _deploy(address, address verifier_) internal override returns (address d) {
        d = _newDelegate();
        IPaceDelegate.Setup memory s;
        s.verifier = verifier_;
        s.budgets = new IPaceDelegate.BudgetLimit[](0);
        s.lanes = new IPaceDelegate.LaneFloor[](0);
        s.nonce = 1;
        s.deadline = type(uint256).max;
        vm.prank(d);
        IPaceDelegate(d).setUp(s, "");
        // Halmos numbers the contracts it creates in order: the delegate's constructor created
        // its module right after the delegate.
        module = address(uint160(d) + 1);
        require(module.code.length != 0, "the module");
    }
}
