// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {DeployPaceAccount} from "../../script/DeployPaceAccount.s.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";

/// @notice The deploy script's logic: the account lands at the predicted CREATE2 address with
///         the owner and verifier asked for; a second run sends nothing.
contract DeployPaceAccountTest is Test {
    /// @dev The standard deployer's runtime code (Arachnid's deterministic-deployment-proxy).
    bytes internal constant DEPLOYER_CODE =
        hex"7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";

    DeployPaceAccount internal script;
    address internal deployer;
    address internal owner = makeAddr("owner");
    address internal verifier = makeAddr("verifier");

    function setUp() public {
        script = new DeployPaceAccount();
        deployer = script.CREATE2_DEPLOYER();
        if (deployer.code.length == 0) vm.etch(deployer, DEPLOYER_CODE);
    }

    function test_RunDeploysAtThePredictedAddressWithOwnerAndVerifier() public {
        vm.setEnv("PACE_OWNER", vm.toString(owner));
        vm.setEnv("PACE_VERIFIER", vm.toString(verifier));
        bytes32 salt = keccak256(abi.encode(owner, verifier));
        address expected =
            vm.computeCreate2Address(salt, keccak256(script.initCode(owner, verifier)), deployer);
        assertEq(script.predict(owner, verifier, salt), expected);
        assertEq(expected.code.length, 0);

        PaceAccount account = script.run();

        assertEq(address(account), expected);
        assertEq(account.owner(), owner);
        assertEq(account.verifier(), verifier);
        assertFalse(account.paused());

        // A given salt: another address, same owner and verifier.
        bytes32 given = bytes32(uint256(0x5ace));
        vm.setEnv("PACE_SALT", vm.toString(given));
        PaceAccount other = script.run();
        assertEq(
            address(other),
            vm.computeCreate2Address(given, keccak256(script.initCode(owner, verifier)), deployer)
        );
        assertTrue(address(other) != expected);
        assertEq(other.owner(), owner);
        assertEq(other.verifier(), verifier);
    }

    function test_SecondDeployIsANoOp() public {
        bytes32 salt = script.defaultSalt(owner, verifier);
        PaceAccount first = script.deploy(owner, verifier, salt);
        vm.prank(owner);
        first.setVerifier(makeAddr("rotated"));
        uint256 nonce = vm.getNonce(deployer);
        PaceAccount second = script.deploy(owner, verifier, salt);
        assertEq(address(second), address(first));
        assertEq(second.verifier(), makeAddr("rotated"), "the existing account is left as it is");
        assertEq(vm.getNonce(deployer), nonce, "nothing created");
    }

    function test_OwnerAndVerifierChangeTheAddress() public {
        bytes32 salt = bytes32(uint256(1));
        address a = script.predict(owner, verifier, salt);
        assertTrue(a != script.predict(makeAddr("other"), verifier, salt));
        assertTrue(a != script.predict(owner, makeAddr("other"), salt));
        assertTrue(script.defaultSalt(owner, verifier) != script.defaultSalt(verifier, owner));
    }

    function test_RevertWhen_VerifierIsZero() public {
        bytes32 salt = bytes32(0);
        address predicted = script.predict(owner, address(0), salt);
        vm.expectRevert(
            abi.encodeWithSelector(
                DeployPaceAccount.DeployPaceAccountFailed.selector, predicted, bytes("")
            )
        );
        script.deploy(owner, address(0), salt);
    }

    function test_RevertWhen_NoDeployer() public {
        vm.etch(deployer, "");
        vm.expectRevert(DeployPaceAccount.DeployPaceAccountNoDeployer.selector);
        script.deploy(owner, verifier, bytes32(0));
    }
}
