// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title RightsWallet
/// @notice Test contract for the rights rules: a minimal wallet its owner drives (`execute`).
///         The owner is set once by its factory (`initialize`), in storage packed with a nonce.
contract RightsWallet {
    /// @notice The caller may not do this.
    error RightsWalletUnauthorized(address caller);

    /// @notice The owner, packed with a nonce.
    struct Control {
        uint48 nonce;
        address owner;
        uint48 flags;
    }

    /// @notice Who deployed it (may initialize it once).
    address public immutable factory;
    /// @notice The owner.
    Control public control;

    constructor() {
        factory = msg.sender;
    }

    /// @notice Takes ether.
    receive() external payable {}

    /// @notice Sets the owner, once, from the factory.
    /// @param owner_ The owner.
    function initialize(address owner_) external {
        if (msg.sender != factory || control.owner != address(0)) {
            revert RightsWalletUnauthorized(msg.sender);
        }
        control = Control({nonce: 1, owner: owner_, flags: 0});
    }

    /// @notice The owner.
    /// @return The owner.
    function owner() external view returns (address) {
        return control.owner;
    }

    /// @notice Makes any call as the wallet.
    /// @param target The callee.
    /// @param value Ether sent.
    /// @param data Calldata.
    /// @return result The return data.
    function execute(address target, uint256 value, bytes calldata data)
        external
        returns (bytes memory result)
    {
        if (msg.sender != control.owner) revert RightsWalletUnauthorized(msg.sender);
        bool ok;
        (ok, result) = target.call{value: value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(result, 32), mload(result))
            }
        }
    }
}

/// @title RightsImmutableWallet
/// @notice Test contract for the rights rules: the same wallet with its owner in its code
///         (an immutable), not in storage.
contract RightsImmutableWallet {
    /// @notice The caller is not the owner.
    error RightsImmutableWalletNotOwner(address caller);

    /// @notice The owner.
    address public immutable owner;

    /// @param owner_ The owner.
    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice Takes ether.
    receive() external payable {}

    /// @notice Makes any call as the wallet.
    /// @param target The callee.
    /// @param value Ether sent.
    /// @param data Calldata.
    /// @return result The return data.
    function execute(address target, uint256 value, bytes calldata data)
        external
        returns (bytes memory result)
    {
        if (msg.sender != owner) revert RightsImmutableWalletNotOwner(msg.sender);
        bool ok;
        (ok, result) = target.call{value: value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(result, 32), mload(result))
            }
        }
    }
}

/// @title RightsWalletFactory
/// @notice Test contract for the rights rules: deploys wallets at addresses that depend only on a
///         salt (`deploy`, `deployPacked`: the owner is set after creation, so a wallet's address
///         says nothing about who owns it), or with the owner in the code (`deployImmutable`).
contract RightsWalletFactory {
    /// @notice `deployPacked` data that is not `(uint8, address)` packed.
    error RightsWalletFactoryBadConfig();

    /// @notice A wallet was deployed.
    /// @param wallet The wallet.
    event WalletDeployed(address wallet);

    /// @notice Deploys a wallet at the salt's address owned by `owner`.
    /// @param salt The CREATE2 salt.
    /// @param owner The owner.
    /// @return wallet The wallet.
    function deploy(bytes32 salt, address owner) external returns (address wallet) {
        wallet = _deploy(salt, owner);
    }

    /// @notice Deploys a wallet at the salt's address owned by the address packed in
    ///         `abi.encodePacked(uint8 version, address owner)`.
    /// @param salt The CREATE2 salt.
    /// @param config The packed settings.
    /// @return wallet The wallet.
    function deployPacked(bytes32 salt, bytes calldata config) external returns (address wallet) {
        if (config.length != 21) revert RightsWalletFactoryBadConfig();
        wallet = _deploy(salt, address(bytes20(config[1:21])));
    }

    /// @notice Deploys a wallet with `owner` in its code.
    /// @param salt The CREATE2 salt.
    /// @param owner The owner.
    /// @return wallet The wallet.
    function deployImmutable(bytes32 salt, address owner) external returns (address wallet) {
        wallet = address(new RightsImmutableWallet{salt: salt}(owner));
        emit WalletDeployed(wallet);
    }

    /// @notice Where `deploy` / `deployPacked` put the wallet of `salt`.
    /// @param salt The CREATE2 salt.
    /// @return The address.
    function predict(bytes32 salt) external view returns (address) {
        bytes32 hash = keccak256(
            abi.encodePacked(
                bytes1(0xff), address(this), salt, keccak256(type(RightsWallet).creationCode)
            )
        );
        return address(uint160(uint256(hash)));
    }

    function _deploy(bytes32 salt, address owner) private returns (address wallet) {
        RightsWallet w = new RightsWallet{salt: salt}();
        w.initialize(owner);
        wallet = address(w);
        emit WalletDeployed(wallet);
    }
}
