// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {SignatureCases} from "./SignatureCases.sol";
import {PaceDelegate} from "../../contracts/PaceDelegate.sol";

/// @notice The enforcement and signature cases on the standalone account, direct path (its
///         other direct-path cases are `tests/PaceAccount.t.sol`'s).
contract StandaloneDirectEnforcementTest is SignatureCases {
    function _holder() internal view override returns (address) {
        return address(account);
    }

    function _viaEntryPoint() internal pure override returns (bool) {
        return false;
    }

    function _directDigest(Pdr memory p) internal view override returns (bytes32) {
        return _digest(account.domainSeparator(), p);
    }

    function _pause() internal override {
        vm.prank(owner);
        account.setPaused(true);
    }
}

/// @notice The enforcement cases on the standalone account through the real EntryPoint v0.8.
contract StandaloneEntryPointEnforcementTest is SignatureCases {
    function _holder() internal view override returns (address) {
        return address(account);
    }

    function _viaEntryPoint() internal pure override returns (bool) {
        return true;
    }

    /// @dev Unused: PDRs reach this holder through the EntryPoint.
    function _directDigest(Pdr memory) internal pure override returns (bytes32) {
        return bytes32(0);
    }

    function _pause() internal override {
        vm.prank(owner);
        account.setPaused(true);
    }
}

/// @notice The enforcement cases on an EOA delegated (EIP-7702) to `PaceDelegate`, direct path.
contract DelegateDirectEnforcementTest is SignatureCases {
    function _holder() internal view override returns (address) {
        return eoa;
    }

    function _viaEntryPoint() internal pure override returns (bool) {
        return false;
    }

    function _directDigest(Pdr memory p) internal view override returns (bytes32) {
        return _digest(_delegateDirectDomain(eoa), p);
    }

    function _pause() internal override {
        vm.prank(eoa);
        PaceDelegate(payable(eoa)).setPaused(true);
    }

    /// The digest written out here is the one the delegate computes.
    function test_DigestMatchesTheDelegatesOwn() public view {
        Pdr memory p = _richPdr(eoa, 1 ether, _pack(_freshTerms()));
        assertEq(
            _directDigest(p),
            dlg.pdrDigest(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms)
        );
        assertEq(_delegateDirectDomain(eoa), dlg.domainSeparator());
    }
}

/// @notice The enforcement cases on an EOA delegated to `PaceDelegate`, through the EntryPoint.
contract DelegateEntryPointEnforcementTest is SignatureCases {
    function _holder() internal view override returns (address) {
        return eoa;
    }

    function _viaEntryPoint() internal pure override returns (bool) {
        return true;
    }

    /// @dev Unused: PDRs reach this holder through the EntryPoint.
    function _directDigest(Pdr memory) internal pure override returns (bytes32) {
        return bytes32(0);
    }

    function _pause() internal override {
        vm.prank(eoa);
        PaceDelegate(payable(eoa)).setPaused(true);
    }

    /// The user-operation domains written out here are the accounts' own.
    function test_UserOpDomainsMatchTheAccountsOwn() public view {
        bytes32 h = keccak256("some user operation");
        assertEq(_userOpDomain(eoa, h), dlg.userOpDomainSeparator(h));
        assertEq(_userOpDomain(address(account), h), account.userOpDomainSeparator(h));
    }
}
