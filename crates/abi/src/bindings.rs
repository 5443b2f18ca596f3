//! `sol!` bindings of the standards and protocols the trusted path reads and decodes, and of
//! the project's own account.
//!
//! Declared by hand after the reference artifacts in `node_modules` (OpenZeppelin 5 interfaces,
//! OpenZeppelin 3 `ERC20` for `increaseAllowance`/`decreaseAllowance`, Uniswap V2 core and
//! periphery builds). `tests/it/bindings.rs` checks every function selector, return type,
//! event topic and indexed-argument count declared here against those artifacts, so a
//! signature that drifts fails a test instead of encoding or decoding the wrong call.
//! [`IPriceOracle`] and [`ILendingPosition`] have no artifact; they are checked against golden
//! selectors and the project's own mocks. [`PaceAccount`] and [`PaceDelegate`] are not
//! declared here: `sol!` reads them from `contracts/interfaces/IPaceAccount.sol`, the account's
//! whole external interface, and `contracts/interfaces/IPaceDelegate.sol`, what the delegate
//! adds to it; `tests/it/bindings.rs` checks the account against `contracts/PaceAccount.sol`,
//! and `pace-contracts` both against the ABIs the compiler produces.
//!
//! Each interface `X` gives `X::fooCall` (encode with `SolCall::abi_encode`, decode returns
//! with `SolCall::abi_decode_returns`), `X::XCalls`, `X::XEvents` (decode logs) and `X::XErrors`
//! where errors are declared, plus `X::constructorCall` where the deployed build's constructor
//! is declared (`abi_encode` it after the creation code). Mock and reference contracts live in
//! `pace-contracts`, not here; `pace-contracts` re-exports these bindings rather than declaring
//! them again.

use alloy_sol_types::sol;

sol! {
    /// ERC-20 with the metadata extension, plus the non-standard but widespread
    /// `increaseAllowance` / `decreaseAllowance` (OpenZeppelin 2-4).
    #[sol(all_derives)]
    interface IERC20 {
        event Transfer(address indexed from, address indexed to, uint256 value);
        event Approval(address indexed owner, address indexed spender, uint256 value);

        function name() external view returns (string memory);
        function symbol() external view returns (string memory);
        function decimals() external view returns (uint8);
        function totalSupply() external view returns (uint256);
        function balanceOf(address account) external view returns (uint256);
        function allowance(address owner, address spender) external view returns (uint256);
        function transfer(address to, uint256 value) external returns (bool);
        function approve(address spender, uint256 value) external returns (bool);
        function transferFrom(address from, address to, uint256 value) external returns (bool);
        function increaseAllowance(address spender, uint256 addedValue) external returns (bool);
        function decreaseAllowance(address spender, uint256 subtractedValue) external returns (bool);
    }
}

sol! {
    /// EIP-2612: approvals by signature.
    #[sol(all_derives)]
    interface IERC20Permit {
        function permit(
            address owner,
            address spender,
            uint256 value,
            uint256 deadline,
            uint8 v,
            bytes32 r,
            bytes32 s
        ) external;
        function nonces(address owner) external view returns (uint256);
        function DOMAIN_SEPARATOR() external view returns (bytes32);
    }
}

sol! {
    /// OpenZeppelin 5 ERC-20 custom errors (EIP-6093).
    #[sol(all_derives)]
    interface IERC20Errors {
        error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed);
        error ERC20InvalidSender(address sender);
        error ERC20InvalidReceiver(address receiver);
        error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
        error ERC20InvalidApprover(address approver);
        error ERC20InvalidSpender(address spender);
    }
}

sol! {
    /// OpenZeppelin 5 `SafeERC20` failures.
    #[sol(all_derives)]
    interface ISafeERC20 {
        error SafeERC20FailedOperation(address token);
        error SafeERC20FailedDecreaseAllowance(address spender, uint256 currentAllowance, uint256 requestedDecrease);
    }
}

sol! {
    /// Wrapped ether (WETH9): `deposit` wraps the call's value, `withdraw` unwraps to the caller.
    /// The ERC-20 part is [`IERC20`].
    #[sol(all_derives)]
    interface IWETH9 {
        event Deposit(address indexed dst, uint256 wad);
        event Withdrawal(address indexed src, uint256 wad);

        function deposit() external payable;
        function withdraw(uint256 wad) external;
    }
}

