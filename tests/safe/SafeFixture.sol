// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";

/// @notice The part of Safe 1.4.1 the tests drive beside `contracts/interfaces/ISafe.sol`:
///         set-up, owner-signed transactions and the administration a transaction calls.
interface ISafeTestable {
    function setup(
        address[] calldata owners,
        uint256 threshold,
        address to,
        bytes calldata data,
        address fallbackHandler,
        address paymentToken,
        uint256 payment,
        address payable paymentReceiver
    ) external;
    function execTransaction(
        address to,
        uint256 value,
        bytes calldata data,
        uint8 operation,
        uint256 safeTxGas,
        uint256 baseGas,
        uint256 gasPrice,
        address gasToken,
        address payable refundReceiver,
        bytes memory signatures
    ) external payable returns (bool success);
    function getTransactionHash(
        address to,
        uint256 value,
        bytes calldata data,
        uint8 operation,
        uint256 safeTxGas,
        uint256 baseGas,
        uint256 gasPrice,
        address gasToken,
        address refundReceiver,
        uint256 nonce
    ) external view returns (bytes32);
    function nonce() external view returns (uint256);
    function enableModule(address module) external;
    function disableModule(address prevModule, address module) external;
    function isModuleEnabled(address module) external view returns (bool);
    function addOwnerWithThreshold(address owner, uint256 threshold) external;
    function changeThreshold(uint256 threshold) external;
    function setGuard(address guard) external;
    function setFallbackHandler(address handler) external;
    function getOwners() external view returns (address[] memory);
    function getThreshold() external view returns (uint256);
    function execTransactionFromModule(address to, uint256 value, bytes memory data, uint8 op)
        external
        returns (bool success);
}

/// @notice `SafeProxyFactory` 1.4.1.
interface ISafeProxyFactory {
    function createProxyWithNonce(address singleton, bytes memory initializer, uint256 saltNonce)
        external
        returns (address proxy);
}

/// @notice Safe 1.4.1 deployed from its npm build artifacts (`@safe-global/safe-contracts`): the
///         `Safe` or `SafeL2` singleton, `SafeProxyFactory` and `CompatibilityFallbackHandler`,
///         proxies created through the factory, and transactions signed by the owners' keys
///         exactly as a Safe owner signs them (EIP-712 `SafeTx`, signatures sorted by owner).
abstract contract SafeFixture is Test {
    string internal constant SAFE_ARTIFACTS =
        "node_modules/@safe-global/safe-contracts/build/artifacts/contracts/";
    address internal constant SENTINEL = address(1);

    address internal safeSingleton;
    address internal safeFactory;
    address internal fallbackHandler;
    uint256 private _saltNonce;

    /// @dev Deploys the singleton (`SafeL2` when `l2`), the factory and the fallback handler.
    function _deploySafeContracts(bool l2) internal {
        safeSingleton = l2
            ? deployCode(string.concat(SAFE_ARTIFACTS, "SafeL2.sol/SafeL2.json"))
            : deployCode(string.concat(SAFE_ARTIFACTS, "Safe.sol/Safe.json"));
        safeFactory = deployCode(
            string.concat(SAFE_ARTIFACTS, "proxies/SafeProxyFactory.sol/SafeProxyFactory.json")
        );
        fallbackHandler = deployCode(
            string.concat(
                SAFE_ARTIFACTS,
                "handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json"
            )
        );
    }

    /// @dev A Safe proxy owned by the addresses of `keys`, `threshold` of them needed.
    function _createSafe(uint256[] memory keys, uint256 threshold) internal returns (address) {
        address[] memory owners = new address[](keys.length);
        for (uint256 i; i < keys.length; ++i) {
            owners[i] = vm.addr(keys[i]);
        }
        bytes memory init = abi.encodeCall(
            ISafeTestable.setup,
            (owners, threshold, address(0), "", fallbackHandler, address(0), 0, payable(address(0)))
        );
        return
            ISafeProxyFactory(safeFactory).createProxyWithNonce(safeSingleton, init, ++_saltNonce);
    }

    /// @dev The owners' signatures of `hash`, sorted by owner address as the Safe requires.
    function _ownerSignatures(bytes32 hash, uint256[] memory keys)
        internal
        pure
        returns (bytes memory sigs)
    {
        uint256[] memory k = new uint256[](keys.length);
        for (uint256 i; i < keys.length; ++i) {
            k[i] = keys[i];
        }
        for (uint256 i = 1; i < k.length; ++i) {
            for (uint256 j = i; j > 0 && vm.addr(k[j - 1]) > vm.addr(k[j]); --j) {
                (k[j - 1], k[j]) = (k[j], k[j - 1]);
            }
        }
        for (uint256 i; i < k.length; ++i) {
            (uint8 v, bytes32 r, bytes32 s) = vm.sign(k[i], hash);
            sigs = bytes.concat(sigs, abi.encodePacked(r, s, v));
        }
    }

    /// @dev The calldata of the Safe's `execTransaction` of (`to`, `value`, `data`,
    ///      `operation`) at its current nonce, signed by `keys`, no refund.
    function _execCalldata(
        address safe,
        address to,
        uint256 value,
        bytes memory data,
        uint8 operation,
        uint256[] memory keys
    ) internal view returns (bytes memory) {
        ISafeTestable s = ISafeTestable(safe);
        bytes32 h = s.getTransactionHash(
            to, value, data, operation, 0, 0, 0, address(0), address(0), s.nonce()
        );
        return abi.encodeCall(
            ISafeTestable.execTransaction,
            (
                to,
                value,
                data,
                operation,
                0,
                0,
                0,
                address(0),
                payable(address(0)),
                _ownerSignatures(h, keys)
            )
        );
    }

    /// @dev Sends the owner-signed transaction from `sender`; returns whether the inner call
    ///      succeeded (the Safe reverts only on a bad signature or too little gas).
    function _execSafe(
        address safe,
        address to,
        uint256 value,
        bytes memory data,
        uint8 operation,
        uint256[] memory keys
    ) internal returns (bool) {
        bytes memory cd = _execCalldata(safe, to, value, data, operation, keys);
        vm.prank(vm.addr(keys[0]), vm.addr(keys[0]));
        (bool ok, bytes memory ret) = safe.call(cd);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        return abi.decode(ret, (bool));
    }

    /// @dev Enables `module` on `safe` through an owner-signed transaction.
    function _enableModule(address safe, address module, uint256[] memory keys) internal {
        assertTrue(
            _execSafe(safe, safe, 0, abi.encodeCall(ISafeTestable.enableModule, (module)), 0, keys),
            "enableModule"
        );
        assertTrue(ISafeTestable(safe).isModuleEnabled(module), "enabled");
    }

    function _keys(uint256 a) internal pure returns (uint256[] memory k) {
        k = new uint256[](1);
        k[0] = a;
    }

    function _keys(uint256 a, uint256 b) internal pure returns (uint256[] memory k) {
        k = new uint256[](2);
        (k[0], k[1]) = (a, b);
    }

    function _keys(uint256 a, uint256 b, uint256 c) internal pure returns (uint256[] memory k) {
        k = new uint256[](3);
        (k[0], k[1], k[2]) = (a, b, c);
    }
}
