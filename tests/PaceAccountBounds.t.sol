// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {OutcomeBounds} from "../contracts/libraries/OutcomeBounds.sol";
import {MockERC20} from "../contracts/mocks/MockERC20.sol";
import {MockERC721} from "../contracts/mocks/MockERC721.sol";
import {MockERC1155} from "../contracts/mocks/MockERC1155.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @notice Pays ETH to whoever calls `pay`.
contract EtherFaucet {
    receive() external payable {}

    function pay(uint256 amount) external {
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "faucet: payment failed");
    }
}

/// @notice A lender that pays `cash` out and records the loan by minting its debt token to the
///         borrower. `debtMinted` is what it chooses to record: more than the loan is a lender
///         that inflates the borrower's debt.
contract DebtLender {
    MockERC20 public immutable cash;
    MockERC20 public immutable debt;

    constructor(MockERC20 cash_, MockERC20 debt_) {
        cash = cash_;
        debt = debt_;
    }

    function borrow(uint256 amount, uint256 debtMinted) external {
        require(cash.transfer(msg.sender, amount), "lender: transfer failed");
        debt.mint(msg.sender, debtMinted);
    }
}

/// @notice A vault issuing one share per unit of `underlying` deposited. Armed, it sends all the
///         underlying it holds to `thief` right after minting the depositor's shares: the shares
///         arrive as simulated, and nothing backs them any more.
contract RugVault {
    IERC20 public immutable underlying;
    MockERC20 public immutable shares;
    address public immutable thief;
    bool public armed;

    constructor(IERC20 underlying_, MockERC20 shares_, address thief_) {
        underlying = underlying_;
        shares = shares_;
        thief = thief_;
    }

    function arm() external {
        armed = true;
    }

    function deposit(uint256 amount) external {
        require(underlying.transferFrom(msg.sender, address(this), amount), "vault: pull failed");
        shares.mint(msg.sender, amount);
        if (armed) require(underlying.transfer(thief, underlying.balanceOf(address(this))));
    }

    function withdraw(uint256 amount) external {
        require(underlying.transfer(msg.sender, amount), "vault: pay failed");
    }
}

/// @notice A contract a PDR calls for something harmless (`poke`). Armed (the chain is not the
///         simulation), it takes all of a token the caller once approved it for.
contract RedPillTarget {
    IERC20 public immutable token;
    address public immutable thief;
    bool public armed;
    uint256 public pokes;

    constructor(IERC20 token_, address thief_) {
        token = token_;
        thief = thief_;
    }

    function arm() external {
        armed = true;
    }

    function poke() external {
        ++pokes;
        if (armed) require(token.transferFrom(msg.sender, thief, token.balanceOf(msg.sender)));
    }
}

/// @notice A token whose balance reads misbehave on demand: `mode` 0 answers 1e18, 1 reverts,
///         2 returns 16 bytes, and an ERC-721 `ownerOf` that returns the owner's word with a high
///         bit set. `breakReads` switches to reverting, from inside a PDR's calls.
contract BadReads {
    uint256 public mode;

    function setMode(uint256 m) external {
        mode = m;
    }

    function breakReads() external {
        mode = 1;
    }

    function balanceOf(address) external view returns (uint256) {
        _answer();
        return 1e18;
    }

    function balanceOf(address, uint256) external view returns (uint256) {
        _answer();
        return 1e18;
    }

    function ownerOf(uint256) external view returns (uint256) {
        return (uint256(1) << 160) | uint160(msg.sender);
    }

    function _answer() private view {
        uint256 m = mode;
        if (m == 1) revert("no balance today");
        if (m == 2) {
            assembly {
                mstore(0x00, 0x1234)
                return(0x00, 0x10)
            }
        }
    }
}

/// @notice An ERC-721 whose `ownerOf` costs a lot of gas (`work` rounds of hashing): a submitter
///         that picks the transaction's gas could make every read of it run out.
contract CostlyNft is MockERC721 {
    uint256 public immutable work;

    constructor(uint256 work_) {
        work = work_;
    }

    function ownerOf(uint256 id) public view override returns (address) {
        bytes32 h;
        for (uint256 i; i < work; ++i) {
            h = keccak256(abi.encode(h, i));
        }
        return h == bytes32(uint256(1)) ? address(0) : super.ownerOf(id);
    }
}

