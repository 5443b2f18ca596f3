// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {MockAggregatorV3} from "../../../contracts/mocks/protocols/MockAggregatorV3.sol";

contract MockAggregatorV3Test is Test {
    MockAggregatorV3 internal feed;

    function setUp() public {
        vm.warp(1_700_000_000);
        feed = new MockAggregatorV3(8, "ETH / USD", 1000e8);
    }

    function test_Constructor_OpensRoundOne() public view {
        (uint80 id, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredIn) =
            feed.latestRoundData();
        assertEq(id, 1);
        assertEq(answer, 1000e8);
        assertEq(startedAt, block.timestamp);
        assertEq(updatedAt, block.timestamp);
        assertEq(answeredIn, 1);
        assertEq(feed.decimals(), 8);
        assertEq(feed.description(), "ETH / USD");
        assertEq(feed.version(), 1);
        assertEq(feed.latestAnswer(), 1000e8);
        assertEq(feed.latestTimestamp(), block.timestamp);
        assertEq(feed.latestRound(), 1);
    }

    function test_UpdateAnswer_OpensTheNextRoundNow() public {
        vm.warp(block.timestamp + 60);
        vm.expectEmit(address(feed));
        emit MockAggregatorV3.AnswerUpdated(1100e8, 2, block.timestamp);
        feed.updateAnswer(1100e8);
        (uint80 id, int256 answer,, uint256 updatedAt, uint80 answeredIn) = feed.latestRoundData();
        assertEq(id, 2);
        assertEq(answer, 1100e8);
        assertEq(updatedAt, block.timestamp);
        assertEq(answeredIn, 2);
        (, int256 first,,,) = feed.getRoundData(1);
        assertEq(first, 1000e8);
        assertEq(feed.getAnswer(1), 1000e8);
        assertEq(feed.getTimestamp(2), block.timestamp);
    }

    function test_SetRoundData_WritesStaleIncompleteOrNegativeRounds() public {
        feed.setRoundData(7, -5, 100, 0, 6);
        (uint80 id, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredIn) =
            feed.latestRoundData();
        assertEq(id, 7);
        assertEq(answer, -5);
        assertEq(startedAt, 100);
        assertEq(updatedAt, 0);
        assertEq(answeredIn, 6);
        assertEq(feed.latestAnswer(), -5);
    }

    function test_RevertWhen_RoundNeverWritten() public {
        vm.expectRevert(bytes("No data present"));
        feed.getRoundData(2);
        assertEq(feed.getAnswer(uint256(type(uint80).max) + 2), 0);
    }

    function test_RevertWhen_NotOwner() public {
        address stranger = makeAddr("stranger");
        vm.startPrank(stranger);
        vm.expectRevert(
            abi.encodeWithSelector(MockAggregatorV3.MockAggregatorV3NotOwner.selector, stranger)
        );
        feed.updateAnswer(1);
        vm.expectRevert(
            abi.encodeWithSelector(MockAggregatorV3.MockAggregatorV3NotOwner.selector, stranger)
        );
        feed.setRoundData(1, 1, 1, 1, 1);
        vm.stopPrank();
    }
}
