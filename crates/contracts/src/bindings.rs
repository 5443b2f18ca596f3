//! `sol!` bindings: typed calls, return values, errors and events of the mock and reference
//! contracts in `contracts/`, and, re-exported from [`pace_abi::bindings`], the project's
//! `PaceAccount` and the standard interfaces (ERC-20 and its errors, WETH9, Uniswap V2, ...).
//!
//! One copy of each ABI: the bindings the trusted path uses (the account, the standards) are
//! declared once in `pace-abi`, which does not link the compiler; this module adds only the
//! contracts the trusted path must not know. The declarations mirror the Solidity sources by
//! hand. `tests/it/bindings.rs` checks every function selector, error selector and event topic
//! of both against the ABI the compiler produces (or the npm build), so a signature that drifts
//! fails a test instead of encoding the wrong call.
//!
//! Each interface `X` gives `X::fooCall` (encode with `SolCall::abi_encode`, decode returns with
//! `abi_decode_returns`), `X::XCalls`, `X::XErrors` (decode revert data with
//! `SolInterface::abi_decode`) and `X::XEvents`, plus `X::constructorCall` where a constructor is
//! declared (`abi_encode` it for [`crate::ContractArtifact::deploy_code`]).

/// The bindings of `pace-abi`: `PaceAccount`, `IERC20`, `IERC20Errors`, `ISafeERC20`, `IWETH9`,
/// `IUniswapV2Pair`, `IUniswapV2Factory`, `IUniswapV2Router02` and the other standards.
pub use pace_abi::bindings::*;

use alloy_sol_types::sol;

sol! {
    /// Mintable ERC-20 with configurable decimals (`contracts/mocks/MockERC20.sol`).
    #[sol(all_derives)]
    contract MockERC20 {
        constructor(string memory name_, string memory symbol_, uint8 decimals_);
        function mint(address to, uint256 amount) external;
    }
}

sol! {
    /// MockERC20 that burns `FEE_BPS` of every transfer (`contracts/mocks/FeeOnTransferERC20.sol`).
    #[sol(all_derives)]
    contract FeeOnTransferERC20 {
        event TransferFeeBurned(address indexed from, uint256 fee);
        constructor(string memory name_, string memory symbol_, uint8 decimals_);
        function FEE_BPS() external view returns (uint256);
        function mint(address to, uint256 amount) external;
    }
}

sol! {
    /// Constant-product pair with a 0.3% fee (`contracts/mocks/MockAmmPair.sol`); also an ERC-20
    /// LP token.
    #[sol(all_derives)]
    contract MockAmmPair {
        error MockAmmPairIdenticalTokens(address token);
        error MockAmmPairZeroAddress();
        error MockAmmPairInsufficientLiquidityMinted();
        error MockAmmPairInsufficientOutput();
        error MockAmmPairInsufficientLiquidity(uint256 amount0Out, uint256 amount1Out);
        error MockAmmPairInvalidTo(address to);
        error MockAmmPairInsufficientInput();
        error MockAmmPairInvariantViolated();
        error MockAmmPairFlashSwapUnsupported();

        event Mint(address indexed sender, uint256 amount0, uint256 amount1);
        event Swap(
            address indexed sender,
            uint256 amount0In,
            uint256 amount1In,
            uint256 amount0Out,
            uint256 amount1Out,
            address indexed to
        );
        event Sync(uint112 reserve0, uint112 reserve1);

        constructor(address tokenA, address tokenB);

        function FEE_BPS() external view returns (uint256);
        function token0() external view returns (address);
        function token1() external view returns (address);
        function getReserves()
            external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
        function mint(address to) external returns (uint256 liquidity);
        function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
    }
}

