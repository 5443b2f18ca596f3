// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title MockAggregatorV3
/// @notice A price feed with Chainlink's AggregatorV3 read interface (`decimals`, `description`,
///         `version`, `latestRoundData`, `getRoundData`) and the legacy reads Aave's oracle uses
///         (`latestAnswer`, `latestTimestamp`, `latestRound`, `getAnswer`, `getTimestamp`),
///         written for this project. It is NOT Chainlink's bytecode (none ships in a registry
///         package): its owner sets every field of a round, so tests can give a trusted reader a
///         stale, incomplete, zero or negative answer.
/// @dev Rounds are stored by id; `updateAnswer` opens round `latestRound + 1` with
///      `startedAt = updatedAt = block.timestamp` and `answeredInRound = roundId` (a complete,
///      fresh round). `setRoundData` writes any values into a round and makes it the latest.
///      `getRoundData` of a round never written reverts "No data present", as Chainlink's
///      aggregators do; `latestRoundData` before any round returns zeros.
contract MockAggregatorV3 {
    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The caller is not the owner.
    error MockAggregatorV3NotOwner(address caller);

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice A round got an answer (Chainlink's `AggregatorInterface` event).
    /// @param current The answer.
    /// @param roundId The round.
    /// @param updatedAt When it was answered.
    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    /// @notice A round started (Chainlink's `AggregatorInterface` event).
    /// @param roundId The round.
    /// @param startedBy Who started it.
    /// @param startedAt When it started.
    event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice One round as `getRoundData` returns it.
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
        uint80 answeredInRound;
        bool written;
    }

    /// @notice Decimals of every answer.
    uint8 public immutable decimals;
    /// @notice Who may set rounds.
    address public immutable owner;
    /// @notice What the feed prices, e.g. "ETH / USD".
    string public description;
    /// @notice The latest round id (0: none yet).
    uint80 public latestRoundId;

    mapping(uint80 roundId => Round) internal rounds;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param decimals_ Decimals of the answers (8 for Chainlink's USD feeds).
    /// @param description_ What the feed prices.
    /// @param initialAnswer The answer of round 1, opened now.
    constructor(uint8 decimals_, string memory description_, int256 initialAnswer) {
        decimals = decimals_;
        description = description_;
        owner = msg.sender;
        _updateAnswer(initialAnswer);
    }

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Opens the next round with `answer`, now (a complete, fresh round).
    /// @param answer The new answer.
    function updateAnswer(int256 answer) external {
        _onlyOwner();
        _updateAnswer(answer);
    }

    /// @notice Writes round `roundId` with exactly these fields and makes it the latest: how
    ///         tests model a stale (`updatedAt` long ago), incomplete (`updatedAt` 0, or
    ///         `answeredInRound < roundId`) or non-positive answer.
    /// @param roundId The round.
    /// @param answer Its answer.
    /// @param startedAt When it started.
    /// @param updatedAt When it was answered.
    /// @param answeredInRound The round the answer was computed in.
    function setRoundData(
        uint80 roundId,
        int256 answer,
        uint256 startedAt,
        uint256 updatedAt,
        uint80 answeredInRound
    ) external {
        _onlyOwner();
        rounds[roundId] = Round(answer, startedAt, updatedAt, answeredInRound, true);
        latestRoundId = roundId;
        emit NewRound(roundId, msg.sender, startedAt);
        emit AnswerUpdated(answer, roundId, updatedAt);
    }

    /// @notice The feed's version (this contract's: 1).
    /// @return 1.
    function version() external pure returns (uint256) {
        return 1;
    }

    /// @notice Round `roundId`; reverts "No data present" if it was never written.
    /// @param roundId The round.
    /// @return The round id, answer, start, answer time and the round the answer is from.
    function getRoundData(uint80 roundId)
        external
        view
        returns (uint80, int256, uint256, uint256, uint80)
    {
        Round memory r = rounds[roundId];
        require(r.written, "No data present");
        return (roundId, r.answer, r.startedAt, r.updatedAt, r.answeredInRound);
    }

    /// @notice The latest round (zeros before the first).
    /// @return roundId The round id.
    /// @return answer Its answer.
    /// @return startedAt When it started.
    /// @return updatedAt When it was answered.
    /// @return answeredInRound The round the answer was computed in.
    function latestRoundData()
        external
        view
        returns (
            uint80 roundId,
            int256 answer,
            uint256 startedAt,
            uint256 updatedAt,
            uint80 answeredInRound
        )
    {
        roundId = latestRoundId;
        Round memory r = rounds[roundId];
        return (roundId, r.answer, r.startedAt, r.updatedAt, r.answeredInRound);
    }

    /// @notice The latest answer (the legacy read Aave's oracle uses).
    /// @return The answer.
    function latestAnswer() external view returns (int256) {
        return rounds[latestRoundId].answer;
    }

    /// @notice When the latest round was answered.
    /// @return The timestamp.
    function latestTimestamp() external view returns (uint256) {
        return rounds[latestRoundId].updatedAt;
    }

    /// @notice The latest round id.
    /// @return The round id.
    function latestRound() external view returns (uint256) {
        return latestRoundId;
    }

    /// @notice The answer of round `roundId` (0 if never written).
    /// @param roundId The round.
    /// @return The answer.
    function getAnswer(uint256 roundId) external view returns (int256) {
        if (roundId > type(uint80).max) return 0;
        // forge-lint: disable-next-line(unsafe-typecast)
        return rounds[uint80(roundId)].answer; // checked just above
    }

    /// @notice When round `roundId` was answered (0 if never written).
    /// @param roundId The round.
    /// @return The timestamp.
    function getTimestamp(uint256 roundId) external view returns (uint256) {
        if (roundId > type(uint80).max) return 0;
        // forge-lint: disable-next-line(unsafe-typecast)
        return rounds[uint80(roundId)].updatedAt; // checked just above
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _updateAnswer(int256 answer) private {
        uint80 roundId = latestRoundId + 1;
        rounds[roundId] = Round(answer, block.timestamp, block.timestamp, roundId, true);
        latestRoundId = roundId;
        emit NewRound(roundId, msg.sender, block.timestamp);
        emit AnswerUpdated(answer, roundId, block.timestamp);
    }

    function _onlyOwner() private view {
        if (msg.sender != owner) revert MockAggregatorV3NotOwner(msg.sender);
    }
}
