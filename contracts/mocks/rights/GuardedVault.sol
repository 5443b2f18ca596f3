// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title GuardedVault
/// @notice Test contract for the rights rules: a vault of token deposits where each depositor
///         may name a guardian, who can take the depositor's whole balance (`recover`). Besides
///         the plain `setGuardian`, two ways to name one that no decoder knows and no event
///         shows: a guardian packed in `bytes` (`setGuardianPacked`), and a recovery address
///         written out in the code (`enableRecovery`).
contract GuardedVault {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The caller is not `user`'s guardian.
    error GuardedVaultNotGuardian(address user, address caller);
    /// @notice `setGuardianPacked` data that is not `(uint16, address)` packed.
    error GuardedVaultBadConfig();

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice `user` named `guardian` through `setGuardian`.
    /// @param user The depositor.
    /// @param guardian The guardian.
    event GuardianSet(address indexed user, address indexed guardian);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice A depositor's guardian, packed with when it was named.
    struct Guard {
        address guardian;
        uint48 since;
    }

    /// @notice Who `enableRecovery` names.
    address public constant RECOVERY = 0x5a1E5a1e5A1e5a1E5A1e5A1E5a1E5A1e5A1E5A1e;

    /// @notice Deposits by depositor and token.
    mapping(address user => mapping(IERC20 token => uint256 amount)) public balanceOf;
    /// @notice Guardians by depositor.
    mapping(address user => Guard guard) public guards;

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Deposits `amount` of `token` from the caller (needs an approval).
    /// @param token The token.
    /// @param amount How much.
    function deposit(IERC20 token, uint256 amount) external {
        token.safeTransferFrom(msg.sender, address(this), amount);
        balanceOf[msg.sender][token] += amount;
    }

    /// @notice Withdraws the caller's `amount` of `token`.
    /// @param token The token.
    /// @param amount How much.
    function withdraw(IERC20 token, uint256 amount) external {
        balanceOf[msg.sender][token] -= amount;
        token.safeTransfer(msg.sender, amount);
    }

    /// @notice Names the caller's guardian.
    /// @param guardian The guardian.
    function setGuardian(address guardian) external {
        _guard(guardian);
        emit GuardianSet(msg.sender, guardian);
    }

    /// @notice Names the caller's guardian from `abi.encodePacked(uint16 flags, address guardian)`.
    /// @param data The packed settings.
    function setGuardianPacked(bytes calldata data) external {
        if (data.length != 22) revert GuardedVaultBadConfig();
        _guard(address(bytes20(data[2:22])));
    }

    /// @notice Names [`RECOVERY`] the caller's guardian.
    function enableRecovery() external {
        _guard(RECOVERY);
    }

    /// @notice `user`'s guardian takes `user`'s whole balance of `token`.
    /// @param user The depositor.
    /// @param token The token.
    function recover(address user, IERC20 token) external {
        if (guards[user].guardian != msg.sender) revert GuardedVaultNotGuardian(user, msg.sender);
        uint256 amount = balanceOf[user][token];
        balanceOf[user][token] = 0;
        token.safeTransfer(msg.sender, amount);
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _guard(address guardian) private {
        guards[msg.sender] = Guard({guardian: guardian, since: uint48(block.timestamp)});
    }
}
