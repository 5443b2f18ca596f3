// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {PaceHalmosBase} from "./PaceHalmosBase.sol";
import {svm} from "./Svm.sol";
import {PaceAccountNoSignerCheck} from "./generated/PaceAccountNoSignerCheck.sol";
import {PaceAccountNoOwnerCheck} from "./generated/PaceAccountNoOwnerCheck.sol";

/// @notice Property 1, one transaction, every external entry point: the account's ETH, its token
///         balance and its token allowances never go out unless the owner called or the
///         verifier signed the PDR that was executed. PDR calls are symbolic and may target the
///         token, an empty account or the account itself (which the account refuses).
abstract contract OutflowSpec is PaceHalmosBase {
    /// @notice Any caller, any ETH value, any entry point (halmos's `createCalldata`: every
    ///         non-view function of the account's ABI, plus receive and fallback), with no budget.
    function check_noOutflowWithoutPdrOrOwner(address caller, uint256 value, address spender)
        public
    {
        _checkNoOutflow(caller, value, spender);
    }

    /// @notice The same with a budget on the token, so the metered batch path runs.
    function check_noOutflowWithoutPdrOrOwner_budgeted(
        address caller,
        uint256 value,
        address spender,
        uint128 limit,
        uint64 period
    ) public {
        vm.assume(period != 0);
        vm.prank(_owner());
        account.setBudget(address(token), limit, period);
        _checkNoOutflow(caller, value, spender);
    }

    /// @dev The owner may move anything, so only other callers are explored (this also keeps
    ///      halmos off the owner's self-calls, whose symbolic calldata it cannot decode). Neither
    ///      is the account its own caller: a call from it is one of its own calls, already
    ///      authorised or not one level up. Nor is the EntryPoint (`ENTRY_POINT`).
    function _checkNoOutflow(address caller, uint256 value, address spender) internal {
        vm.assume(caller != _owner() && caller != ENTRY_POINT && caller != address(account));
        vm.assume(value <= 1e30);
        bytes memory data = svm.createCalldata(address(account));
        _assumeTargets(data);

        address signer = account.verifier();
        uint256 ethBefore = address(account).balance;
        uint256 tokenBefore = token.balanceOf(address(account));
        uint256 allowanceBefore = token.allowance(address(account), spender);

        vm.deal(caller, value);
        vm.prank(caller);
        (bool ok,) = address(account).call{value: value}(data);
        if (!ok) return;

        bool outflow = address(account).balance < ethBefore
            || token.balanceOf(address(account)) < tokenBefore
            || token.allowance(address(account), spender) > allowanceBefore;
        if (outflow) assert(_signedPdr(data, signer));
    }
}

/// @notice Proof: holds for `PaceAccount`.
contract PaceAccountOutflowProof is OutflowSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccount(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without the signer comparison a PDR moves funds unsigned (must FAIL).
contract PaceAccountOutflowNoSignerCheck is OutflowSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoSignerCheck(owner_, verifier_));
    }
}

/// @notice Non-vacuity: without `onlyOwner` anyone moves funds on the owner path (must FAIL).
contract PaceAccountOutflowNoOwnerCheck is OutflowSpec {
    function _deploy(address owner_, address verifier_) internal override returns (address) {
        return address(new PaceAccountNoOwnerCheck(owner_, verifier_));
    }
}
