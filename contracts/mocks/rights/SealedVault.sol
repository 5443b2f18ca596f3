// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title SealedVault
/// @notice Test share vault, priced as an ERC-4626 vault is (`convertToAssets`), whose deposit
///         also lets a delegate the vault's operator enlisted beforehand redeem the depositor's
///         shares. The grant is sealed under the depositor in a form in which no trace names the
///         delegate whole: packed beside an expiry, committed to as a hash, set as a bit over the
///         registry of delegates, masked with a hash, or kept (masked) in a slot numbered by
///         the depositor's address with no hash taken. `Seal.None` grants nothing, nor does
///         `Seal.Locked`, which keeps under the depositor when its deposit unlocks, nor
///         `Seal.Checkpointed`, which keeps the supply at its last deposit (`recordOf`).
contract SealedVault {
    using SafeERC20 for IERC20;

    /// @notice How a deposit seals the delegate's grant.
    enum Seal {
        None,
        Packed,
        Committed,
        Indexed,
        Masked,
        Numbered,
        Locked,
        Checkpointed
    }

    /// @notice Only the operator enlists delegates.
    error SealedVaultNotOperator(address caller);
    /// @notice The caller may not redeem `owner`'s shares.
    error SealedVaultNotGranted(address owner, address caller);

    /// @notice ERC-20 share movements (mints from and burns to zero).
    event Transfer(address indexed from, address indexed to, uint256 value);

    /// @notice The asset deposited.
    IERC20 public immutable asset;
    /// @notice How deposits seal the grant.
    Seal public immutable seal;
    /// @notice Who enlists delegates.
    address public immutable operator;

    /// @notice Shares by holder.
    mapping(address holder => uint256 shares) public balanceOf;
    /// @notice Shares issued.
    uint256 public totalSupply;

    /// @notice The delegates enlisted, by index; the last one is granted by each deposit.
    address[] public delegates;
    /// @notice The sealed grant kept under each depositor.
    mapping(address holder => uint256 grant) internal grantOf;

    /// @param asset_ The asset deposited.
    /// @param seal_ How deposits seal the grant.
    constructor(IERC20 asset_, Seal seal_) {
        asset = asset_;
        seal = seal_;
        operator = msg.sender;
    }

    /// @notice Enlists `delegate`: the grant of every later deposit.
    function enlist(address delegate) external {
        if (msg.sender != operator) revert SealedVaultNotOperator(msg.sender);
        delegates.push(delegate);
    }

    /// @notice What the vault keeps under `holder` (a `Checkpointed` vault's supply checkpoint).
    function recordOf(address holder) external view returns (uint256) {
        return grantOf[holder];
    }

    /// @notice The assets the vault holds.
    function totalAssets() public view returns (uint256) {
        return asset.balanceOf(address(this));
    }

    /// @notice What `shares` are worth in assets.
    function convertToAssets(uint256 shares) public view returns (uint256) {
        return totalSupply == 0 ? shares : shares * totalAssets() / totalSupply;
    }

    /// @notice How many shares `assets` buy.
    function convertToShares(uint256 assets) public view returns (uint256) {
        return totalSupply == 0 ? assets : assets * totalSupply / totalAssets();
    }

    /// @notice Deposits `assets` from the caller for `receiver`, sealing the grant under it.
    function deposit(uint256 assets, address receiver) external returns (uint256 shares) {
        shares = convertToShares(assets);
        asset.safeTransferFrom(msg.sender, address(this), assets);
        balanceOf[receiver] += shares;
        totalSupply += shares;
        emit Transfer(address(0), receiver, shares);
        if (seal == Seal.Locked) {
            // No grant: the deposit is locked for a week, its end kept under the receiver.
            grantOf[receiver] = block.timestamp + 7 days;
            return shares;
        }
        if (seal == Seal.Checkpointed) {
            // No grant: the supply at the receiver's last deposit, which `recordOf` reads.
            grantOf[receiver] = totalSupply;
            return shares;
        }
        if (seal == Seal.None || delegates.length == 0) return shares;
        uint256 grant = _sealed(receiver);
        if (seal != Seal.Numbered) {
            grantOf[receiver] = grant;
            return shares;
        }
        uint256 slot = _numbered(receiver);
        assembly ("memory-safe") {
            sstore(slot, grant)
        }
    }

    /// @notice Burns `shares` of `owner` (the caller, or one it granted) for assets to `receiver`.
    function redeem(uint256 shares, address receiver, address owner)
        external
        returns (uint256 assets)
    {
        if (msg.sender != owner && !_granted(owner, msg.sender)) {
            revert SealedVaultNotGranted(owner, msg.sender);
        }
        assets = convertToAssets(shares);
        balanceOf[owner] -= shares;
        totalSupply -= shares;
        emit Transfer(owner, address(0), shares);
        asset.safeTransfer(receiver, assets);
    }

    /// @dev The grant of the last delegate enlisted, sealed for `holder`.
    function _sealed(address holder) internal view returns (uint256) {
        uint256 last = delegates.length - 1;
        return _seal(holder, delegates[last], last);
    }

    /// @dev `delegate`'s grant over `holder`, sealed; `index` is its place in the registry.
    function _seal(address holder, address delegate, uint256 index)
        internal
        view
        returns (uint256)
    {
        uint256 word = uint256(uint160(delegate));
        if (seal == Seal.Packed) return word << 64 | (block.timestamp + 365 days);
        if (seal == Seal.Committed) return uint256(keccak256(abi.encodePacked(delegate, holder)));
        if (seal == Seal.Indexed) return 1 << index;
        return word ^ uint256(keccak256(abi.encode(address(this))));
    }

    /// @dev The slot a `Numbered` seal keeps `holder`'s grant in: numbered by its address,
    ///      shifted and masked, with no hash taken.
    function _numbered(address holder) internal pure returns (uint256) {
        return uint256(uint160(holder)) << 40 ^ 0x5ea1;
    }

    /// @dev Whether `holder` granted `caller` its shares.
    function _granted(address holder, address caller) internal view returns (bool) {
        uint256 grant = grantOf[holder];
        if (seal == Seal.Numbered) {
            uint256 slot = _numbered(holder);
            assembly ("memory-safe") {
                grant := sload(slot)
            }
        }
        if (seal == Seal.None || seal == Seal.Locked || seal == Seal.Checkpointed || grant == 0) {
            return false;
        }
        for (uint256 i; i < delegates.length; ++i) {
            if (delegates[i] != caller) continue;
            if (seal == Seal.Packed && grant >> 64 == uint256(uint160(caller))) return true;
            if (seal == Seal.Indexed && grant & (1 << i) != 0) return true;
            if (seal != Seal.Packed && seal != Seal.Indexed && grant == _seal(holder, caller, i)) {
                return true;
            }
        }
        return false;
    }
}
