// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Script, console} from "forge-std/Script.sol";
import {PaceAccount} from "../contracts/PaceAccount.sol";

/// @title DeployPaceAccount
/// @notice Deploys a PaceAccount at a deterministic CREATE2 address through the standard
///         CREATE2 deployer (0x4e59b448..., which anvil and most chains have), so the same owner,
///         verifier and salt give the same account address on every chain. `pace deploy`
///         computes the same address from the same inputs (crates/cli/src/deploy.rs).
///
///         Environment: `PACE_OWNER` and `PACE_VERIFIER` (addresses), optional `PACE_SALT`
///         (bytes32; default `keccak256(abi.encode(owner, verifier))`).
///
///         PACE_OWNER=0x... PACE_VERIFIER=0x... node_modules/.bin/forge script \
///           script/DeployPaceAccount.s.sol --rpc-url $RPC --broadcast --account <keystore>
///
///         Idempotent: when the account is already at the address, nothing is sent.
/// @dev    The chain needs the Cancun opcodes (transient storage) the account uses.
contract DeployPaceAccount is Script {
    /// @notice The standard CREATE2 deployer (Arachnid's deterministic-deployment-proxy): called
    ///         with `salt ++ initCode`, it creates the contract and returns its 20-byte address.
    address public constant CREATE2_DEPLOYER = 0x4e59b44847b379578588920cA78FbF26c0B4956C;

    /// @notice The chain has no code at `CREATE2_DEPLOYER`.
    error DeployPaceAccountNoDeployer();
    /// @notice The deployer's call failed (the constructor reverted) or returned another address.
    error DeployPaceAccountFailed(address expected, bytes returned);
    /// @notice Code is at the address but its owner is not the one asked for.
    error DeployPaceAccountOwnerMismatch(address account, address owner);

    /// @notice Deploys the account of `PACE_OWNER` and `PACE_VERIFIER` (salt `PACE_SALT` or the
    ///         default), broadcasting from the script's sender.
    function run() external returns (PaceAccount account) {
        address owner = vm.envAddress("PACE_OWNER");
        address verifier = vm.envAddress("PACE_VERIFIER");
        bytes32 salt = vm.envOr("PACE_SALT", defaultSalt(owner, verifier));
        vm.startBroadcast();
        account = deploy(owner, verifier, salt);
        vm.stopBroadcast();
    }

    /// @notice The salt used when none is given: `keccak256(abi.encode(owner, verifier))`.
    function defaultSalt(address owner, address verifier) public pure returns (bytes32) {
        return keccak256(abi.encode(owner, verifier));
    }

    /// @notice PaceAccount's creation code followed by its constructor arguments.
    function initCode(address owner, address verifier) public pure returns (bytes memory) {
        return abi.encodePacked(type(PaceAccount).creationCode, abi.encode(owner, verifier));
    }

    /// @notice The address `deploy(owner, verifier, salt)` creates the account at.
    function predict(address owner, address verifier, bytes32 salt) public pure returns (address) {
        bytes32 hash = keccak256(
            abi.encodePacked(
                bytes1(0xff), CREATE2_DEPLOYER, salt, keccak256(initCode(owner, verifier))
            )
        );
        return address(uint160(uint256(hash)));
    }

    /// @notice Creates the account through `CREATE2_DEPLOYER` unless it is already there.
    function deploy(address owner, address verifier, bytes32 salt)
        public
        returns (PaceAccount account)
    {
        address predicted = predict(owner, verifier, salt);
        account = PaceAccount(payable(predicted));
        if (predicted.code.length != 0) {
            // The address commits to the init code, so this is the account asked for; the
            // verifier may have been rotated since.
            if (account.owner() != owner) revert DeployPaceAccountOwnerMismatch(predicted, owner);
            console.log("PaceAccount already deployed at", predicted);
            return account;
        }
        if (CREATE2_DEPLOYER.code.length == 0) revert DeployPaceAccountNoDeployer();
        (bool ok, bytes memory returned) =
            CREATE2_DEPLOYER.call(abi.encodePacked(salt, initCode(owner, verifier)));
        if (!ok || returned.length != 20 || address(bytes20(returned)) != predicted) {
            revert DeployPaceAccountFailed(predicted, returned);
        }
        console.log("PaceAccount deployed at", predicted);
    }
}
