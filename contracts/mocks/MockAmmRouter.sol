// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {MockAmmPair} from "./MockAmmPair.sol";

/// @title MockAmmRouter
/// @notice Router and pair registry for `MockAmmPair`, with Uniswap V2 Router02 signatures for
///         `addLiquidity`, `swapExactTokensForTokens`, `getAmountsOut`, `getAmountOut` and `quote`.
///         Only two-token paths are supported; longer or shorter paths revert.
/// @dev Swaps pull `amountIn` from `msg.sender` with `transferFrom` (an approval to the router is
///      needed) straight into the pair, and the pair sends the output to `to`. Pricing is exactly
///      Uniswap V2's `getAmountOut` (997/1000, written here as 9970/10000). Fee-on-transfer input
///      tokens make the pair's k check fail, as with Router02's non-"SupportingFee" functions.
contract MockAmmRouter {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The swap output is below the caller's minimum.
    error MockAmmRouterInsufficientOutput(uint256 amountOut, uint256 amountOutMin);
    /// @notice The deadline has passed.
    error MockAmmRouterExpired(uint256 deadline, uint256 timestamp);
    /// @notice The path does not have exactly two tokens.
    error MockAmmRouterUnsupportedPath(uint256 length);
    /// @notice No pair is registered for the two tokens.
    error MockAmmRouterPairNotFound(address tokenA, address tokenB);
    /// @notice A pair already exists for the two tokens.
    error MockAmmRouterPairExists(address pair);
    /// @notice The input amount is zero.
    error MockAmmRouterInsufficientInput();
    /// @notice A reserve is zero.
    error MockAmmRouterInsufficientLiquidity();
    /// @notice `addLiquidity` would deposit less of `token` than the caller's minimum.
    error MockAmmRouterInsufficientAmount(address token, uint256 amount, uint256 amountMin);

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice A pair was created and registered.
    /// @param token0 The lower-addressed token.
    /// @param token1 The higher-addressed token.
    /// @param pair The new pair.
    event PairCreated(address indexed token0, address indexed token1, address pair);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice The pair for two tokens, in either order; zero if none.
    mapping(address tokenA => mapping(address tokenB => address pair)) public getPair;

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Deploys and registers a `MockAmmPair` for two tokens.
    /// @param tokenA One token.
    /// @param tokenB The other token.
    /// @return pair The new pair.
    function createPair(address tokenA, address tokenB) public returns (address pair) {
        address existing = getPair[tokenA][tokenB];
        if (existing != address(0)) revert MockAmmRouterPairExists(existing);
        pair = address(new MockAmmPair(tokenA, tokenB));
        getPair[tokenA][tokenB] = pair;
        getPair[tokenB][tokenA] = pair;
        emit PairCreated(MockAmmPair(pair).token0(), MockAmmPair(pair).token1(), pair);
    }

    /// @notice Adds liquidity at the current ratio (or sets it, for an empty pool), creating the
    ///         pair if needed. Pulls both tokens from `msg.sender`.
    /// @param tokenA One token.
    /// @param tokenB The other token.
    /// @param amountADesired Most of `tokenA` to deposit.
    /// @param amountBDesired Most of `tokenB` to deposit.
    /// @param amountAMin Least of `tokenA` to deposit.
    /// @param amountBMin Least of `tokenB` to deposit.
    /// @param to Recipient of the LP shares.
    /// @param deadline Latest timestamp at which this may execute.
    /// @return amountA `tokenA` deposited.
    /// @return amountB `tokenB` deposited.
    /// @return liquidity LP shares minted.
    function addLiquidity(
        address tokenA,
        address tokenB,
        uint256 amountADesired,
        uint256 amountBDesired,
        uint256 amountAMin,
        uint256 amountBMin,
        address to,
        uint256 deadline
    ) external returns (uint256 amountA, uint256 amountB, uint256 liquidity) {
        _checkDeadline(deadline);
        address pair = getPair[tokenA][tokenB];
        if (pair == address(0)) pair = createPair(tokenA, tokenB);
        (amountA, amountB) =
            _liquidityAmounts(pair, tokenA, amountADesired, amountBDesired, amountAMin, amountBMin);
        IERC20(tokenA).safeTransferFrom(msg.sender, pair, amountA);
        IERC20(tokenB).safeTransferFrom(msg.sender, pair, amountB);
        liquidity = MockAmmPair(pair).mint(to);
    }

    /// @notice Swaps exactly `amountIn` of `path[0]` for at least `amountOutMin` of `path[1]`.
    /// @dev Pulls `amountIn` from `msg.sender` into the pair with `transferFrom`; the pair sends
    ///      the output to `to`.
    /// @param amountIn Input amount.
    /// @param amountOutMin Least acceptable output; below it the swap reverts.
    /// @param path `[tokenIn, tokenOut]`; any other length reverts.
    /// @param to Recipient of the output.
    /// @param deadline Latest timestamp at which this may execute.
    /// @return amounts `[amountIn, amountOut]`.
    function swapExactTokensForTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external returns (uint256[] memory amounts) {
        _checkDeadline(deadline);
        amounts = getAmountsOut(amountIn, path);
        uint256 amountOut = amounts[1];
        if (amountOut < amountOutMin) {
            revert MockAmmRouterInsufficientOutput(amountOut, amountOutMin);
        }
        address pair = getPair[path[0]][path[1]];
        IERC20(path[0]).safeTransferFrom(msg.sender, pair, amountIn);
        (uint256 amount0Out, uint256 amount1Out) =
            path[0] == MockAmmPair(pair).token0() ? (uint256(0), amountOut) : (amountOut, 0);
        MockAmmPair(pair).swap(amount0Out, amount1Out, to, "");
    }

    /// @notice Output amounts along a two-token path at the current reserves.
    /// @param amountIn Input amount.
    /// @param path `[tokenIn, tokenOut]`; any other length reverts.
    /// @return amounts `[amountIn, amountOut]`.
    function getAmountsOut(uint256 amountIn, address[] calldata path)
        public
        view
        returns (uint256[] memory amounts)
    {
        if (path.length != 2) revert MockAmmRouterUnsupportedPath(path.length);
        address pair = getPair[path[0]][path[1]];
        if (pair == address(0)) revert MockAmmRouterPairNotFound(path[0], path[1]);
        (uint256 reserveIn, uint256 reserveOut) = _reserves(pair, path[0]);
        amounts = new uint256[](2);
        amounts[0] = amountIn;
        amounts[1] = getAmountOut(amountIn, reserveIn, reserveOut);
    }

    /// @notice Constant-product output with a 30 bps input fee:
    ///         `reserveOut * amountIn * 9970 / (reserveIn * 10000 + amountIn * 9970)`.
    /// @param amountIn Input amount.
    /// @param reserveIn Reserve of the input token.
    /// @param reserveOut Reserve of the output token.
    /// @return amountOut Output amount, rounded down.
    function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut)
        public
        pure
        returns (uint256 amountOut)
    {
        if (amountIn == 0) revert MockAmmRouterInsufficientInput();
        if (reserveIn == 0 || reserveOut == 0) revert MockAmmRouterInsufficientLiquidity();
        uint256 amountInWithFee = amountIn * 9970;
        amountOut = reserveOut * amountInWithFee / (reserveIn * 10_000 + amountInWithFee);
    }

    /// @notice The amount of B worth `amountA` at the reserve ratio (no fee).
    /// @param amountA Amount of A.
    /// @param reserveA Reserve of A.
    /// @param reserveB Reserve of B.
    /// @return amountB `amountA * reserveB / reserveA`, rounded down.
    function quote(uint256 amountA, uint256 reserveA, uint256 reserveB)
        public
        pure
        returns (uint256 amountB)
    {
        if (amountA == 0) revert MockAmmRouterInsufficientInput();
        if (reserveA == 0 || reserveB == 0) revert MockAmmRouterInsufficientLiquidity();
        amountB = amountA * reserveB / reserveA;
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev Reverts once `deadline` has passed.
    function _checkDeadline(uint256 deadline) private view {
        // forge-lint: disable-next-line(block-timestamp)
        if (block.timestamp > deadline) revert MockAmmRouterExpired(deadline, block.timestamp);
    }

    /// @dev Uniswap V2's `_addLiquidity`: the desired amounts for an empty pool, otherwise the
    ///      largest amounts at the reserve ratio within the desired ones, checked against the
    ///      minimums.
    function _liquidityAmounts(
        address pair,
        address tokenA,
        uint256 amountADesired,
        uint256 amountBDesired,
        uint256 amountAMin,
        uint256 amountBMin
    ) private view returns (uint256 amountA, uint256 amountB) {
        (uint256 reserveA, uint256 reserveB) = _reserves(pair, tokenA);
        if (reserveA == 0 && reserveB == 0) {
            (amountA, amountB) = (amountADesired, amountBDesired);
        } else {
            uint256 amountBOptimal = quote(amountADesired, reserveA, reserveB);
            if (amountBOptimal <= amountBDesired) {
                if (amountBOptimal < amountBMin) {
                    revert MockAmmRouterInsufficientAmount(
                        _other(pair, tokenA), amountBOptimal, amountBMin
                    );
                }
                (amountA, amountB) = (amountADesired, amountBOptimal);
            } else {
                uint256 amountAOptimal = quote(amountBDesired, reserveB, reserveA);
                if (amountAOptimal < amountAMin) {
                    revert MockAmmRouterInsufficientAmount(tokenA, amountAOptimal, amountAMin);
                }
                (amountA, amountB) = (amountAOptimal, amountBDesired);
            }
        }
    }

    /// @dev The pair's token that is not `token`.
    function _other(address pair, address token) private view returns (address) {
        address t0 = MockAmmPair(pair).token0();
        return token == t0 ? MockAmmPair(pair).token1() : t0;
    }

    /// @dev The pair's reserves ordered as (reserve of `tokenIn`, reserve of the other token).
    function _reserves(address pair, address tokenIn)
        private
        view
        returns (uint256 reserveIn, uint256 reserveOut)
    {
        (uint112 reserve0, uint112 reserve1,) = MockAmmPair(pair).getReserves();
        (reserveIn, reserveOut) = tokenIn == MockAmmPair(pair).token0()
            ? (uint256(reserve0), uint256(reserve1))
            : (uint256(reserve1), uint256(reserve0));
    }
}
