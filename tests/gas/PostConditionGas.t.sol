// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "../utils/DefiFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PostConditions} from "../../contracts/libraries/PostConditions.sol";
import {RedPillDilutingVault} from "../../contracts/mocks/redpill/RedPillDilutingVault.sol";
import {PaceShareValue} from "../../contracts/helpers/PaceShareValue.sol";
import {MockAmmPair} from "../../contracts/mocks/MockAmmPair.sol";

/// @notice What a post-condition adds to a PDR, per relation, and the typical PDR that carries
///         one (a vault deposit, as the signer bounds and checks it) before and after. Run
///         isolated (`make gas`), so every top-level call is its own transaction and cold
///         storage is cold. The vaults are `RedPillDilutingVault`s never armed: honest
///         ERC-4626-shaped vaults over DAI.
///
///         A check is warm on the vault the calls deposit into (its code and the slots
///         `convertToAssets` reads are warm by then) and cold on a vault the calls do not touch
///         (the account holds shares of it). Each figure is execution gas (from the same state)
///         plus the check's own calldata.
contract PostConditionGasTest is DefiFixture {
    uint256 internal constant AMOUNT = 1000 ether;

    RedPillDilutingVault internal touched;
    RedPillDilutingVault internal untouched;
    PaceShareValue internal helper;

    function setUp() public {
        _deployDefi();
        helper = new PaceShareValue();
        touched = new RedPillDilutingVault(dai);
        untouched = new RedPillDilutingVault(dai);
        dai.mint(address(this), 20_000 ether);
        dai.approve(address(touched), type(uint256).max);
        dai.approve(address(untouched), type(uint256).max);
        touched.deposit(10_000 ether, address(this));
        untouched.deposit(10_000 ether, address(this));
        assertTrue(untouched.transfer(address(account), AMOUNT));
        // Steady state: the account approved the vault and has deposited before.
        vm.prank(owner);
        account.execute(
            address(dai), 0, abi.encodeCall(dai.approve, (address(touched), type(uint256).max))
        );
        (bool ok,) = address(account).call(_pdr(_noBounds(), _noHeld(), _noChecks()));
        require(ok, "first deposit failed");
    }

    /// WITHIN: what the deposit's shares are worth, at least the amount less 0.5 %.
    function test_gas_check_within() public {
        _checkCost(
            "check_cost relation=0",
            _one(touched, AMOUNT, PostConditions.WITHIN, AMOUNT * 9950 / 10_000, type(uint256).max),
            _one(
                untouched, AMOUNT, PostConditions.WITHIN, AMOUNT * 9950 / 10_000, type(uint256).max
            )
        );
    }

    /// KEPT: what the same shares are worth falls by at most 0.5 % across the calls.
    function test_gas_check_kept() public {
        _checkCost(
            "check_cost relation=1",
            _one(touched, AMOUNT, PostConditions.KEPT, AMOUNT * 50 / 10_000, type(uint256).max),
            _one(untouched, AMOUNT, PostConditions.KEPT, AMOUNT * 50 / 10_000, type(uint256).max)
        );
    }

    /// WITHIN through the stateless helper `PaceShareValue`: what 1e18 shares of a two-reserve
    /// pool the calls do not touch are worth (the helper's code, the pool's reserves and supply
    /// all cold), at least their value now less 0.5 %.
    function test_gas_check_share_value() public {
        if (!vm.envOr("PACE_GAS_ISOLATED", false)) vm.skip(true);
        MockAmmPair pair = new MockAmmPair(address(dai), address(weth));
        dai.mint(address(pair), 30_000 ether);
        weth.mint(address(pair), 10 ether);
        pair.mint(address(this));
        uint256 worth = helper.productShare(address(pair), 1 ether);
        IPaceAccount.Check[] memory c = new IPaceAccount.Check[](1);
        c[0] = IPaceAccount.Check(
            address(helper),
            abi.encodeCall(helper.productShare, (address(pair), 1 ether)),
            0,
            PostConditions.WITHIN,
            worth * 9950 / 10_000,
            type(uint256).max
        );
        uint256 base = _gas(_pdr(_noBounds(), _noHeld(), _noChecks()))[1];
        uint256 cold =
            _gas(_pdr(_noBounds(), _noHeld(), c))[1] - base + _calldataCost(abi.encode(c[0]));
        emit log(string.concat("check_cost share_value cold=", vm.toString(cold)));
        assertGt(cold, 0);
    }

    /// WITHIN through `PaceShareValue.vaultShare`: what the shares are worth by the vault's
    /// assets per share (the helper's code cold), signed beside the vault's rate for received
    /// vault shares.
    function test_gas_check_vault_share() public {
        _checkCost("check_cost vault_share", _assetsPerShare(touched), _assetsPerShare(untouched));
    }

    /// The typical PDR with post-conditions: a deposit into a vault, DAI may leave up to the
    /// amount, the shares must arrive, ETH is held; before (no check) and after (the signer's
    /// WITHIN checks on the shares' value, by the vault's rate and by its assets per share),
    /// whole transactions.
    function test_gas_deposit_typical() public {
        if (!vm.envOr("PACE_GAS_ISOLATED", false)) vm.skip(true);
        IPaceAccount.Bound[] memory b = new IPaceAccount.Bound[](2);
        b[0] = _balanceBound(address(dai), AMOUNT, 0);
        b[1] = _balanceBound(address(touched), 0, AMOUNT);
        address[] memory held = new address[](1);
        held[0] = address(0);
        IPaceAccount.Check[] memory c = new IPaceAccount.Check[](2);
        c[0] = _one(
            touched, AMOUNT, PostConditions.WITHIN, AMOUNT * 9950 / 10_000, type(uint256).max
        )[0];
        c[1] = _assetsPerShare(touched)[0];
        uint256 before = _gas(_pdr(b, held, _noChecks()))[0];
        uint256 after_ = _gas(_pdr(b, held, c))[0];
        emit log(string.concat(
                "pdr_typical deposit_v4626 before=",
                vm.toString(before),
                " after=",
                vm.toString(after_),
                " added=",
                vm.toString(after_ - before)
            ));
        assertGt(after_, before, "a check costs gas");
    }

    /// @dev Prints `line warm=<gas> cold=<gas>`: what `warm` and `cold` add to the deposit PDR.
    function _checkCost(
        string memory line,
        IPaceAccount.Check[] memory warm,
        IPaceAccount.Check[] memory cold
    ) internal {
        if (!vm.envOr("PACE_GAS_ISOLATED", false)) vm.skip(true);
        uint256 base = _gas(_pdr(_noBounds(), _noHeld(), _noChecks()))[1];
        uint256 w =
            _gas(_pdr(_noBounds(), _noHeld(), warm))[1] - base + _calldataCost(abi.encode(warm[0]));
        uint256 c =
            _gas(_pdr(_noBounds(), _noHeld(), cold))[1] - base + _calldataCost(abi.encode(cold[0]));
        emit log(string.concat(line, " warm=", vm.toString(w), " cold=", vm.toString(c)));
        assertLt(w, c, "a warm read costs less than a cold one");
    }

    /// @dev WITHIN on what `AMOUNT` shares of `vault` are worth by its assets per share.
    function _assetsPerShare(RedPillDilutingVault vault)
        internal
        view
        returns (IPaceAccount.Check[] memory c)
    {
        uint256 worth = helper.vaultShare(address(vault), AMOUNT);
        c = new IPaceAccount.Check[](1);
        c[0] = IPaceAccount.Check(
            address(helper),
            abi.encodeCall(helper.vaultShare, (address(vault), AMOUNT)),
            0,
            PostConditions.WITHIN,
            worth * 9950 / 10_000,
            type(uint256).max
        );
    }

    function _one(
        RedPillDilutingVault vault,
        uint256 shares,
        uint8 relation,
        uint256 lo,
        uint256 hi
    ) internal pure returns (IPaceAccount.Check[] memory c) {
        c = new IPaceAccount.Check[](1);
        c[0] = IPaceAccount.Check(
            address(vault), abi.encodeCall(vault.convertToAssets, (shares)), 0, relation, lo, hi
        );
    }

    /// @dev A signed `executeBatchPDR` depositing `AMOUNT` into the touched vault.
    function _pdr(
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        IPaceAccount.Check[] memory checks
    ) internal view returns (bytes memory) {
        IPaceAccount.Call[] memory calls = _one(
            address(touched), 0, abi.encodeCall(touched.deposit, (AMOUNT, address(account)))
        );
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, held, checks, att, t);
        return abi.encodeCall(account.executeBatchPDR, (calls, bounds, held, checks, att, t, r, vs));
    }

    /// @dev Transaction gas and execution gas (less the intrinsic 21,000 and calldata) of
    ///      `cd` sent to the account as an isolated transaction; the state is rolled back.
    function _gas(bytes memory cd) internal returns (uint256[2] memory g) {
        uint256 snap = vm.snapshotState();
        (bool ok, bytes memory ret) = address(account).call(cd);
        if (!ok) {
            assembly {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        g[0] = vm.lastCallGas().gasTotalUsed;
        g[1] = g[0] - 21_000 - _calldataCost(cd);
        vm.revertToState(snap);
    }

    function _calldataCost(bytes memory b) internal pure returns (uint256 cost) {
        for (uint256 i; i < b.length; ++i) {
            cost += b[i] == 0 ? 4 : 16;
        }
    }
}