sol! {
    /// Router02-shaped router over `MockAmmPair`s (`contracts/mocks/MockAmmRouter.sol`).
    #[sol(all_derives)]
    contract MockAmmRouter {
        error MockAmmRouterInsufficientOutput(uint256 amountOut, uint256 amountOutMin);
        error MockAmmRouterExpired(uint256 deadline, uint256 timestamp);
        error MockAmmRouterUnsupportedPath(uint256 length);
        error MockAmmRouterPairNotFound(address tokenA, address tokenB);
        error MockAmmRouterPairExists(address pair);
        error MockAmmRouterInsufficientInput();
        error MockAmmRouterInsufficientLiquidity();
        error MockAmmRouterInsufficientAmount(address token, uint256 amount, uint256 amountMin);

        event PairCreated(address indexed token0, address indexed token1, address pair);

        function getPair(address tokenA, address tokenB) external view returns (address);
        function createPair(address tokenA, address tokenB) external returns (address pair);
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
        function swapExactTokensForTokens(
            uint256 amountIn,
            uint256 amountOutMin,
            address[] calldata path,
            address to,
            uint256 deadline
        ) external returns (uint256[] memory amounts);
        function getAmountsOut(uint256 amountIn, address[] calldata path)
            external view returns (uint256[] memory amounts);
        function getAmountOut(uint256 amountIn, uint256 reserveIn, uint256 reserveOut)
            external pure returns (uint256 amountOut);
        function quote(uint256 amountA, uint256 reserveA, uint256 reserveB)
            external pure returns (uint256 amountB);
    }
}

sol! {
    /// A router that skims part of every swap into a `HiddenSink`
    /// (`contracts/mocks/MaliciousRouter.sol`).
    #[sol(all_derives)]
    contract MaliciousRouter {
        error MaliciousRouterSkimTooHigh(uint256 skimBps);
        error MaliciousRouterUnsupportedPath(uint256 length);

        constructor(address router_, address sink_, uint256 skimBps_);

        function router() external view returns (address);
        function sink() external view returns (address);
        function skimBps() external view returns (uint256);
        function swapExactTokensForTokens(
            uint256 amountIn,
            uint256 amountOutMin,
            address[] calldata path,
            address to,
            uint256 deadline
        ) external returns (uint256[] memory amounts);
        function getAmountsOut(uint256 amountIn, address[] calldata path)
            external view returns (uint256[] memory amounts);
    }
}

sol! {
    /// Pulls tokens from the caller and records it (`contracts/mocks/HiddenSink.sol`).
    #[sol(all_derives)]
    contract HiddenSink {
        event Collected(address indexed from, address indexed token, uint256 amount);
        function collect(address token, uint256 amount) external;
    }
}

sol! {
    /// Drains whatever allowance a victim left it (`contracts/mocks/ApprovalDrainer.sol`).
    #[sol(all_derives)]
    contract ApprovalDrainer {
        event Drained(address indexed token, address indexed victim, uint256 amount);
        constructor();
        function owner() external view returns (address);
        function drain(address token, address victim) external returns (uint256 amount);
    }
}

sol! {
    /// Settable price feed (`contracts/mocks/MockOracle.sol`).
    #[sol(all_derives)]
    contract MockOracle {
        event PriceUpdated(uint256 oldPrice, uint256 newPrice);
        constructor(uint256 initialPrice);
        function price() external view returns (uint256);
        function setPrice(uint256 newPrice) external;
    }
}

