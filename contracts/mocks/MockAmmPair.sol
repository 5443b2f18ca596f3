// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";

/// @title MockAmmPair
/// @notice Constant-product pool (x * y = k) with a 30 bps fee on the input, shaped like a
///         Uniswap V2 pair: `token0 < token1`, `getReserves()`, `mint(to)` after a transfer-in,
///         and an optimistic `swap(amount0Out, amount1Out, to, data)` followed by a k check.
///         The pool is its own LP token.
/// @dev `Mint`, `Swap` and `Sync` keep Uniswap V2's exact names and signatures (not past tense)
///      so logs decode with the same topics as a real V2 pair. Flash swaps (non-empty `data`) are
///      not supported. No minimum liquidity is locked and there is no protocol fee or `burn`.
contract MockAmmPair is ERC20, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice Both tokens are the same address.
    error MockAmmPairIdenticalTokens(address token);
    /// @notice A token address is zero.
    error MockAmmPairZeroAddress();
    /// @notice `mint` would create no liquidity (nothing deposited on one side).
    error MockAmmPairInsufficientLiquidityMinted();
    /// @notice `swap` asked for no output.
    error MockAmmPairInsufficientOutput();
    /// @notice `swap` asked for at least a whole reserve.
    error MockAmmPairInsufficientLiquidity(uint256 amount0Out, uint256 amount1Out);
    /// @notice `swap` recipient is one of the pool's tokens.
    error MockAmmPairInvalidTo(address to);
    /// @notice `swap` received no input.
    error MockAmmPairInsufficientInput();
    /// @notice Balances after the swap, net of the fee, fall below the previous k.
    error MockAmmPairInvariantViolated();
    /// @notice `swap` was called with callback data: flash swaps are not supported.
    error MockAmmPairFlashSwapUnsupported();

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Liquidity was added (Uniswap V2 `Mint`).
    /// @param sender The caller of `mint`.
    /// @param amount0 Token0 deposited.
    /// @param amount1 Token1 deposited.
    event Mint(address indexed sender, uint256 amount0, uint256 amount1);

    /// @notice A swap happened (Uniswap V2 `Swap`).
    /// @param sender The caller of `swap` (usually a router).
    /// @param amount0In Token0 received by the pool.
    /// @param amount1In Token1 received by the pool.
    /// @param amount0Out Token0 sent to `to`.
    /// @param amount1Out Token1 sent to `to`.
    /// @param to The recipient of the output.
    event Swap(
        address indexed sender,
        uint256 amount0In,
        uint256 amount1In,
        uint256 amount0Out,
        uint256 amount1Out,
        address indexed to
    );

    /// @notice Reserves were updated to the pool's balances (Uniswap V2 `Sync`).
    /// @param reserve0 New token0 reserve.
    /// @param reserve1 New token1 reserve.
    event Sync(uint112 reserve0, uint112 reserve1);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice Swap fee on the input amount, in basis points.
    uint256 public constant FEE_BPS = 30;

    uint256 private constant _BPS = 10_000;

    /// @notice The lower-addressed token of the pair.
    address public immutable token0;
    /// @notice The higher-addressed token of the pair.
    address public immutable token1;

    uint112 private _reserve0;
    uint112 private _reserve1;
    uint32 private _blockTimestampLast;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param tokenA One token of the pair (order does not matter).
    /// @param tokenB The other token.
    constructor(address tokenA, address tokenB) ERC20("Mock AMM LP", "MAMM-LP") {
        if (tokenA == tokenB) revert MockAmmPairIdenticalTokens(tokenA);
        (address t0, address t1) = tokenA < tokenB ? (tokenA, tokenB) : (tokenB, tokenA);
        if (t0 == address(0)) revert MockAmmPairZeroAddress();
        (token0, token1) = (t0, t1);
    }

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice The reserves the pricing uses, and when they were last updated.
    /// @return reserve0 Token0 reserve.
    /// @return reserve1 Token1 reserve.
    /// @return blockTimestampLast Timestamp (mod 2**32) of the last update.
    function getReserves()
        external
        view
        returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)
    {
        return (_reserve0, _reserve1, _blockTimestampLast);
    }

    /// @notice Mints LP shares to `to` for the tokens transferred in since the last update.
    /// @dev Transfer both tokens to the pool first (the router does this). The first deposit
    ///      mints `sqrt(amount0 * amount1)` shares; later ones mint pro rata to the smaller side.
    /// @param to Recipient of the LP shares.
    /// @return liquidity LP shares minted.
    function mint(address to) external nonReentrant returns (uint256 liquidity) {
        (uint112 r0, uint112 r1) = (_reserve0, _reserve1);
        uint256 balance0 = IERC20(token0).balanceOf(address(this));
        uint256 balance1 = IERC20(token1).balanceOf(address(this));
        uint256 amount0 = balance0 - r0;
        uint256 amount1 = balance1 - r1;

        uint256 supply = totalSupply();
        if (supply == 0) {
            liquidity = Math.sqrt(amount0 * amount1);
        } else {
            liquidity = Math.min(amount0 * supply / r0, amount1 * supply / r1);
        }
        if (liquidity == 0) revert MockAmmPairInsufficientLiquidityMinted();
        _mint(to, liquidity);

        _sync(balance0, balance1);
        emit Mint(msg.sender, amount0, amount1);
    }

    /// @notice Sends the requested output to `to`, then requires that the input already
    ///         transferred in keeps `(balance0 - fee0) * (balance1 - fee1) >= reserve0 * reserve1`,
    ///         where each fee is 30 bps of that side's input.
    /// @param amount0Out Token0 to send out.
    /// @param amount1Out Token1 to send out.
    /// @param to Recipient of the output.
    /// @param data Must be empty (flash swaps are not supported).
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data)
        external
        nonReentrant
    {
        if (data.length != 0) revert MockAmmPairFlashSwapUnsupported();
        if (amount0Out == 0 && amount1Out == 0) revert MockAmmPairInsufficientOutput();
        (uint112 r0, uint112 r1) = (_reserve0, _reserve1);
        if (amount0Out >= r0 || amount1Out >= r1) {
            revert MockAmmPairInsufficientLiquidity(amount0Out, amount1Out);
        }
        if (to == token0 || to == token1) revert MockAmmPairInvalidTo(to);

        if (amount0Out != 0) IERC20(token0).safeTransfer(to, amount0Out);
        if (amount1Out != 0) IERC20(token1).safeTransfer(to, amount1Out);
        (uint256 amount0In, uint256 amount1In) = _settle(r0, r1, amount0Out, amount1Out);
        emit Swap(msg.sender, amount0In, amount1In, amount0Out, amount1Out, to);
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev Derives the inputs of a swap from the balances after its outputs left, enforces the
    ///      fee-adjusted k, and stores the balances as the new reserves.
    function _settle(uint112 r0, uint112 r1, uint256 amount0Out, uint256 amount1Out)
        private
        returns (uint256 amount0In, uint256 amount1In)
    {
        uint256 balance0 = IERC20(token0).balanceOf(address(this));
        uint256 balance1 = IERC20(token1).balanceOf(address(this));
        amount0In = balance0 > r0 - amount0Out ? balance0 - (r0 - amount0Out) : 0;
        amount1In = balance1 > r1 - amount1Out ? balance1 - (r1 - amount1Out) : 0;
        if (amount0In == 0 && amount1In == 0) revert MockAmmPairInsufficientInput();

        uint256 adjusted0 = balance0 * _BPS - amount0In * FEE_BPS;
        uint256 adjusted1 = balance1 * _BPS - amount1In * FEE_BPS;
        if (adjusted0 * adjusted1 < uint256(r0) * r1 * _BPS * _BPS) {
            revert MockAmmPairInvariantViolated();
        }
        _sync(balance0, balance1);
    }

    /// @dev Stores the balances as the new reserves and emits `Sync`; reverts with OpenZeppelin's
    ///      `SafeCastOverflowedUintDowncast` if a balance exceeds uint112.
    function _sync(uint256 balance0, uint256 balance1) private {
        (uint112 r0, uint112 r1) = (SafeCast.toUint112(balance0), SafeCast.toUint112(balance1));
        (_reserve0, _reserve1) = (r0, r1);
        _blockTimestampLast = uint32(block.timestamp);
        emit Sync(r0, r1);
    }
}
