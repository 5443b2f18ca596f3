// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice The part of halmos's symbolic-value cheatcodes (`halmos-cheatcodes`' `SVM`) the proofs
///         use. Halmos answers calls to this address; forge never runs these contracts.
interface Svm {
    /// @notice Symbolic calldata for every non-view function of the contract at `target`, plus
    ///         empty calldata (receive) and calldata with an unknown selector (fallback): one
    ///         path each.
    function createCalldata(address target) external pure returns (bytes memory data);

    /// @notice A fresh symbolic address.
    function createAddress(string memory name) external pure returns (address value);

    /// @notice A fresh symbolic boolean.
    function createBool(string memory name) external pure returns (bool value);

    /// @notice `length` fresh symbolic bytes.
    function createBytes(uint256 length, string memory name)
        external
        pure
        returns (bytes memory value);
}

/// @dev `address(uint160(uint256(keccak256("svm cheat code"))))`.
Svm constant svm = Svm(0xF3993A62377BCd56AE39D773740A5390411E8BC9);