sol! {
    /// Over-collateralised lending pool with an ERC-3156 flash loan
    /// (`contracts/mocks/MockLendingPool.sol`).
    #[sol(all_derives)]
    contract MockLendingPool {
        error MockLendingPoolZeroAmount();
        error MockLendingPoolBorrowExceedsLtv(uint256 newDebt, uint256 borrowLimit);
        error MockLendingPoolHealthFactorTooLow(uint256 healthFactor);
        error MockLendingPoolInsufficientCollateral(uint256 requested, uint256 available);
        error MockLendingPoolInsufficientLiquidity(uint256 requested, uint256 available);
        error MockLendingPoolUnsupportedToken(address token);
        error MockLendingPoolFlashLoanCallbackFailed();

        event Deposited(address indexed user, uint256 amount);
        event Withdrawn(address indexed user, uint256 amount);
        event Borrowed(address indexed user, uint256 amount);
        event Repaid(address indexed user, uint256 amount);
        event FlashLoanExecuted(address indexed receiver, address indexed token, uint256 amount, uint256 fee);

        constructor(address collateralToken_, address debtToken_, address oracle_);

        function LTV_BPS() external view returns (uint256);
        function LIQUIDATION_THRESHOLD_BPS() external view returns (uint256);
        function FLASH_LOAN_FEE_BPS() external view returns (uint256);
        function collateralToken() external view returns (address);
        function debtToken() external view returns (address);
        function oracle() external view returns (address);
        function collateralOf(address user) external view returns (uint256);
        function debtOf(address user) external view returns (uint256);

        function deposit(uint256 amount) external;
        function withdraw(uint256 amount) external;
        function borrow(uint256 amount) external;
        function repay(uint256 amount) external returns (uint256 repaid);
        function flashLoan(address receiver, address token, uint256 amount, bytes calldata data)
            external returns (bool);
        function flashFee(address token, uint256 amount) external view returns (uint256);
        function maxFlashLoan(address token) external view returns (uint256);
        function collateralValue(address user) external view returns (uint256);
        function borrowLimit(address user) external view returns (uint256);
        function healthFactor(address user) external view returns (uint256);
    }
}

sol! {
    /// Re-enters a configured target from its fallback (`contracts/mocks/ReentrantTarget.sol`).
    #[sol(all_derives)]
    contract ReentrantTarget {
        event ReentryAttempted(address indexed target, bool success, bytes returnData);
        function reentryTarget() external view returns (address);
        function reentryData() external view returns (bytes memory);
        function lastSuccess() external view returns (bool);
        function lastReturnData() external view returns (bytes memory);
        function attempts() external view returns (uint256);
        function setReentry(address target, bytes calldata data) external;
    }
}

sol! {
    /// The paper's baseline account, one EIP-191 record per call
    /// (`contracts/reference/ReferenceAccount.sol`).
    #[sol(all_derives)]
    contract ReferenceAccount {
        /// `ReferencePdr.Record`.
        struct Record {
            bytes32 policyHash;
            bytes32 intentHash;
            bytes32 simulationHash;
            bytes32 calldataHash;
            uint256 chainId;
            address account;
            address target;
            uint256 value;
            bytes32 nonce;
            uint256 validAfter;
            uint256 validUntil;
            uint256 simulationBlock;
        }

        error ReferenceAccountNotOwner(address caller);
        error ReferenceAccountZeroAddress();
        error ReferenceAccountInvalidSigner(address recovered);
        error ReferenceAccountWrongChainId(uint256 signed, uint256 actual);
        error ReferenceAccountWrongAccount(address signed);
        error ReferenceAccountTargetMismatch(address signed, address actual);
        error ReferenceAccountValueMismatch(uint256 signed, uint256 actual);
        error ReferenceAccountCalldataMismatch(bytes32 signed, bytes32 actual);
        error ReferenceAccountNonceUsed(bytes32 nonce);
        error ReferenceAccountNotYetValid(uint256 validAfter, uint256 timestamp);
        error ReferenceAccountExpired(uint256 validUntil, uint256 timestamp);
        error ReferenceAccountCallFailed(bytes returnData);

        event PdrExecuted(bytes32 indexed nonce, address indexed target, uint256 value);
        event Executed(address indexed target, uint256 value);
        event VerifierUpdated(address indexed previousVerifier, address indexed newVerifier);

        constructor(address owner_, address verifier_);

        function owner() external view returns (address);
        function verifier() external view returns (address);
        function usedNonces(bytes32 nonce) external view returns (bool);
        function executePDR(Record calldata pdr, bytes calldata signature, address target, uint256 value, bytes calldata data)
            external returns (bytes memory result);
        function execute(address target, uint256 value, bytes calldata data)
            external returns (bytes memory result);
        function setVerifier(address newVerifier) external;
        function pdrDigest(Record calldata pdr) external pure returns (bytes32);
    }
}
