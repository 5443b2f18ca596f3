// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "../utils/DefiFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {OutcomeBounds} from "../../contracts/libraries/OutcomeBounds.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {MockERC721} from "../../contracts/mocks/MockERC721.sol";
import {MockERC1155} from "../../contracts/mocks/MockERC1155.sol";
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
///
///         The bound cases price one bound of each kind and one held asset, on an asset the
///         calls touch (its contract and slot already warm when the calls reach them, so the
///         bound's first read pays the cold access the calls would have paid) and on one they do
///         not (cold: the bound pays it all).
contract PaceGasTest is DefiFixture {
    ReferenceAccount internal ref;
    /// @dev The default policy's two other tokens: held, never touched by the swap.
    MockERC20 internal usdc;
    MockERC20 internal wbtc;
    MockERC721 internal nft;
    MockERC1155 internal multi;
    /// @dev A vault that holds USDC for its shareholders: the holder of the cold HOLDING bound.
    address internal vault = makeAddr("vault");

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

        // Steady state: both accounts have approved the router and executed once before;
        // PaceAccount's approval, as its agent's, came through a PDR (an owner's raw call would
        // set every bit of its grant filter).
        _executeSigned(address(weth), 0, _approveData(type(uint128).max));
        vm.prank(owner);
        ref.execute(address(weth), 0, _approveData(type(uint128).max));
        _executeSigned(address(dai), 0, _transferData(1 ether));
        _refExecute(address(dai), 0, _transferData(1 ether), bytes32(uint256(1)));
        // ... and swapped through it before: its bit is in PaceAccount's grant filter.
        _executeSigned(address(router), 0, _swapData(0.01 ether, 0));
        _refExecute(address(router), 0, _swapData(0.01 ether, 0), bytes32(uint256(3)));

        usdc = new MockERC20("USD Coin", "USDC", 6);
        wbtc = new MockERC20("Wrapped BTC", "WBTC", 8);
        nft = new MockERC721();
        multi = new MockERC1155();
        usdc.mint(address(account), 10_000e6);
        wbtc.mint(address(account), 1e8);
        usdc.mint(vault, 1_000_000e6);
        usdc.mint(recipient, 1e6);
        // Ids 1 (the touched cases move it) and 2 (untouched); the recipient owns an id too,
        // so moving one to it writes a non-zero balance.
        nft.mint(address(account), 1);
        nft.mint(address(account), 2);
        nft.mint(recipient, 3);
        multi.mint(address(account), 1, 10);
        multi.mint(address(account), 2, 10);
        multi.mint(recipient, 1, 1);
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

    /// The typical PDR: one swap of WETH for DAI under the default policy, as the signer bounds
    /// it. DAI must arrive (minIn), WETH may leave up to the amount in (maxOut), and the
    /// policy's two other tokens, which no right the account granted reaches (their
    /// grant-filter bits are clear: the account never approved them), are left unread under
    /// an `UNGRANTED` bound on their bits. ETH is not held: no call sends any, and nothing
    /// else can take a `PaceAccount`'s.
    function test_gas_swap_typical_v2() public {
        IPaceAccount.Bound[] memory b = new IPaceAccount.Bound[](3);
        b[0] = _balanceBound(address(dai), 0, 900 ether);
        b[1] = _balanceBound(address(weth), 1 ether, 0);
        b[2] = _ungranted(address(usdc), address(wbtc));
        bytes memory data = _swapData(1 ether, 0);
        _caseWith(
            "swap_typical_v2",
            address(router),
            data,
            _batchCall(_one(address(router), 0, data), b, _noHeld())
        );
    }

    /// The same swap with every asset that can leave held and read: the policy's two other
    /// tokens are held as on an account whose grants nothing records (an EIP-7702 EOA).
    function test_gas_swap_all_held() public {
        IPaceAccount.Bound[] memory b = new IPaceAccount.Bound[](2);
        b[0] = _balanceBound(address(dai), 0, 900 ether);
        b[1] = _balanceBound(address(weth), 1 ether, 0);
        address[] memory held = new address[](3);
        (held[0], held[1], held[2]) = (address(0), address(usdc), address(wbtc));
        bytes memory data = _swapData(1 ether, 0);
        _caseWith(
            "swap_all_held",
            address(router),
            data,
            _batchCall(_one(address(router), 0, data), b, held)
        );
    }

    /// @dev The `UNGRANTED` bound on `a`'s and `b`'s grant-filter bits, which must be clear.
    function _ungranted(address a, address b) internal view returns (IPaceAccount.Bound memory) {
        uint256 bits = (uint256(1) << (uint160(a) & 15)) | (uint256(1) << (uint160(b) & 15));
        assertEq(account.grantFilter() & bits, 0, "a bit of the unread tokens is set");
        return IPaceAccount.Bound(address(0), OutcomeBounds.UNGRANTED, bits, 0, 0, 0);
    }

    /// The same swap bounded on the two tokens it moves only, nothing held: the bound set the
    /// signer made before every asset that can leave was bounded.
    function test_gas_swap_moved_only() public {
        IPaceAccount.Bound[] memory b = new IPaceAccount.Bound[](2);
        b[0] = _balanceBound(address(dai), 0, 900 ether);
        b[1] = _balanceBound(address(weth), 1 ether, 0);
        bytes memory data = _swapData(1 ether, 0);
        _caseWith(
            "swap_moved_only",
            address(router),
            data,
            _batchCall(_one(address(router), 0, data), b, _noHeld())
        );
    }

    /// BALANCE: DAI (the swap pays it in), USDC (untouched), ETH (the account's own balance).
    function test_gas_bound_kind0_balance() public {
        _boundCost(
            "bound_cost kind=0",
            _swapCalls(),
            _balanceBound(address(dai), 0, 900 ether),
            _swapCalls(),
            _balanceBound(address(usdc), 0, 0),
            _balanceBound(address(0), 0, 0)
        );
    }

    /// ERC721: id 1 leaves through the calls (touched), id 2 stays (untouched).
    function test_gas_bound_kind1_erc721() public {
        _boundCost(
            "bound_cost kind=1",
            _one(
                address(nft), 0, abi.encodeCall(nft.transferFrom, (address(account), recipient, 1))
            ),
            IPaceAccount.Bound(address(nft), OutcomeBounds.ERC721, 1, 1, 0, 0),
            _swapCalls(),
            IPaceAccount.Bound(address(nft), OutcomeBounds.ERC721, 2, 0, 0, 0),
            _noBound()
        );
    }

    /// ERC1155: 1 of id 1 leaves through the calls (touched), id 2 stays (untouched).
    function test_gas_bound_kind2_erc1155() public {
        _boundCost(
            "bound_cost kind=2",
            _one(
                address(multi),
                0,
                abi.encodeCall(multi.safeTransferFrom, (address(account), recipient, 1, 1, ""))
            ),
            IPaceAccount.Bound(address(multi), OutcomeBounds.ERC1155, 1, 1, 0, 0),
            _swapCalls(),
            IPaceAccount.Bound(address(multi), OutcomeBounds.ERC1155, 2, 0, 0, 0),
            _noBound()
        );
    }

    /// HOLDING: the pair's WETH, which the swap pays in (touched); a vault's USDC (untouched).
    function test_gas_bound_kind3_holding() public {
        address pair = router.getPair(address(weth), address(dai));
        _boundCost(
            "bound_cost kind=3",
            _swapCalls(),
            IPaceAccount.Bound(
                address(weth), OutcomeBounds.HOLDING, uint160(pair), 0, 1 ether, type(uint256).max
            ),
            _swapCalls(),
            IPaceAccount.Bound(
                address(usdc), OutcomeBounds.HOLDING, uint160(vault), 0, 0, type(uint256).max
            ),
            _noBound()
        );
    }

    /// Held: DAI, which the swap pays in (touched); USDC (untouched); ETH.
    function test_gas_held() public {
        if (!vm.envOr("PACE_GAS_ISOLATED", false)) vm.skip(true);
        uint256 base = _pdrGas(_swapCalls(), _noBounds(), _noHeld());
        _costLine(
            "held_cost",
            _heldCost(address(dai), base),
            _heldCost(address(usdc), base),
            _heldCost(address(0), base)
        );
    }

    /*//////////////////////////////////////////////////////////////
                                MEASURING
    //////////////////////////////////////////////////////////////*/

    /// @dev Runs the four transactions of a case from one state and prints its overhead line:
    ///      execution gas (transaction gas less the intrinsic 21,000 + calldata cost) of the PDR
    ///      path minus that of the owner's raw path, per account. This is the paper's measure
    ///      (Foundry execution gas); the `tx_overhead` line adds the extra calldata bytes.
    function _case(string memory name, address target, bytes memory data, Path path) internal {
        _caseWith(name, target, data, _paceCall(target, data, path));
    }

    /// @dev `_case` with the PaceAccount submission `paceCd` given whole.
    function _caseWith(string memory name, address target, bytes memory data, bytes memory paceCd)
        internal
    {
        // Only meaningful as isolated transactions; `make gas` runs them that way.
        if (!vm.envOr("PACE_GAS_ISOLATED", false)) vm.skip(true);
        uint256 snap = vm.snapshotState();
        bytes memory raw = abi.encodeCall(account.execute, (target, 0, data));
        uint256[2] memory paceRaw = _send(address(account), owner, raw);
        vm.revertToState(snap);
        uint256[2] memory pace = _send(address(account), address(this), paceCd);
        vm.revertToState(snap);
        uint256[2] memory refRaw = _send(address(ref), owner, raw);
        vm.revertToState(snap);
        uint256[2] memory refPdr =
            _send(address(ref), address(this), _refCall(target, 0, data, bytes32(uint256(2))));

        emit log_named_uint(string.concat("raw_tx_gas ", name, " pace_account"), paceRaw[0]);
        emit log_named_uint(string.concat("raw_tx_gas ", name, " reference_account"), refRaw[0]);
        _line("tx_overhead ", name, pace[0] - paceRaw[0], refPdr[0] - refRaw[0]);
        _line("overhead ", name, pace[1] - paceRaw[1], refPdr[1] - refRaw[1]);
        // Over the reference account's raw call: a plain owner-checked call that records
        // nothing, where PaceAccount's own raw call pays for its grant filter.
        _line("overhead_over_plain_call ", name, pace[1] - refRaw[1], refPdr[1] - refRaw[1]);
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

    /*//////////////////////////////////////////////////////////////
                               BOUND COSTS
    //////////////////////////////////////////////////////////////*/

    /// @dev What holding `token` adds to the swap PDR whose execution gas is `base`: execution
    ///      gas plus the entry's own calldata word.
    function _heldCost(address token, uint256 base) internal returns (uint256) {
        return
            _pdrGas(_swapCalls(), _noBounds(), _held(token)) - base
                + _calldataCost(abi.encode(token));
    }

    /// @dev Prints `line warm=<gas> cold=<gas>` (and `eth=<gas>` when `eth` is a bound): what
    ///      `warmBound` adds to a PDR of `warmCalls`, and `coldBound` to one of `coldCalls`,
    ///      each its execution gas (from the same state, isolated) plus its own calldata.
    function _boundCost(
        string memory line,
        IPaceAccount.Call[] memory warmCalls,
        IPaceAccount.Bound memory warmBound,
        IPaceAccount.Call[] memory coldCalls,
        IPaceAccount.Bound memory coldBound,
        IPaceAccount.Bound memory eth
    ) internal {
        if (!vm.envOr("PACE_GAS_ISOLATED", false)) {
            vm.skip(true);
        }
        uint256 warm = _pdrGas(warmCalls, _bounds(warmBound), _noHeld())
            - _pdrGas(warmCalls, _noBounds(), _noHeld()) + _calldataCost(abi.encode(warmBound));
        uint256 coldBase = _pdrGas(coldCalls, _noBounds(), _noHeld());
        uint256 cold = _pdrGas(coldCalls, _bounds(coldBound), _noHeld()) - coldBase
            + _calldataCost(abi.encode(coldBound));
        if (eth.maxIn == 0) {
            emit log(string.concat(line, " warm=", vm.toString(warm), " cold=", vm.toString(cold)));
            return;
        }
        uint256 ethCost =
            _pdrGas(coldCalls, _bounds(eth), _noHeld()) - coldBase + _calldataCost(abi.encode(eth));
        _costLine(line, warm, cold, ethCost);
    }

    function _costLine(string memory line, uint256 warm, uint256 cold, uint256 eth) internal {
        emit log(string.concat(
                line,
                " warm=",
                vm.toString(warm),
                " cold=",
                vm.toString(cold),
                " eth=",
                vm.toString(eth)
            ));
    }

    /// @dev The execution gas (total less intrinsic) of a batch PDR of `calls` with `bounds`
    ///      and `held`, as an isolated transaction; the state is rolled back after it.
    function _pdrGas(
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held
    ) internal returns (uint256) {
        uint256 snap = vm.snapshotState();
        uint256[2] memory g =
            _send(address(account), address(this), _batchCall(calls, bounds, held));
        vm.revertToState(snap);
        return g[1];
    }

    function _calldataCost(bytes memory b) internal pure returns (uint256 cost) {
        for (uint256 i; i < b.length; ++i) {
            cost += b[i] == 0 ? 4 : 16;
        }
    }

    function _swapCalls() internal view returns (IPaceAccount.Call[] memory) {
        return _one(address(router), 0, _swapData(1 ether, 0));
    }

    function _bounds(IPaceAccount.Bound memory b)
        internal
        pure
        returns (IPaceAccount.Bound[] memory bounds)
    {
        bounds = new IPaceAccount.Bound[](1);
        bounds[0] = b;
    }

    /// @dev No third bound to price (`_boundCost` prints no `eth=`).
    function _noBound() internal pure returns (IPaceAccount.Bound memory b) {}

    function _held(address token) internal pure returns (address[] memory held) {
        held = new address[](1);
        held[0] = token;
    }

    /// @dev A signed `executeBatchPDR` of `calls` with `bounds` and `held`.
    function _batchCall(
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held
    ) internal view returns (bytes memory) {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, held, att, t);
        return
            abi.encodeCall(
                account.executeBatchPDR, (calls, bounds, held, _noChecks(), att, t, r, vs)
            );
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
            bounds[0] = _balanceBound(address(dai), 0, 900 ether);
        }
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, att, t);
        if (path == Path.Lean) {
            return abi.encodeCall(account.executePDR, (target, 0, data, att, t, r, vs));
        }
        return abi.encodeCall(
            account.executeBatchPDR, (calls, bounds, _noHeld(), _noChecks(), att, t, r, vs)
        );
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