sol! {
    /// ERC-721 non-fungible tokens. `approve` and `transferFrom` share their selectors with
    /// ERC-20's (the last argument is a token id here), and so does the `Transfer` topic (all
    /// three arguments are indexed here).
    #[sol(all_derives)]
    interface IERC721 {
        event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
        event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
        event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

        function balanceOf(address owner) external view returns (uint256 balance);
        function ownerOf(uint256 tokenId) external view returns (address owner);
        function safeTransferFrom(address from, address to, uint256 tokenId, bytes calldata data) external;
        function safeTransferFrom(address from, address to, uint256 tokenId) external;
        function transferFrom(address from, address to, uint256 tokenId) external;
        function approve(address to, uint256 tokenId) external;
        function setApprovalForAll(address operator, bool approved) external;
        function getApproved(uint256 tokenId) external view returns (address operator);
        function isApprovedForAll(address owner, address operator) external view returns (bool);
    }
}

sol! {
    /// ERC-721's enumeration extension: the items an owner holds, by index.
    #[sol(all_derives)]
    interface IERC721Enumerable {
        function tokenOfOwnerByIndex(address owner, uint256 index) external view returns (uint256);
    }
}

sol! {
    /// ERC-1155 multi-tokens.
    #[sol(all_derives)]
    interface IERC1155 {
        event TransferSingle(
            address indexed operator,
            address indexed from,
            address indexed to,
            uint256 id,
            uint256 value
        );
        event TransferBatch(
            address indexed operator,
            address indexed from,
            address indexed to,
            uint256[] ids,
            uint256[] values
        );
        event ApprovalForAll(address indexed account, address indexed operator, bool approved);

        function balanceOf(address account, uint256 id) external view returns (uint256);
        function balanceOfBatch(address[] calldata accounts, uint256[] calldata ids)
            external view returns (uint256[] memory);
        function setApprovalForAll(address operator, bool approved) external;
        function isApprovedForAll(address account, address operator) external view returns (bool);
        function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data)
            external;
        function safeBatchTransferFrom(
            address from,
            address to,
            uint256[] calldata ids,
            uint256[] calldata values,
            bytes calldata data
        ) external;
    }
}

sol! {
    /// ERC-173's (and OpenZeppelin `Ownable`'s) owner view: who controls a contract.
    #[sol(all_derives)]
    interface IOwnable {
        function owner() external view returns (address);
    }
}

sol! {
    /// `contracts/helpers/PaceShareValue.sol`: what shares of a two-reserve pool are worth, as
    /// the geometric mean of its reserves per share (`pace_contracts::helpers::share_value`).
    #[sol(all_derives)]
    interface IPaceShareValue {
        function productShare(address pool, uint256 shares) external view returns (uint256 value);
        function vaultShare(address vault, uint256 shares) external view returns (uint256 value);
    }
}

sol! {
    /// ERC-4626 tokenized vaults (the share token's ERC-20 part is [`IERC20`]).
    #[sol(all_derives)]
    interface IERC4626 {
        event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);
        event Withdraw(
            address indexed sender,
            address indexed receiver,
            address indexed owner,
            uint256 assets,
            uint256 shares
        );

        function asset() external view returns (address assetTokenAddress);
        function totalAssets() external view returns (uint256 totalManagedAssets);
        function convertToShares(uint256 assets) external view returns (uint256 shares);
        function convertToAssets(uint256 shares) external view returns (uint256 assets);
        function maxDeposit(address receiver) external view returns (uint256 maxAssets);
        function previewDeposit(uint256 assets) external view returns (uint256 shares);
        function deposit(uint256 assets, address receiver) external returns (uint256 shares);
        function maxMint(address receiver) external view returns (uint256 maxShares);
        function previewMint(uint256 shares) external view returns (uint256 assets);
        function mint(uint256 shares, address receiver) external returns (uint256 assets);
        function maxWithdraw(address owner) external view returns (uint256 maxAssets);
        function previewWithdraw(uint256 assets) external view returns (uint256 shares);
        function withdraw(uint256 assets, address receiver, address owner) external returns (uint256 shares);
        function maxRedeem(address owner) external view returns (uint256 maxShares);
        function previewRedeem(uint256 shares) external view returns (uint256 assets);
        function redeem(uint256 shares, address receiver, address owner) external returns (uint256 assets);
    }
}

