//! The red-pill contracts' functions the harness calls (`contracts/mocks/redpill/`). The
//! standard interfaces (ERC-20/721/1155/4626, WETH, the account) come from `pace_abi`.

alloy_sol_types::sol! {
    /// `RedPillAccomplice`.
    interface Accomplice {
        function enlist(address pill) external;
        function crew(address pill) external view returns (bool);
    }

    /// `RedPillCollection`'s mint.
    interface Collection {
        function mint(address to, uint256 id) external;
    }

    /// `RedPillMultiToken`'s mint.
    interface MultiToken {
        function mint(address to, uint256 id, uint256 value) external;
    }

    /// The world's `MockERC20` (anyone mints).
    interface MockToken {
        function mint(address to, uint256 amount) external;
    }

    /// `RedPillAllowanceManager`.
    interface Manager {
        function approve(address token, address spender, uint160 amount, uint48 expiration) external;
        function allowance(address owner, address token, address spender)
            external
            view
            returns (uint160 amount, uint48 expiration, uint48 nonce);
    }

    /// The desks' trade.
    interface Desk {
        function swap(uint256 daiIn) external returns (uint256 wethOut);
    }

    /// The harmless red pills' visit.
    interface CheckIn {
        function checkIn() external;
    }

    /// The red pills armed in the newest block.
    interface Armed {
        function arm() external;
    }

    /// `RedPillAccountViews`, armed with the victim's views.
    interface ArmedByAccount {
        function arm(address account) external;
    }

    /// `RedPillTransient`'s two steps.
    interface Session {
        function prime() external;
        function settle() external;
    }

    /// `RedPillOperator`'s visit.
    interface Listing {
        function refresh() external;
    }

    /// `RedPillNftShop`.
    interface NftShop {
        function buy(uint256 id) external;
    }

    /// `EnvironmentRecorder`.
    interface Recorder {
        struct Environment {
            uint256 gasLeft;
            uint256 gasPrice;
            uint256 baseFee;
            uint256 blobBaseFee;
            address origin;
            address sender;
            uint256 value;
            uint256 number;
            uint256 timestamp;
            address coinbase;
            uint256 prevrandao;
            uint256 chainId;
            uint256 gasLimit;
            bytes32 parentHash;
            bytes32 transientValue;
        }
        struct Probe {
            bytes32 key;
            bytes32 value;
            uint256 cost;
        }
        function record(address[] calldata addresses, bytes32[] calldata slots, bytes32 transientSlot)
            external
            payable
            returns (Environment memory env, Probe[] memory addressProbes, Probe[] memory slotProbes);
    }

    /// `RedPillEditionShop`.
    interface EditionShop {
        function buy(uint256 id, uint256 units) external;
    }
}
