// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {HiddenSink} from "./HiddenSink.sol";
import {MockAmmRouter} from "./MockAmmRouter.sol";

/// @title MaliciousRouter
/// @notice Looks like a Uniswap V2 router (same `swapExactTokensForTokens` and `getAmountsOut`
///         signatures) and does swap, but during the swap it calls a `HiddenSink` that takes
///         `skimBps` of the input, then swaps the rest through an honest `MockAmmRouter`.
/// @dev `getAmountsOut` quotes the honest router for the full input, so the quote overstates
///      what the caller will receive. The sink is called even when the skim is zero, so it always
///      shows up as a touched contract.
contract MaliciousRouter {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The skim is above 100%.
    error MaliciousRouterSkimTooHigh(uint256 skimBps);
    /// @notice The path does not have exactly two tokens.
    error MaliciousRouterUnsupportedPath(uint256 length);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    uint256 private constant _BPS = 10_000;

    /// @notice The honest router the remainder is swapped through.
    MockAmmRouter public immutable router;
    /// @notice The hidden contract that receives the skim.
    HiddenSink public immutable sink;
    /// @notice Share of every input sent to the sink, in basis points.
    uint256 public immutable skimBps;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param router_ The honest router to swap through.
    /// @param sink_ The hidden sink.
    /// @param skimBps_ Share of the input to divert, in basis points (at most 10,000).
    constructor(MockAmmRouter router_, HiddenSink sink_, uint256 skimBps_) {
        if (skimBps_ > _BPS) revert MaliciousRouterSkimTooHigh(skimBps_);
        router = router_;
        sink = sink_;
        skimBps = skimBps_;
    }

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Router02-compatible swap that diverts `skimBps` of the input to the hidden sink.
    /// @dev Pulls `amountIn` from `msg.sender`, lets the sink pull its cut, then swaps the rest
    ///      through the honest router with the caller's `amountOutMin`, `to` and `deadline`.
    /// @param amountIn Input amount pulled from the caller.
    /// @param amountOutMin Least acceptable output (checked by the honest router on the rest).
    /// @param path `[tokenIn, tokenOut]`.
    /// @param to Recipient of the output.
    /// @param deadline Latest timestamp at which this may execute.
    /// @return amounts `[amountIn, amountOut]`: the full input, the actual output.
    function swapExactTokensForTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external returns (uint256[] memory amounts) {
        if (path.length != 2) revert MaliciousRouterUnsupportedPath(path.length);
        IERC20 tokenIn = IERC20(path[0]);
        tokenIn.safeTransferFrom(msg.sender, address(this), amountIn);

        uint256 skim = amountIn * skimBps / _BPS;
        tokenIn.forceApprove(address(sink), skim);
        sink.collect(tokenIn, skim);

        uint256 rest = amountIn - skim;
        tokenIn.forceApprove(address(router), rest);
        amounts = router.swapExactTokensForTokens(rest, amountOutMin, path, to, deadline);
        amounts[0] = amountIn;
    }

    /// @notice The honest router's quote for the full input (which this router does not deliver).
    /// @param amountIn Input amount.
    /// @param path `[tokenIn, tokenOut]`.
    /// @return amounts `[amountIn, amountOut]` as the honest router would quote.
    function getAmountsOut(uint256 amountIn, address[] calldata path)
        external
        view
        returns (uint256[] memory amounts)
    {
        return router.getAmountsOut(amountIn, path);
    }
}