sol! {
    /// Uniswap V2 pair (`@uniswap/v2-core`); also an ERC-20 LP token with EIP-2612 permit
    /// ([`IERC20`], [`IERC20Permit`]).
    #[sol(all_derives)]
    interface IUniswapV2Pair {
        event Mint(address indexed sender, uint256 amount0, uint256 amount1);
        event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to);
        event Swap(
            address indexed sender,
            uint256 amount0In,
            uint256 amount1In,
            uint256 amount0Out,
            uint256 amount1Out,
            address indexed to
        );
        event Sync(uint112 reserve0, uint112 reserve1);

        function MINIMUM_LIQUIDITY() external pure returns (uint256);
        function factory() external view returns (address);
        function token0() external view returns (address);
        function token1() external view returns (address);
        function totalSupply() external view returns (uint256);
        function balanceOf(address owner) external view returns (uint256);
        function getReserves()
            external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
        function price0CumulativeLast() external view returns (uint256);
        function price1CumulativeLast() external view returns (uint256);
        function kLast() external view returns (uint256);
        function mint(address to) external returns (uint256 liquidity);
        function burn(address to) external returns (uint256 amount0, uint256 amount1);
        function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
        function skim(address to) external;
        function sync() external;
    }
}

sol! {
    /// Uniswap V2 factory (`@uniswap/v2-core`).
    #[sol(all_derives)]
    interface IUniswapV2Factory {
        constructor(address _feeToSetter);

        event PairCreated(address indexed token0, address indexed token1, address pair, uint256);

        function feeTo() external view returns (address);
        function feeToSetter() external view returns (address);
        function getPair(address tokenA, address tokenB) external view returns (address pair);
        function allPairs(uint256) external view returns (address pair);
        function allPairsLength() external view returns (uint256);
        function createPair(address tokenA, address tokenB) external returns (address pair);
    }
}

sol! {
    /// The complete Uniswap V2 Router02 ABI (`@uniswap/v2-periphery`), every function of the
    /// deployed router: swaps (including the three fee-on-transfer variants), liquidity in and
    /// out (including the ether and permit variants) and the quoting helpers.
    #[sol(all_derives)]
    interface IUniswapV2Router02 {
        constructor(address _factory, address _WETH);

        function factory() external pure returns (address);
        function WETH() external pure returns (address);

        function addLiquidity(
            address tokenA,
            address tokenB,
            uint256 amountADesired,
            uint256 amountBDesired,
            uint256 amountAMin,
            uint256 amountBMin,
            address to,
            uint256 deadline
        ) external returns (uint256 amountA, uint256 amountB, uint256 liquidity);
        function addLiquidityETH(
            address token,
            uint256 amountTokenDesired,
            uint256 amountTokenMin,
            uint256 amountETHMin,
            address to,
            uint256 deadline
        ) external payable returns (uint256 amountToken, uint256 amountETH, uint256 liquidity);
        function removeLiquidity(
            address tokenA,
            address tokenB,
            uint256 liquidity,
            uint256 amountAMin,
            uint256 amountBMin,
            address to,
            uint256 deadline
        ) external returns (uint256 amountA, uint256 amountB);
        function removeLiquidityETH(
            address token,
            uint256 liquidity,
            uint256 amountTokenMin,
            uint256 amountETHMin,
            address to,
            uint256 deadline
        ) external returns (uint256 amountToken, uint256 amountETH);
        function removeLiquidityWithPermit(
            address tokenA,
            address tokenB,
            uint256 liquidity,
            uint256 amountAMin,
            uint256 amountBMin,
            address to,
            uint256 deadline,
            bool approveMax,
            uint8 v,
            bytes32 r,
            bytes32 s
        ) external returns (uint256 amountA, uint256 amountB);
        function removeLiquidityETHWithPermit(
            address token,
            uint256 liquidity,
            uint256 amountTokenMin,
            uint256 amountETHMin,
            address to,
            uint256 deadline,
            bool approveMax,
            uint8 v,
            bytes32 r,
            bytes32 s
        ) external returns (uint256 amountToken, uint256 amountETH);
        function removeLiquidityETHSupportingFeeOnTransferTokens(
            address token,
            uint256 liquidity,
            uint256 amountTokenMin,
            uint256 amountETHMin,
            address to,
            uint256 deadline
        ) external returns (uint256 amountETH);
        function removeLiquidityETHWithPermitSupportingFeeOnTransferTokens(
            address token,
            uint256 liquidity,
            uint256 amountTokenMin,
            uint256 amountETHMin,
            address to,
            uint256 deadline,
            bool approveMax,
            uint8 v,
            bytes32 r,
            bytes32 s
        ) external returns (uint256 amountETH);

        function swapExactTokensForTokens(
            uint256 amountIn,
            uint256 amountOutMin,
            address[] calldata path,
            address to,
            uint256 deadline
        ) external returns (uint256[] memory amounts);
        function swapTokensForExactTokens(
            uint256 amountOut,
            uint256 amountInMax,
            address[] calldata path,
            address to,
            uint256 deadline
        ) external returns (uint256[] memory amounts);
        function swapExactETHForTokens(uint256 amountOutMin, address[] calldata path, address to, uint256 deadline)
            external payable returns (uint256[] memory amounts);
        function swapTokensForExactETH(
            uint256 amountOut,
            uint256 amountInMax,
            address[] calldata path,
            address to,
            uint256 deadline
        ) external returns (uint256[] memory amounts);
        function swapExactTokensForETH(
            uint256 amountIn,
            uint256 amountOutMin,
            address[] calldata path,
            address to,
            uint256 deadline
        ) external returns (uint256[] memory amounts);
        function swapETHForExactTokens(uint256 amountOut, address[] calldata path, address to, uint256 deadline)
            external payable returns (uint256[] memory amounts);
        function swapExactTokensForTokensSupportingFeeOnTransferTokens(
            uint256 amountIn,
            uint256 amountOutMin,
            address[] calldata path,
            address to,
            uint256 deadline
        ) external;
        function swapExactETHForTokensSupportingFeeOnTransferTokens(
            uint256 amountOutMin,
            address[] calldata path,
            address to,
            uint256 deadline
        ) external payable;
        function swapExactTokensForETHSupportingFeeOnTransferTokens(
            uint256 amountIn,
            uint256 amountOutMin,
            address[] calldata path,
            address to,
            uint256 deadline
        ) external;

        function quote(uint256 amountA, uint256 reserveA, uint256 reserveB)
            external pure returns (uint256 amountB);
        function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut)
            external pure returns (uint256 amountOut);
        function getAmountIn(uint256 amountOut, uint256 reserveIn, uint256 reserveOut)
            external pure returns (uint256 amountIn);
        function getAmountsOut(uint256 amountIn, address[] calldata path)
            external view returns (uint256[] memory amounts);
        function getAmountsIn(uint256 amountOut, address[] calldata path)
            external view returns (uint256[] memory amounts);
    }
}

