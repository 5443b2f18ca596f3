// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "../utils/DefiFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {ReferenceAccount} from "../../contracts/reference/ReferenceAccount.sol";
import {ReferencePdr} from "../../contracts/reference/ReferencePdr.sol";

/// @notice Gas overhead of PDR execution over the owner's raw call, PaceAccount beside the
///         paper's reference account. Run isolated (`make gas`: `forge test --isolate`), so every
///         top-level call below is its own transaction: `vm.lastCallGas().gasTotalUsed` then
///         includes the 21,000 base and the calldata cost, and cold storage is cold.
///
///         Every case runs its raw and its PDR transaction from the same state (a state snapshot
///         is restored in between), on an account that has executed before, so storage slots
///         that exist in steady state (nonce lanes, token balances) are non-zero in both.
///
///         The budget cases give PaceAccount a spending budget first; the reference account has
///         none, so their reference figures are its plain PDR path.
contract PaceGasTest is DefiFixture {
    ReferenceAccount internal ref;

    /// @dev How a case submits its PDR: `executePDR`, `executeBatchPDR` with one outcome bound
    ///      on DAI, or `executeBatchPDR` without bounds (the only way once a budget is set).
    enum Path {
        Lean,
        Bounded,
        Batch
    }

    function setUp() public {
        _deployDefi();
        ref = new ReferenceAccount(owner, verifierAddr);
        weth.mint(address(ref), 100 ether);
        dai.mint(address(ref), 100_000 ether);

        // Steady state: both accounts have approved the router and executed once before.
        vm.startPrank(owner);
        account.execute(address(weth), 0, _approveData(type(uint128).max));
        ref.execute(address(weth), 0, _approveData(type(uint128).max));
        vm.stopPrank();
        _executeSigned(address(dai), 0, _transferData(1 ether));
        _refExecute(address(dai), 0, _transferData(1 ether), bytes32(uint256(1)));
    }

    /*//////////////////////////////////////////////////////////////
                                 CASES
    //////////////////////////////////////////////////////////////*/

    function test_gas_erc20_transfer() public {
        _case("erc20_transfer", address(dai), _transferData(500 ether), Path.Lean);
    }

    function test_gas_approval() public {
        _case(
            "approval",
            address(dai),
            abi.encodeCall(dai.approve, (address(router), 5 ether)),
            Path.Lean
        );
    }

    function test_gas_amm_swap() public {
        _case("amm_swap", address(router), _swapData(1 ether, 0), Path.Lean);
    }

    function test_gas_amm_swap_bound1() public {
        _case("amm_swap_bound1", address(router), _swapData(1 ether, 0), Path.Bounded);
    }

    /// A DAI budget: the transfer is metered (DAI balance read before and after the call) and
    /// charged to the period.
    function test_gas_erc20_transfer_budget() public {
        _budgeted(address(dai), address(dai), _transferData(1 ether));
        _case("erc20_transfer_budget", address(dai), _transferData(500 ether), Path.Batch);
    }

    /// A WETH budget: the router pulls the WETH, so the metering sees its balance fall.
    function test_gas_amm_swap_budget() public {
        _budgeted(address(weth), address(router), _swapData(0.1 ether, 0));
        _case("amm_swap_budget", address(router), _swapData(1 ether, 0), Path.Batch);
    }

    /*//////////////////////////////////////////////////////////////
                                MEASURING
    //////////////////////////////////////////////////////////////*/

    /// @dev Runs the four transactions of a case from one state and prints its overhead line:
    ///      execution gas (transaction gas less the intrinsic 21,000 + calldata cost) of the PDR
    ///      path minus that of the owner's raw path, per account. This is the paper's measure
    ///      (Foundry execution gas); the `tx_overhead` line adds the extra calldata bytes.
    function _case(string memory name, address target, bytes memory data, Path path) internal {
        // Only meaningful as isolated transactions; `make gas` runs them that way.
        if (!vm.envOr("PACE_GAS_ISOLATED", false)) vm.skip(true);
        uint256 snap = vm.snapshotState();
        bytes memory raw = abi.encodeCall(account.execute, (target, 0, data));
        uint256[2] memory paceRaw = _send(address(account), owner, raw);
        vm.revertToState(snap);
        uint256[2] memory pace =
            _send(address(account), address(this), _paceCall(target, data, path));
        vm.revertToState(snap);
        uint256[2] memory refRaw = _send(address(ref), owner, raw);
        vm.revertToState(snap);
        uint256[2] memory refPdr =
            _send(address(ref), address(this), _refCall(target, 0, data, bytes32(uint256(2))));

        emit log_named_uint(string.concat("raw_tx_gas ", name, " pace_account"), paceRaw[0]);
        emit log_named_uint(string.concat("raw_tx_gas ", name, " reference_account"), refRaw[0]);
        _line("tx_overhead ", name, pace[0] - paceRaw[0], refPdr[0] - refRaw[0]);
        _line("overhead ", name, pace[1] - paceRaw[1], refPdr[1] - refRaw[1]);
    }

    function _line(string memory kind, string memory name, uint256 pace, uint256 ref_) internal {
        emit log(string.concat(
                kind, name, " pace=", vm.toString(pace), " reference=", vm.toString(ref_)
            ));
    }

    /// @dev Sends `cd` to `to` from `from` as its own (isolated) transaction and returns its
    ///      total gas and its execution gas (total less the EIP-2028 intrinsic cost).
    function _send(address to, address from, bytes memory cd)
        internal
        returns (uint256[2] memory gas_)
    {
        vm.prank(from);
        (bool ok, bytes memory ret) = to.call(cd);
        if (!ok) {
            assembly {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        uint256 total = vm.lastCallGas().gasTotalUsed;
        uint256 intrinsic = 21_000;
        for (uint256 i; i < cd.length; ++i) {
            intrinsic += cd[i] == 0 ? 4 : 16;
        }
        gas_[0] = total;
        gas_[1] = total - intrinsic;
    }

    function _paceCall(address target, bytes memory data, Path path)
        internal
        view
        returns (bytes memory)
    {
        IPaceAccount.Call[] memory calls = _one(target, 0, data);
        IPaceAccount.Bound[] memory bounds = _noBounds();
        if (path == Path.Bounded) {
            bounds = new IPaceAccount.Bound[](1);
            bounds[0] = IPaceAccount.Bound(address(dai), 0, 900 ether);
        }
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, att, t);
        if (path == Path.Lean) {
            return abi.encodeCall(account.executePDR, (target, 0, data, att, t, r, vs));
        }
        return abi.encodeCall(account.executeBatchPDR, (calls, bounds, att, t, r, vs));
    }

    /// @dev Gives `token` a budget on PaceAccount and, for the steady state, charges the period
    ///      once with a PDR of `data` to `target`, so the measured PDR updates a spent total that
    ///      is already non-zero.
    function _budgeted(address token, address target, bytes memory data) internal {
        vm.prank(owner);
        account.setBudget(token, 1_000_000 ether, 1 days);
        (bool ok,) = address(account).call(_paceCall(target, data, Path.Batch));
        require(ok, "budgeted PDR failed");
        (,,, uint128 spent) = account.budget(token);
        require(spent != 0, "period not charged");
    }

    /// @dev A PDR for the reference account, signed with the EIP-191 prefix as the paper does.
    function _refExecute(address target, uint256 value, bytes memory data, bytes32 nonce) internal {
        (bool ok,) = address(ref).call(_refCall(target, value, data, nonce));
        require(ok, "reference PDR failed");
    }

    function _refCall(address target, uint256 value, bytes memory data, bytes32 nonce)
        internal
        view
        returns (bytes memory)
    {
        ReferencePdr.Record memory pdr = ReferencePdr.Record({
            policyHash: keccak256("policy"),
            intentHash: keccak256(abi.encode("intent", nonce)),
            simulationHash: keccak256(abi.encode("simulation", nonce)),
            calldataHash: keccak256(data),
            chainId: block.chainid,
            account: address(ref),
            target: target,
            value: value,
            nonce: keccak256(abi.encode(nonce)),
            validAfter: block.timestamp - 1,
            validUntil: block.timestamp + 3600,
            simulationBlock: block.number - 1
        });
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(VERIFIER_KEY, ref.pdrDigest(pdr));
        return abi.encodeCall(ref.executePDR, (pdr, abi.encodePacked(r, s, v), target, value, data));
    }
}
