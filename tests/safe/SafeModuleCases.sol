// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPathCases} from "../accounts/EntryPathCases.sol";
import {EntryPaths} from "../accounts/EntryPaths.sol";
import {EntryPointFixture} from "../accounts/EntryPointFixture.sol";
import {SafeModuleWorld} from "./SafeModuleWorld.sol";

/// @notice The paper's enforcement cases (`EntryPathCases`) through `PaceModule` on a real Safe
///         1.4.1.
abstract contract SafeModuleCases is SafeModuleWorld, EntryPathCases {
    function setUp() public virtual override(SafeModuleWorld, EntryPaths) {
        SafeModuleWorld.setUp();
    }

    function _ownerAddr() internal view override returns (address) {
        return safe;
    }

    function _pace() internal view override(SafeModuleWorld, EntryPaths) returns (address) {
        return SafeModuleWorld._pace();
    }

    function _userOpDomain(address sender, bytes32 userOpHash)
        internal
        view
        override(SafeModuleWorld, EntryPointFixture)
        returns (bytes32)
    {
        return SafeModuleWorld._userOpDomain(sender, userOpHash);
    }

    /// The domains written out here are the module's own.
    function test_DomainsMatchTheModulesOwn() public view {
        assertEq(_moduleDomain(), module.domainSeparator());
        bytes32 h = keccak256("some user operation");
        assertEq(_userOpDomain(address(module), h), module.userOpDomainSeparator(h));
        Pdr memory p = _richPdr(safe, 1 ether, _pack(_freshTerms()));
        assertEq(
            _directDigest(p),
            module.pdrDigest(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms)
        );
    }
}

/// @notice The enforcement cases through the module, called directly by a relayer.
contract SafeModuleDirectEnforcementTest is SafeModuleCases {
    function _viaEntryPoint() internal pure override returns (bool) {
        return false;
    }
}

/// @notice The enforcement cases through the module as the sender of PDR user operations on the
///         real EntryPoint v0.8 (gas from the module's deposit).
contract SafeModuleEntryPointEnforcementTest is SafeModuleCases {
    function _viaEntryPoint() internal pure override returns (bool) {
        return true;
    }
}
