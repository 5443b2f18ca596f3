// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {PdrTestBase} from "./PdrTestBase.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {MockAmmRouter} from "../../contracts/mocks/MockAmmRouter.sol";

/// @notice The paper's section 5.2 world: WETH and DAI, a 10,000 WETH / 10,000,000 DAI
///         constant-product pool with a 30 bps fee, and a PaceAccount holding both tokens.
abstract contract DefiFixture is PdrTestBase {
    MockERC20 internal weth;
    MockERC20 internal dai;
    MockAmmRouter internal router;
    address internal recipient = makeAddr("recipient");
    address internal lp = makeAddr("lp");

    function _deployDefi() internal {
        _deployAccount();
        weth = new MockERC20("Wrapped Ether", "WETH", 18);
        dai = new MockERC20("Dai Stablecoin", "DAI", 18);
        router = new MockAmmRouter();

        weth.mint(lp, 10_000 ether);
        dai.mint(lp, 10_000_000 ether);
        vm.startPrank(lp);
        weth.approve(address(router), type(uint256).max);
        dai.approve(address(router), type(uint256).max);
        router.addLiquidity(
            address(weth), address(dai), 10_000 ether, 10_000_000 ether, 0, 0, lp, block.timestamp
        );
        vm.stopPrank();

        weth.mint(address(account), 100 ether);
        dai.mint(address(account), 100_000 ether);
        // The recipient already holds DAI, so transfers in every case write a non-zero slot.
        dai.mint(recipient, 1 ether);
        vm.deal(address(account), 10 ether);
    }

    function _path(address a, address b) internal pure returns (address[] memory p) {
        p = new address[](2);
        p[0] = a;
        p[1] = b;
    }

    function _transferData(uint256 amount) internal view returns (bytes memory) {
        return abi.encodeCall(dai.transfer, (recipient, amount));
    }

    function _approveData(uint256 amount) internal view returns (bytes memory) {
        return abi.encodeCall(weth.approve, (address(router), amount));
    }

    function _swapData(uint256 amountIn, uint256 minOut) internal view returns (bytes memory) {
        return abi.encodeCall(
            router.swapExactTokensForTokens,
            (
                amountIn,
                minOut,
                _path(address(weth), address(dai)),
                address(account),
                block.timestamp + 600
            )
        );
    }

    /// @dev Signs and submits one call under a fresh lane-0 PDR.
    function _executeSigned(address target, uint256 value, bytes memory data)
        internal
        returns (bytes memory)
    {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(_one(target, value, data), _noBounds(), att, t);
        return account.executePDR(target, value, data, att, t, r, vs);
    }
}