/// @notice Records that it was called.
contract Recorder {
    uint256 public calls;

    function record() external {
        ++calls;
    }
}

/// @notice The outcome bounds of every kind and the held assets, at their limits and one unit
///         past them, and the attacks they stop: an issuer that empties itself, a debt that
///         rises, a target that drains a standing allowance, an NFT that goes elsewhere.
contract PaceAccountBoundsTest is DefiFixture {
    uint256 internal constant MAX = type(uint256).max;

    MockERC721 internal nft;
    MockERC1155 internal multi;
    MockERC20 internal usdc;
    address internal thief = makeAddr("thief");

    function setUp() public {
        _deployDefi();
        nft = new MockERC721();
        multi = new MockERC1155();
        usdc = new MockERC20("USD Coin", "USDC", 6);
        usdc.mint(address(account), 5000e6);
        nft.mint(address(account), 1);
        multi.mint(address(account), 7, 10);
        multi.mint(address(account), 8, 10);
    }

    /*//////////////////////////////////////////////////////////////
                                HELPERS
    //////////////////////////////////////////////////////////////*/

    function _bound(
        address token,
        uint8 kind,
        uint256 id,
        uint256 maxOut,
        uint256 minIn,
        uint256 maxIn
    ) internal pure returns (IPaceAccount.Bound[] memory b) {
        b = new IPaceAccount.Bound[](1);
        b[0] = IPaceAccount.Bound(token, kind, id, maxOut, minIn, maxIn);
    }

    function _held(address token) internal pure returns (address[] memory h) {
        h = new address[](1);
        h[0] = token;
    }

    /// @dev Signs and submits `calls` with `bounds` and `held` as one batch PDR; with
    ///      `revertData`, expects it to revert with exactly that and leaves the nonce unused.
    function _exec(
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        bytes memory revertData
    ) internal {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, held, att, t);
        uint64 seq = account.nextSequence(0);
        if (revertData.length != 0) vm.expectRevert(revertData);
        account.executeBatchPDR(calls, bounds, held, _noChecks(), att, t, r, vs);
        assertEq(account.nextSequence(0), revertData.length == 0 ? seq + 1 : seq, "nonce");
    }

    /// @dev `_exec` from the current state, then the state is rolled back: one side of a limit.
    function _try(
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        bytes memory revertData
    ) internal {
        uint256 snap = vm.snapshotState();
        _exec(calls, bounds, held, revertData);
        vm.revertToState(snap);
    }

    function _outOfBounds(uint256 index, address token, uint256 before, uint256 after_)
        internal
        pure
        returns (bytes memory)
    {
        return abi.encodeWithSelector(
            IPaceAccount.PaceAccountOutcomeOutOfBounds.selector, index, token, before, after_
        );
    }

    function _heldFell(uint256 index, address token, uint256 before, uint256 after_)
        internal
        pure
        returns (bytes memory)
    {
        return abi.encodeWithSelector(
            IPaceAccount.PaceAccountHeldBalanceFell.selector, index, token, before, after_
        );
    }

    /*//////////////////////////////////////////////////////////////
                          BALANCE (ERC-20, ETH)
    //////////////////////////////////////////////////////////////*/

    function test_Balance_OutflowAtMaxOutAndOnePast() public {
        IPaceAccount.Call[] memory calls = _one(address(dai), 0, _transferData(10 ether));
        uint256 bal = dai.balanceOf(address(account));
        _try(calls, _bound(address(dai), 0, 0, 10 ether, 0, MAX), _noHeld(), "");
        _try(
            calls,
            _bound(address(dai), 0, 0, 10 ether - 1, 0, MAX),
            _noHeld(),
            _outOfBounds(0, address(dai), bal, bal - 10 ether)
        );
        // A positive minIn forbids any fall, whatever maxOut allows.
        _try(
            calls,
            _bound(address(dai), 0, 0, MAX, 1, MAX),
            _noHeld(),
            _outOfBounds(0, address(dai), bal, bal - 10 ether)
        );
    }

    function test_Balance_InflowAtMinInAndMaxInAndOnePast() public {
        IPaceAccount.Call[] memory calls =
            _one(address(dai), 0, abi.encodeCall(dai.mint, (address(account), 5 ether)));
        uint256 bal = dai.balanceOf(address(account));
        _try(calls, _bound(address(dai), 0, 0, 0, 5 ether, 5 ether), _noHeld(), "");
        bytes memory err = _outOfBounds(0, address(dai), bal, bal + 5 ether);
        _try(calls, _bound(address(dai), 0, 0, 0, 5 ether + 1, MAX), _noHeld(), err);
        _try(calls, _bound(address(dai), 0, 0, 0, 0, 5 ether - 1), _noHeld(), err);
    }

    function test_Balance_EtherAtTheLimits() public {
        EtherFaucet faucet = new EtherFaucet();
        vm.deal(address(faucet), 10 ether);
        uint256 bal = address(account).balance;

        IPaceAccount.Call[] memory out = _one(recipient, 2 ether, "");
        _try(out, _bound(address(0), 0, 0, 2 ether, 0, MAX), _noHeld(), "");
        _try(
            out,
            _bound(address(0), 0, 0, 2 ether - 1, 0, MAX),
            _noHeld(),
            _outOfBounds(0, address(0), bal, bal - 2 ether)
        );

        IPaceAccount.Call[] memory pay =
            _one(address(faucet), 0, abi.encodeCall(faucet.pay, (3 ether)));
        _try(pay, _bound(address(0), 0, 0, 0, 3 ether, 3 ether), _noHeld(), "");
        bytes memory err = _outOfBounds(0, address(0), bal, bal + 3 ether);
        _try(pay, _bound(address(0), 0, 0, 0, 3 ether + 1, MAX), _noHeld(), err);
        _try(pay, _bound(address(0), 0, 0, 0, 0, 3 ether - 1), _noHeld(), err);
    }

    /// A lender that records more debt than it lent: the debt token's rise is an inflow, which
    /// minIn alone lets rise without limit; the signed maxIn caps it.
    function test_MaxInCapsARisingDebt() public {
        MockERC20 debt = new MockERC20("Variable Debt DAI", "vDAI", 18);
        DebtLender lender = new DebtLender(dai, debt);
        dai.mint(address(lender), 1000 ether);
        IPaceAccount.Bound[] memory capped = _bound(address(debt), 0, 0, 0, 0, 100 ether);

        IPaceAccount.Call[] memory honest =
            _one(address(lender), 0, abi.encodeCall(lender.borrow, (100 ether, 100 ether)));
        _try(honest, capped, _noHeld(), "");

        IPaceAccount.Call[] memory inflated =
            _one(address(lender), 0, abi.encodeCall(lender.borrow, (100 ether, 100 ether + 1)));
        _try(inflated, capped, _noHeld(), _outOfBounds(0, address(debt), 0, 100 ether + 1));

        // Uncapped, the inflated debt goes through: the gap maxIn closes.
        IPaceAccount.Call[] memory rigged =
            _one(address(lender), 0, abi.encodeCall(lender.borrow, (100 ether, 1e30)));
        _exec(rigged, _bound(address(debt), 0, 0, 0, 0, MAX), _noHeld(), "");
        assertEq(debt.balanceOf(address(account)), 1e30);
    }

    /*//////////////////////////////////////////////////////////////
                                ERC-721
    //////////////////////////////////////////////////////////////*/

    /// One arriving NFT is a change of exactly 1: minIn 1 holds, minIn 2 and maxIn 0 do not.
    function test_Erc721_ASingleArrivingNftMeetsMinInOne() public {
        IPaceAccount.Call[] memory calls =
            _one(address(nft), 0, abi.encodeCall(nft.mint, (address(account), 42)));
        bytes memory err = _outOfBounds(0, address(nft), 0, 1);
        _try(calls, _bound(address(nft), OutcomeBounds.ERC721, 42, 0, 2, MAX), _noHeld(), err);
        _try(calls, _bound(address(nft), OutcomeBounds.ERC721, 42, 0, 0, 0), _noHeld(), err);
        _exec(calls, _bound(address(nft), OutcomeBounds.ERC721, 42, 0, 1, 1), _noHeld(), "");
        assertEq(nft.ownerOf(42), address(account));
    }

    /// An arriving NFT is bounded by its id: another id arriving does not meet the bound.
    function test_Erc721_TheBoundIsOnTheId() public {
        IPaceAccount.Call[] memory calls =
            _one(address(nft), 0, abi.encodeCall(nft.mint, (address(account), 43)));
        _try(
            calls,
            _bound(address(nft), OutcomeBounds.ERC721, 42, 0, 1, 1),
            _noHeld(),
            _outOfBounds(0, address(nft), 0, 0)
        );
    }

    function test_Erc721_AnIdLeavingWithMaxOutZeroReverts() public {
        IPaceAccount.Call[] memory calls = _one(
            address(nft), 0, abi.encodeCall(nft.transferFrom, (address(account), recipient, 1))
        );
        _try(
            calls,
            _bound(address(nft), OutcomeBounds.ERC721, 1, 0, 0, 0),
            _noHeld(),
            _outOfBounds(0, address(nft), 1, 0)
        );
        _exec(calls, _bound(address(nft), OutcomeBounds.ERC721, 1, 1, 0, 0), _noHeld(), "");
        assertEq(nft.ownerOf(1), recipient);
    }

    /// A burned id's `ownerOf` reverts: it counts as gone, not as a failed read.
    function test_Erc721_ABurnedIdCountsAsGone() public {
        IPaceAccount.Call[] memory calls = _one(address(nft), 0, abi.encodeCall(nft.burn, (1)));
        _try(
            calls,
            _bound(address(nft), OutcomeBounds.ERC721, 1, 0, 0, 0),
            _noHeld(),
            _outOfBounds(0, address(nft), 1, 0)
        );
        // An id that never existed reads 0 before and after: a zero bound on it holds.
        _exec(
            _one(recipient, 0, ""),
            _bound(address(nft), OutcomeBounds.ERC721, 999, 0, 0, 0),
            _noHeld(),
            ""
        );
    }

    /// An `ownerOf` that returns the account's address with a high bit set is not the account.
    function test_Erc721_AMalformedOwnerOfCountsAsZero() public {
        BadReads bad = new BadReads();
        _try(
            _one(recipient, 0, ""),
            _bound(address(bad), OutcomeBounds.ERC721, 1, 0, 1, 1),
            _noHeld(),
            _outOfBounds(0, address(bad), 0, 0)
        );
    }

    /// A costly `ownerOf` that runs out of gas is a failed read, not a 0: otherwise a
    /// submitter could pick the gas that starves both reads, and the NFT would leave unseen
    /// under a bound of maxOut 0 (before 0, after 0).
    function test_Erc721_AnOwnerOfOutOfGasIsAFailedRead() public {
        CostlyNft costly = new CostlyNft(20_000);
        costly.mint(address(account), 1);
        IPaceAccount.Call[] memory calls = _one(
            address(costly),
            0,
            abi.encodeCall(costly.transferFrom, (address(account), recipient, 1))
        );
        IPaceAccount.Bound[] memory keep = _bound(address(costly), OutcomeBounds.ERC721, 1, 0, 0, 0);
        uint256 t = _pack(_terms());
        (bytes32 r, bytes32 vs) = _sign(calls, keep, _noHeld(), bytes32(0), t);
        bytes memory cd = abi.encodeCall(
            account.executeBatchPDR, (calls, keep, _noHeld(), _noChecks(), bytes32(0), t, r, vs)
        );
        // With all the gas it needs, the bound sees the NFT leave.
        (bool ok, bytes memory ret) = address(account).call(cd);
        assertFalse(ok);
        assertEq(ret, _outOfBounds(0, address(costly), 1, 0));
        // With any gas: from about 4.05M up, both reads run out of gas while the transfer
        // still fits in the 1/64 left, and an out-of-gas read counted as 0 lets the NFT leave
        // (it does, with the check removed).
        uint256 outOfGas;
        for (uint256 g = 3_000_000; g < 7_000_000; g += 100_000) {
            uint256 snap = vm.snapshotState();
            (ok, ret) = address(account).call{gas: g}(cd);
            assertFalse(ok, "the NFT left under maxOut 0");
            if (ret.length >= 4 && bytes4(ret) == IPaceAccount.PaceAccountUnreadableBound.selector)
            {
                ++outOfGas;
            }
            vm.revertToState(snap);
        }
        assertEq(costly.ownerOf(1), address(account));
        assertGt(outOfGas, 0, "some gas starves a read");
    }

    /*//////////////////////////////////////////////////////////////
                                ERC-1155
    //////////////////////////////////////////////////////////////*/

    function test_Erc1155_BoundedPerId() public {
        IPaceAccount.Call[] memory out = _one(
            address(multi),
            0,
            abi.encodeCall(multi.safeTransferFrom, (address(account), recipient, 7, 3, ""))
        );
        _try(out, _bound(address(multi), OutcomeBounds.ERC1155, 7, 3, 0, 0), _noHeld(), "");
        _try(
            out,
            _bound(address(multi), OutcomeBounds.ERC1155, 7, 2, 0, 0),
            _noHeld(),
            _outOfBounds(0, address(multi), 10, 7)
        );
        // Id 8 is another asset: a zero bound on it does not see id 7 leave.
        _try(out, _bound(address(multi), OutcomeBounds.ERC1155, 8, 0, 0, 0), _noHeld(), "");

        IPaceAccount.Call[] memory arrive =
            _one(address(multi), 0, abi.encodeCall(multi.mint, (address(account), 7, 5)));
        _try(arrive, _bound(address(multi), OutcomeBounds.ERC1155, 7, 0, 5, 5), _noHeld(), "");
        bytes memory err = _outOfBounds(0, address(multi), 10, 15);
        _try(arrive, _bound(address(multi), OutcomeBounds.ERC1155, 7, 0, 6, MAX), _noHeld(), err);
        _try(arrive, _bound(address(multi), OutcomeBounds.ERC1155, 7, 0, 0, 4), _noHeld(), err);
        // ... and id 8 did not receive them.
        _try(
            arrive,
            _bound(address(multi), OutcomeBounds.ERC1155, 8, 0, 5, MAX),
            _noHeld(),
            _outOfBounds(0, address(multi), 10, 10)
        );
    }

    /*//////////////////////////////////////////////////////////////
                                HOLDING
    //////////////////////////////////////////////////////////////*/

    function _vault() internal returns (RugVault vault, MockERC20 shares) {
        shares = new MockERC20("Vault DAI", "vDAI", 18);
        vault = new RugVault(dai, shares, thief);
        dai.mint(address(vault), 1000 ether); // other depositors' funds
    }

    function _deposit(RugVault vault, uint256 amount)
        internal
        view
        returns (IPaceAccount.Call[] memory calls)
    {
        calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(
            address(dai), 0, abi.encodeCall(dai.approve, (address(vault), amount))
        );
        calls[1] = IPaceAccount.Call(address(vault), 0, abi.encodeCall(vault.deposit, (amount)));
    }

    function test_Holding_AtTheLimits() public {
        (RugVault vault,) = _vault();
        uint256 holder = uint160(address(vault));
        IPaceAccount.Call[] memory dep = _deposit(vault, 100 ether);
        _try(
            dep,
            _bound(address(dai), OutcomeBounds.HOLDING, holder, 0, 100 ether, MAX),
            _noHeld(),
            ""
        );
        bytes memory err = _outOfBounds(0, address(dai), 1000 ether, 1100 ether);
        _try(
            dep,
            _bound(address(dai), OutcomeBounds.HOLDING, holder, 0, 100 ether + 1, MAX),
            _noHeld(),
            err
        );
        _try(
            dep,
            _bound(address(dai), OutcomeBounds.HOLDING, holder, 0, 0, 100 ether - 1),
            _noHeld(),
            err
        );

        IPaceAccount.Call[] memory wd =
            _one(address(vault), 0, abi.encodeCall(vault.withdraw, (40 ether)));
        _try(wd, _bound(address(dai), OutcomeBounds.HOLDING, holder, 40 ether, 0, 0), _noHeld(), "");
        _try(
            wd,
            _bound(address(dai), OutcomeBounds.HOLDING, holder, 40 ether - 1, 0, 0),
            _noHeld(),
            _outOfBounds(0, address(dai), 1000 ether, 960 ether)
        );
    }

    /// A third party's ETH: the faucet pays the account, its holdings fall by the payment.
    function test_Holding_Ether() public {
        EtherFaucet faucet = new EtherFaucet();
        vm.deal(address(faucet), 10 ether);
        IPaceAccount.Call[] memory pay =
            _one(address(faucet), 0, abi.encodeCall(faucet.pay, (3 ether)));
        uint256 holder = uint160(address(faucet));
        _try(pay, _bound(address(0), OutcomeBounds.HOLDING, holder, 3 ether, 0, 0), _noHeld(), "");
        _try(
            pay,
            _bound(address(0), OutcomeBounds.HOLDING, holder, 3 ether - 1, 0, 0),
            _noHeld(),
            _outOfBounds(0, address(0), 10 ether, 7 ether)
        );
    }

    /// The vault mints the shares as simulated, then sends everything it holds to a thief: the
    /// shares' own bound is met, the issuer's holdings are not.
    function test_Holding_CatchesAnIssuerThatEmptiesItselfAfterMinting() public {
        (RugVault vault, MockERC20 shares) = _vault();
        IPaceAccount.Call[] memory dep = _deposit(vault, 100 ether);
        IPaceAccount.Bound[] memory bounds = new IPaceAccount.Bound[](3);
        bounds[0] = _balanceBound(address(shares), 0, 100 ether);
        bounds[1] = _balanceBound(address(dai), 100 ether, 0);
        bounds[2] = IPaceAccount.Bound(
            address(dai), OutcomeBounds.HOLDING, uint160(address(vault)), 0, 99 ether, MAX
        );
        // Honest: the vault holds what was deposited on top of what it had.
        _try(dep, bounds, _noHeld(), "");

        vault.arm();
        _try(dep, bounds, _noHeld(), _outOfBounds(2, address(dai), 1000 ether, 0));

        // Without the holding bound the rug goes through: the shares arrived as signed.
        IPaceAccount.Bound[] memory sharesOnly = new IPaceAccount.Bound[](2);
        (sharesOnly[0], sharesOnly[1]) = (bounds[0], bounds[1]);
        _exec(dep, sharesOnly, _noHeld(), "");
        assertEq(dai.balanceOf(thief), 1100 ether);
    }

    /*//////////////////////////////////////////////////////////////
                                  HELD
    //////////////////////////////////////////////////////////////*/

    /// The account once approved a contract for USDC. A PDR calls it for something harmless
    /// (the simulation saw nothing move), and on chain it takes the USDC: held, the USDC may not
    /// fall, so the execution reverts.
    function test_Held_CatchesARedPillDrainThroughAStandingAllowance() public {
        RedPillTarget target = new RedPillTarget(usdc, thief);
        vm.prank(owner);
        account.execute(address(usdc), 0, abi.encodeCall(usdc.approve, (address(target), MAX)));
        IPaceAccount.Call[] memory calls = _one(address(target), 0, abi.encodeCall(target.poke, ()));
        address[] memory held = new address[](2);
        (held[0], held[1]) = (address(0), address(usdc));

        _try(calls, _noBounds(), held, ""); // the simulation's view
        target.arm();
        _try(calls, _noBounds(), held, _heldFell(1, address(usdc), 5000e6, 0));

        // Not held, it drains.
        _exec(calls, _noBounds(), _held(address(0)), "");
        assertEq(usdc.balanceOf(thief), 5000e6);
    }

    function test_Held_AllowsAnInflowAndNoChange() public {
        address[] memory held = new address[](3);
        (held[0], held[1], held[2]) = (address(0), address(usdc), address(dai));
        _exec(
            _one(address(dai), 0, abi.encodeCall(dai.mint, (address(account), 1))),
            _noBounds(),
            held,
            ""
        );
    }

    function test_Held_EtherOrATokenThatLeavesReverts() public {
        uint256 eth = address(account).balance;
        _try(
            _one(recipient, 1, ""),
            _noBounds(),
            _held(address(0)),
            _heldFell(0, address(0), eth, eth - 1)
        );
        uint256 bal = dai.balanceOf(address(account));
        _try(
            _one(address(dai), 0, _transferData(1)),
            _noBounds(),
            _held(address(dai)),
            _heldFell(0, address(dai), bal, bal - 1)
        );
    }

    /// A bound and a held entry on the same asset both apply.
    function test_ABoundAndAHeldEntryOnOneTokenBothApply() public {
        IPaceAccount.Call[] memory calls = _one(address(dai), 0, _transferData(1 ether));
        uint256 bal = dai.balanceOf(address(account));
        _try(
            calls,
            _bound(address(dai), 0, 0, 1 ether, 0, MAX),
            _held(address(dai)),
            _heldFell(0, address(dai), bal, bal - 1 ether)
        );
    }

    /*//////////////////////////////////////////////////////////////
                       UNKNOWN KINDS AND FAILED READS
    //////////////////////////////////////////////////////////////*/

    function test_RevertWhen_TheBoundKindIsUnknown() public {
        Recorder rec = new Recorder();
        IPaceAccount.Call[] memory calls = _one(address(rec), 0, abi.encodeCall(rec.record, ()));
        uint8[2] memory kinds = [uint8(6), 255];
        for (uint256 i; i < kinds.length; ++i) {
            IPaceAccount.Bound[] memory bounds = new IPaceAccount.Bound[](2);
            bounds[0] = _balanceBound(address(dai), 0, 0);
            bounds[1] = IPaceAccount.Bound(address(dai), kinds[i], 0, 0, 0, MAX);
            _try(
                calls,
                bounds,
                _noHeld(),
                abi.encodeWithSelector(
                    IPaceAccount.PaceAccountUnknownBoundKind.selector, 1, kinds[i]
                )
            );
        }
        assertEq(rec.calls(), 0);
    }

    function test_RevertWhen_AHoldingIdIsNoAddress() public {
        uint256 id = uint256(1) << 160;
        _try(
            _one(recipient, 0, ""),
            _bound(address(dai), OutcomeBounds.HOLDING, id, 0, 0, MAX),
            _noHeld(),
            abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidBoundHolder.selector, 0, id)
        );
    }

    /// No code, a revert, 16 bytes: each fails the execution closed, naming the entry, for
    /// every kind that reads a balance and for a held asset.
    function test_RevertWhen_AReadFails() public {
        BadReads bad = new BadReads();
        address noCode = makeAddr("no code");
        IPaceAccount.Call[] memory calls = _one(recipient, 0, "");
        address[2] memory tokens = [address(bad), noCode];
        uint8[3] memory kinds =
            [OutcomeBounds.BALANCE, OutcomeBounds.ERC1155, OutcomeBounds.HOLDING];
        for (uint256 mode = 1; mode <= 2; ++mode) {
            bad.setMode(mode);
            for (uint256 t; t < tokens.length; ++t) {
                for (uint256 k; k < kinds.length; ++k) {
                    IPaceAccount.Bound[] memory bounds = new IPaceAccount.Bound[](2);
                    bounds[0] = _balanceBound(address(0), 0, 0);
                    bounds[1] = IPaceAccount.Bound(tokens[t], kinds[k], 1, 0, 0, MAX);
                    _try(
                        calls,
                        bounds,
                        _noHeld(),
                        abi.encodeWithSelector(
                            IPaceAccount.PaceAccountUnreadableBound.selector, 1, tokens[t]
                        )
                    );
                }
                address[] memory held = new address[](2);
                (held[0], held[1]) = (address(0), tokens[t]);
                _try(
                    calls,
                    _noBounds(),
                    held,
                    abi.encodeWithSelector(
                        IPaceAccount.PaceAccountUnreadableHeld.selector, 1, tokens[t]
                    )
                );
            }
        }
        // ERC-1155 has no ETH: address(0) as its token is a failed read.
        _try(
            calls,
            _bound(address(0), OutcomeBounds.ERC1155, 1, 0, 0, MAX),
            _noHeld(),
            abi.encodeWithSelector(IPaceAccount.PaceAccountUnreadableBound.selector, 0, address(0))
        );
        // Answering, the same token reads fine.
        bad.setMode(0);
        _exec(
            calls, _bound(address(bad), OutcomeBounds.ERC1155, 1, 0, 0, 0), _held(address(bad)), ""
        );
    }

    /// A token that stops answering during the calls fails the check after them.
    function test_RevertWhen_AReadFailsAfterTheCalls() public {
        BadReads bad = new BadReads();
        IPaceAccount.Call[] memory calls = _one(address(bad), 0, abi.encodeCall(bad.breakReads, ()));
        _try(
            calls,
            _bound(address(bad), OutcomeBounds.BALANCE, 0, 0, 0, MAX),
            _noHeld(),
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountUnreadableBound.selector, 0, address(bad)
            )
        );
        _try(
            calls,
            _noBounds(),
            _held(address(bad)),
            abi.encodeWithSelector(IPaceAccount.PaceAccountUnreadableHeld.selector, 0, address(bad))
        );
    }

    /// ETH reads never fail: an account with no ETH holds and bounds it at 0.
    function test_EtherReadsNeverFail() public {
        vm.deal(address(account), 0);
        _exec(
            _one(recipient, 0, ""),
            _bound(address(0), OutcomeBounds.BALANCE, 0, 0, 0, 0),
            _held(address(0)),
            ""
        );
    }
}
