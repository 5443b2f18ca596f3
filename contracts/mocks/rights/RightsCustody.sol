// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title RightsCustody
/// @notice Test contract for the rights rules: a treasury whose owner may withdraw everything it
///         holds. The owner shares one storage slot with a counter. Besides the plain
///         `transferOwnership`, two ways to hand ownership over that no decoder knows and no
///         event shows: a successor packed in `bytes` (`configure`), and a successor computed in
///         the code (`retire`).
contract RightsCustody {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The caller is not the owner.
    error RightsCustodyNotOwner(address caller);
    /// @notice `configure` data that is not `(uint8 1, address)` packed.
    error RightsCustodyBadConfig();

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Ownership moved through `transferOwnership`.
    /// @param previousOwner The owner before.
    /// @param newOwner The owner after.
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice The owner, packed with how many times it changed.
    struct Control {
        uint96 generation;
        address owner;
    }

    /// @notice Who `retire` hands the treasury to: an address computed, not written out.
    address public constant SUCCESSOR =
        address(uint160(uint256(keccak256("pace-rights/successor"))));

    /// @notice The owner and its generation.
    Control public control;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param owner_ The first owner.
    constructor(address owner_) {
        control = Control({generation: 1, owner: owner_});
    }

    /// @notice Takes ether.
    receive() external payable {}

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice The owner.
    /// @return The owner.
    function owner() external view returns (address) {
        return control.owner;
    }

    /// @notice Hands the treasury to `newOwner`.
    /// @param newOwner The next owner.
    function transferOwnership(address newOwner) external {
        address previous = _onlyOwner();
        _set(newOwner);
        emit OwnershipTransferred(previous, newOwner);
    }

    /// @notice Applies packed settings: `abi.encodePacked(uint8(1), address next)` hands the
    ///         treasury to `next`.
    /// @param data The packed settings.
    function configure(bytes calldata data) external {
        _onlyOwner();
        if (data.length != 21 || uint8(data[0]) != 1) revert RightsCustodyBadConfig();
        _set(address(bytes20(data[1:21])));
    }

    /// @notice Hands the treasury to [`SUCCESSOR`].
    function retire() external {
        _onlyOwner();
        _set(SUCCESSOR);
    }

    /// @notice Sends `amount` of `token` (ether: the zero address) to the owner.
    /// @param token The token.
    /// @param amount How much.
    function withdraw(IERC20 token, uint256 amount) external {
        address to = _onlyOwner();
        if (address(token) == address(0)) {
            (bool ok,) = to.call{value: amount}("");
            require(ok, "ether transfer failed");
        } else {
            token.safeTransfer(to, amount);
        }
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _onlyOwner() private view returns (address) {
        address current = control.owner;
        if (msg.sender != current) revert RightsCustodyNotOwner(msg.sender);
        return current;
    }

    function _set(address next) private {
        control = Control({generation: control.generation + 1, owner: next});
    }
}