sol! {
    /// Uniswap V3 SwapRouter (`@uniswap/v3-periphery`): its four swaps, its `multicall` and the
    /// payments that follow a swap in one (`PeripheryPayments`). A `path` is the
    /// packed route `token (20 bytes) ‖ fee (3 bytes) ‖ token ‖ ...`, input first for the
    /// exact-input swaps and output first for the exact-output ones.
    #[sol(all_derives)]
    interface IV3SwapRouter {
        struct ExactInputSingleParams {
            address tokenIn;
            address tokenOut;
            uint24 fee;
            address recipient;
            uint256 deadline;
            uint256 amountIn;
            uint256 amountOutMinimum;
            uint160 sqrtPriceLimitX96;
        }
        struct ExactInputParams {
            bytes path;
            address recipient;
            uint256 deadline;
            uint256 amountIn;
            uint256 amountOutMinimum;
        }
        struct ExactOutputSingleParams {
            address tokenIn;
            address tokenOut;
            uint24 fee;
            address recipient;
            uint256 deadline;
            uint256 amountOut;
            uint256 amountInMaximum;
            uint160 sqrtPriceLimitX96;
        }
        struct ExactOutputParams {
            bytes path;
            address recipient;
            uint256 deadline;
            uint256 amountOut;
            uint256 amountInMaximum;
        }
        function exactInputSingle(ExactInputSingleParams calldata params)
            external payable returns (uint256 amountOut);
        function exactInput(ExactInputParams calldata params)
            external payable returns (uint256 amountOut);
        function exactOutputSingle(ExactOutputSingleParams calldata params)
            external payable returns (uint256 amountIn);
        function exactOutput(ExactOutputParams calldata params)
            external payable returns (uint256 amountIn);
        /// Its own calls in order, each a DELEGATECALL to itself (`Multicall`).
        function multicall(bytes[] calldata data) external payable returns (bytes[] memory results);
        /// Pays `recipient` all of `token` the router holds, at least `amountMinimum`.
        function sweepToken(address token, uint256 amountMinimum, address recipient) external payable;
        /// Unwraps all the WETH9 the router holds to `recipient`, at least `amountMinimum`.
        function unwrapWETH9(uint256 amountMinimum, address recipient) external payable;
        /// Pays the caller the ether the router holds.
        function refundETH() external payable;
    }
}

