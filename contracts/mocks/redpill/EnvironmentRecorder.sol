// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title EnvironmentRecorder
/// @notice Records everything a contract can read of the environment it runs in, as one event,
///         so a simulation and the real execution of the same call can be compared field by
///         field: gas left at entry, gas price, base fee, blob base fee, origin, caller, value,
///         block number, timestamp, coinbase, prevrandao, chain id, block gas limit, the parent
///         block's hash, the warmth (gas cost of an access) of addresses and of this contract's
///         own storage slots it is told, and a transient slot an earlier call wrote (`stash`).
/// @dev Warmth is measured in the order given, and measuring warms: an address or slot listed
///      twice reads warm the second time. The costs include the few gas of the surrounding
///      opcodes, so cold and warm differ by about 2,500 (addresses) and 2,000 (slots).
contract EnvironmentRecorder {
    /// @notice What `record` read.
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

    /// @notice What one probed address or slot read, and the gas its access cost.
    struct Probe {
        bytes32 key;
        bytes32 value;
        uint256 cost;
    }

    /// @notice One recording: the environment, then each probed address (its code hash) and
    ///         slot (its value) with the gas its access cost.
    event Recorded(Environment env, Probe[] addresses, Probe[] slots);

    /// @notice Writes `value` to this contract's transient `slot`, for a later call of the same
    ///         transaction to read.
    /// @param slot The transient slot.
    /// @param value What to write.
    function stash(bytes32 slot, bytes32 value) external {
        assembly ("memory-safe") {
            tstore(slot, value)
        }
    }

    /// @notice Reads the environment and emits it (`Recorded`); also returns it.
    /// @param addresses Addresses whose access cost (`EXTCODEHASH`) to measure, in order.
    /// @param slots Slots of this contract's storage whose access cost (`SLOAD`) to measure.
    /// @param transientSlot The transient slot to read (see `stash`).
    /// @return env The environment.
    /// @return addressProbes Each address's code hash and access cost.
    /// @return slotProbes Each slot's value and access cost.
    function record(address[] calldata addresses, bytes32[] calldata slots, bytes32 transientSlot)
        external
        payable
        returns (Environment memory env, Probe[] memory addressProbes, Probe[] memory slotProbes)
    {
        env.gasLeft = gasleft();
        env.gasPrice = tx.gasprice;
        env.baseFee = block.basefee;
        env.blobBaseFee = block.blobbasefee;
        env.origin = tx.origin;
        env.sender = msg.sender;
        env.value = msg.value;
        env.number = block.number;
        env.timestamp = block.timestamp;
        env.coinbase = block.coinbase;
        env.prevrandao = block.prevrandao;
        env.chainId = block.chainid;
        env.gasLimit = block.gaslimit;
        env.parentHash = blockhash(block.number - 1);
        bytes32 held;
        assembly ("memory-safe") {
            held := tload(transientSlot)
        }
        env.transientValue = held;
        // Each access's result is kept (emitted), so the optimiser cannot drop the access.
        addressProbes = new Probe[](addresses.length);
        for (uint256 i; i < addresses.length; ++i) {
            address a = addresses[i];
            (bytes32 value, uint256 cost) = _codeHash(a);
            addressProbes[i] = Probe(bytes32(uint256(uint160(a))), value, cost);
        }
        slotProbes = new Probe[](slots.length);
        for (uint256 i; i < slots.length; ++i) {
            (bytes32 value, uint256 cost) = _sload(slots[i]);
            slotProbes[i] = Probe(slots[i], value, cost);
        }
        emit Recorded(env, addressProbes, slotProbes);
    }

    function _codeHash(address a) private view returns (bytes32 value, uint256 cost) {
        assembly ("memory-safe") {
            let before := gas()
            value := extcodehash(a)
            cost := sub(before, gas())
        }
    }

    function _sload(bytes32 slot) private view returns (bytes32 value, uint256 cost) {
        assembly ("memory-safe") {
            let before := gas()
            value := sload(slot)
            cost := sub(before, gas())
        }
    }
}
