// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPaths} from "../accounts/EntryPaths.sol";
import {SafeFixture, ISafeTestable} from "./SafeFixture.sol";
import {PaceModule} from "../../contracts/PaceModule.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice A real Safe 1.4.1 proxy (1-of-1, `Safe` singleton) guarded by `PaceModule`, in the
///         accounts' world (`EntryPointFixture`): PDRs go to the module, the Safe's balances
///         move, and the owner's administration is a Safe transaction signed by its owner.
abstract contract SafeModuleWorld is EntryPaths, SafeFixture {
    uint256 internal constant SAFE_OWNER_KEY = 0x5afe01;

    address internal safe;
    PaceModule internal module;

    function setUp() public virtual override {
        super.setUp();
        _deploySafeContracts(false);
        safe = _createSafe(_keys(SAFE_OWNER_KEY), 1);
        module = new PaceModule(safe, verifierAddr);
        _enableModule(safe, address(module), _keys(SAFE_OWNER_KEY));
        weth.mint(safe, 100 ether);
        dai.mint(safe, 100_000 ether);
        vm.deal(safe, 10 ether);
        vm.deal(address(this), address(this).balance + DEPOSIT);
        ep.depositTo{value: DEPOSIT}(address(module));
    }

    function _holder() internal view override returns (address) {
        return safe;
    }

    function _pace() internal view virtual override returns (address) {
        return address(module);
    }

    /// @dev Name "PaceModule", version "1", the module, the Safe as salt; written out here.
    function _moduleDomain() internal view returns (bytes32) {
        return _saltedDomain("PaceModule", "1", address(module), bytes32(uint256(uint160(safe))));
    }

    function _directDigest(Pdr memory p) internal view override returns (bytes32) {
        return _digest(_moduleDomain(), p);
    }

    function _userOpDomain(address sender, bytes32 userOpHash)
        internal
        view
        virtual
        override
        returns (bytes32)
    {
        if (sender != address(module)) return super._userOpDomain(sender, userOpHash);
        bytes32 salt = keccak256(abi.encode(bytes32(uint256(uint160(safe))), userOpHash));
        return _saltedDomain("PaceModule", "1", address(module), salt);
    }

    /// @dev The Safe pauses the module with a transaction its owner signed.
    function _pause() internal override {
        assertTrue(
            _execSafe(
                safe,
                address(module),
                0,
                abi.encodeCall(IPaceAccount.setPaused, (true)),
                0,
                _keys(SAFE_OWNER_KEY)
            ),
            "setPaused"
        );
    }
}