sol! {
    /// SwapRouter02's swaps and payments (`@uniswap/swap-router-contracts` 1.3.1).
    #[sol(all_derives)]
    interface ISwapRouter02 {
        struct ExactInputSingleParams {
            address tokenIn;
            address tokenOut;
            uint24 fee;
            address recipient;
            uint256 amountIn;
            uint256 amountOutMinimum;
            uint160 sqrtPriceLimitX96;
        }
        struct ExactInputParams {
            bytes path;
            address recipient;
            uint256 amountIn;
            uint256 amountOutMinimum;
        }
        struct ExactOutputSingleParams {
            address tokenIn;
            address tokenOut;
            uint24 fee;
            address recipient;
            uint256 amountOut;
            uint256 amountInMaximum;
            uint160 sqrtPriceLimitX96;
        }
        struct ExactOutputParams {
            bytes path;
            address recipient;
            uint256 amountOut;
            uint256 amountInMaximum;
        }
        function exactInputSingle(ExactInputSingleParams calldata params)
            external payable returns (uint256 amountOut);
        function exactInput(ExactInputParams calldata params)
            external payable returns (uint256 amountOut);
        function exactOutputSingle(ExactOutputSingleParams calldata params)
            external payable returns (uint256 amountIn);
        function exactOutput(ExactOutputParams calldata params)
            external payable returns (uint256 amountIn);
        /// V2: sells `amountIn` along `path`; the rise of `to`'s balance is the output.
        function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] calldata path, address to)
            external payable returns (uint256 amountOut);
        /// V2: buys `amountOut` along `path` for at most `amountInMax`.
        function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] calldata path, address to)
            external payable returns (uint256 amountIn);
        /// Its own calls in order, reverting after `deadline`.
        function multicall(uint256 deadline, bytes[] calldata data)
            external payable returns (bytes[] memory results);
        /// Its own calls in order, reverting unless `previousBlockhash` is the parent block's.
        function multicall(bytes32 previousBlockhash, bytes[] calldata data)
            external payable returns (bytes[] memory results);
        /// Its own calls in order.
        function multicall(bytes[] calldata data) external payable returns (bytes[] memory results);
        /// Pays the caller all of `token` the router holds, at least `amountMinimum`.
        function sweepToken(address token, uint256 amountMinimum) external payable;
        /// Pays `recipient` all of `token` the router holds, at least `amountMinimum`.
        function sweepToken(address token, uint256 amountMinimum, address recipient) external payable;
        /// Unwraps all the WETH9 the router holds to the caller, at least `amountMinimum`.
        function unwrapWETH9(uint256 amountMinimum) external payable;
        /// Unwraps all the WETH9 the router holds to `recipient`, at least `amountMinimum`.
        function unwrapWETH9(uint256 amountMinimum, address recipient) external payable;
        /// Pays the caller the ether the router holds.
        function refundETH() external payable;
        /// Moves `value` of `token` from the caller to the router (a later swap of
        /// `CONTRACT_BALANCE` sells it).
        function pull(address token, uint256 value) external payable;
    }
}

sol! {
    /// A price feed: the Chainlink `AggregatorV3Interface` reads (`latestRoundData`,
    /// `decimals`), the legacy `latestAnswer`, and a plain `price()` as simple oracles (and
    /// the project's `MockOracle`) expose it.
    #[sol(all_derives)]
    interface IPriceOracle {
        function latestRoundData()
            external view
            returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
        function latestAnswer() external view returns (int256);
        function decimals() external view returns (uint8);
        function price() external view returns (uint256);
    }
}

sol! {
    /// A generic lending-position view: one collateral token, one debt token, per-user
    /// balances and a WAD health factor (below 1e18 means liquidatable; `type(uint256).max`
    /// without debt), as the project's `MockLendingPool` exposes them.
    #[sol(all_derives)]
    interface ILendingPosition {
        function healthFactor(address user) external view returns (uint256);
        function collateralToken() external view returns (address);
        function debtToken() external view returns (address);
        function collateralOf(address user) external view returns (uint256);
        function debtOf(address user) external view returns (uint256);
    }
}

/// The PACE smart account's interface, read from `contracts/interfaces/IPaceAccount.sol`, the
/// file `PaceAccount.sol` implements: its types, errors, events and every external function.
/// Re-exported as [`PaceAccount`].
mod account {
    // The file's NatSpec becomes these items' Rust docs, so rustdoc reads it as Markdown: a
    // paragraph indented four spaces or more after a blank `///` line is a code block, which
    // `cargo test` compiles as a doctest (and fails). Continue such paragraphs without the
    // blank line.
    alloy_sol_types::sol!(
        #[sol(all_derives)]
        "../../contracts/interfaces/IPaceAccount.sol"
    );

    alloy_sol_types::sol! {
        /// The constructor of `contracts/PaceAccount.sol` (an interface declares none).
        #[sol(all_derives)]
        contract PaceAccountConstructor {
            constructor(address owner_, address verifier_) payable;
        }
    }
}

/// The PACE smart account (`contracts/PaceAccount.sol`): executes a call or an atomic batch
/// under a verifier-signed PDR, and gives the owner a raw path and the administration.
///
/// Generated by `sol!` from `contracts/interfaces/IPaceAccount.sol`, the account's whole
/// external interface, plus the constructor, which an interface cannot declare. The call,
/// error and event enums keep the contract's name: `PaceAccountCalls`, `PaceAccountErrors`,
/// `PaceAccountEvents`.
#[allow(non_snake_case)]
pub mod PaceAccount {
    pub use super::account::IPaceAccount::{
        IPaceAccountCalls as PaceAccountCalls, IPaceAccountErrors as PaceAccountErrors,
        IPaceAccountEvents as PaceAccountEvents, *,
    };
    pub use super::account::PaceAccountConstructor::constructorCall;
}

sol! {
    /// The part of a Safe 1.4.1 (`@safe-global/safe-contracts`, `Safe` and `SafeL2`) the
    /// tooling, the embedded world's optional Safe, the pipeline's module lookup and the test
    /// bed call: set-up, owner-signed transactions, module administration and the reads of its
    /// owners and modules. `contracts/interfaces/ISafe.sol` is what the module itself calls.
    #[sol(all_derives)]
    interface ISafe {
        function setup(
            address[] calldata owners,
            uint256 threshold,
            address to,
            bytes calldata data,
            address fallbackHandler,
            address paymentToken,
            uint256 payment,
            address paymentReceiver
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
            address refundReceiver,
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
        function isModuleEnabled(address module) external view returns (bool);
        function getModulesPaginated(address start, uint256 pageSize)
            external
            view
            returns (address[] memory array, address next);
        function getOwners() external view returns (address[] memory);
        function getThreshold() external view returns (uint256);
        function isOwner(address owner) external view returns (bool);
    }
}

sol! {
    /// `SafeProxyFactory` 1.4.1: a Safe proxy of `singleton`, set up by `initializer`, at a
    /// CREATE2 address of both and `saltNonce`.
    #[sol(all_derives)]
    interface ISafeProxyFactory {
        function createProxyWithNonce(address singleton, bytes memory initializer, uint256 saltNonce)
            external
            returns (address proxy);
    }
}

sol! {
    /// `PaceModule`'s constructor and the views of its own (`contracts/PaceModule.sol`; the rest
    /// of its ABI is [`PaceAccount`]'s).
    #[sol(all_derives)]
    contract PaceModule {
        constructor(address safe_, address verifier_);
        function safe() external view returns (address);
        function configHash() external view returns (bytes32);
    }
}

/// `PaceDelegate`'s own interface, read from `contracts/interfaces/IPaceDelegate.sol`.
mod delegate {
    alloy_sol_types::sol!(
        #[sol(all_derives)]
        "../../contracts/interfaces/IPaceDelegate.sol"
    );
}

/// The PACE account as an EIP-7702 delegate (`contracts/PaceDelegate.sol`): what it adds to
/// [`PaceAccount`], whose functions, errors and events it shares (the set-up and its digest,
/// the domain salt, the layout version, the used set-up nonces, and their types and errors).
///
/// Generated by `sol!` from `contracts/interfaces/IPaceDelegate.sol`; the enums keep the
/// contract's name: `PaceDelegateCalls`, `PaceDelegateErrors`, `PaceDelegateEvents`.
#[allow(non_snake_case)]
pub mod PaceDelegate {
    pub use super::delegate::IPaceDelegate::{
        IPaceDelegateCalls as PaceDelegateCalls, IPaceDelegateErrors as PaceDelegateErrors,
        IPaceDelegateEvents as PaceDelegateEvents, *,
    };
}
