// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

// This NatSpec is also the Rust bindings' documentation (`crates/abi/src/bindings.rs` reads the
// file with `sol!`), read as Markdown: an indented paragraph after a blank `///` line would be a
// code block, compiled as a doctest. Continue paragraphs without the blank line.

/// @title IPaceAccount
/// @notice Types, errors and events of the PACE smart account. The account executes a call, or an
///         atomic batch, only under a Policy Decision Record (PDR) signed over EIP-712 typed data by
///         the configured verifier key; the owner keeps a raw path for recovery and administration.
/// @dev    The signed struct (EIP-712 domain "PaceAccount", version "3") is
///         `Pdr(Attestation attestation,Call[] calls,Bound[] bounds,address[] held,Check[] checks,
///         uint256 nonce,uint40 validAfter,uint40 validUntil,uint48 simulationBlock,
///         uint16 maxSimulationAge,uint16 callGasKib)` with
///         `Attestation(bytes32 policyHash,bytes32 intentHash,bytes32 simulationHash)`,
///         `Bound(address token,uint8 kind,uint256 id,uint256 maxOut,uint256 minIn,uint256 maxIn)`,
///         `Call(address target,uint256 value,bytes data)` and
///         `Check(address target,bytes data,uint16 word,uint8 relation,uint256 lo,uint256 hi)`.
///         See `PdrHash` for the hashing, `OutcomeBounds` for what a bound measures,
///         `PostConditions` for what a check reads, and `crates/types/src/pdr.rs` for the one
///         Rust definition both sides are tested against.
///         On-chain a PDR arrives as two words besides its calls, bounds, held assets, checks
///         and signature (fewer calldata bytes, fewer gas): `attestation`, the EIP-712 `hashStruct`
///         of the Attestation, and `terms`, every scalar field packed into one word (see
///         `PdrTerms`). Signatures are EIP-2098 compact `(r, vs)`.
interface IPaceAccount {
    /// @notice One external call: target, ETH value and calldata.
    struct Call {
        address target;
        uint256 value;
        bytes data;
    }

    /// @notice An outcome bound: a quantity `q` the account reads before the calls and after
    ///         them, and the change it allows. `kind` says what `q` is (`OutcomeBounds`):
    ///         - 0, BALANCE: the account's balance of the ERC-20 `token`, or of ETH for
    ///           address(0); `id` is unused (signed as 0);
    ///         - 1, ERC721: 1 if the ERC-721 `token`'s `ownerOf(id)` is the account, else 0 (an
    ///           `ownerOf` that reverts or returns malformed data counts as 0; one that runs out
    ///           of gas is a failed read);
    ///         - 2, ERC1155: the account's balance of id `id` of the ERC-1155 `token`;
    ///         - 3, HOLDING: the balance of `token` (ETH for address(0)) held by a third party,
    ///           `address(uint160(id))`: the issuer of an asset the account receives (a vault
    ///           share, a cToken, an LP token), to show the underlying is still there.
    ///         When `q` rose, the rise must be at least `minIn` and at most `maxIn`
    ///         (`type(uint256).max`: no cap; a debt token gets a finite one). When it fell, the
    ///         fall must be at most `maxOut`, and `minIn` must be 0 (a positive `minIn` forbids
    ///         any fall).
    struct Bound {
        address token;
        uint8 kind;
        uint256 id;
        uint256 maxOut;
        uint256 minIn;
        uint256 maxIn;
    }

    /// @notice A post-condition: after the calls the account static-calls `target` with `data`
    ///         and reads word `word` of the answer (`q`; bytes `32 * word` to `32 * word + 32`).
    ///         `relation` says what `q` must satisfy (`PostConditions`):
    ///         - 0, WITHIN: `lo <= q <= hi`;
    ///         - 1, KEPT: with `b` the same read before the calls, `b - lo <= q <= b + hi`
    ///           (saturating: at least 0, at most `type(uint256).max`).
    ///         A fact the decision rested on that the execution can change (what a received share
    ///         is worth, say) is signed as one, so a contract that changes it only at execution
    ///         reverts the PDR. A read that reverts, runs out of gas or answers fewer than
    ///         `word + 1` words reverts the PDR too; any other `relation` is refused before any
    ///         call.
    struct Check {
        address target;
        bytes data;
        uint16 word;
        uint8 relation;
        uint256 lo;
        uint256 hi;
    }

    /// @notice An ERC-20 allowance of the account: `token` and the `spender` it lets pull.
    struct Allowance {
        address token;
        address spender;
    }

    /// @notice A right of the account to revoke (`revokeRights`). `kind`:
    ///         - 0, ERC-20 allowance: `target.approve(spender, 0)` (`token` unused);
    ///         - 1, Permit2 allowance: `target.lockdown([(token, spender)])`, `target` the
    ///           Permit2 contract;
    ///         - 2, operator: `target.setApprovalForAll(spender, false)` (ERC-721 / ERC-1155);
    ///         - 3, credit delegation: `target.approveDelegation(spender, 0)`, `target` a debt
    ///           token (`token` unused).
    struct Right {
        uint8 kind;
        address target;
        address token;
        address spender;
    }

    /// @notice An ERC-4337 v0.8 user operation, as the EntryPoint passes it (field for field
    ///         `PackedUserOperation`). A PDR user operation has `callData` =
    ///         `executeUserOpPdr(calls, bounds, held, checks, terms)` (the batch and the PDR's packed
    ///         terms, which execution needs), `nonce` = the PDR's `key << 64 | sequence`, and
    ///         `signature` = `abi.encode(attestation, r, vs)` over the PDR digest in the domain
    ///         salted with the user operation's hash. An owner user operation has a 65-byte
    ///         ECDSA signature of the hash by the owner, any `callData` but
    ///         `executeUserOpPdr`, and a `nonce` whose EntryPoint key (`nonce >> 64`) is at least
    ///         2^32: the keys below are the PDR lanes (a PDR's key is a `uint32`), so owner and
    ///         PDR operations never spend each other's nonces.
    struct PackedUserOperation {
        address sender;
        uint256 nonce;
        bytes initCode;
        bytes callData;
        bytes32 accountGasLimits;
        uint256 preVerificationGas;
        bytes32 gasFees;
        bytes paymasterAndData;
        bytes signature;
    }

    /// @notice The caller is not the owner.
    error PaceAccountNotOwner(address caller);
    /// @notice PDR execution is paused by the owner.
    error PaceAccountPaused();
    /// @notice The signature does not recover to the verifier. Any change to a signed field
    ///         (target, value, calldata, bounds, held assets, terms, chain id, account) lands
    ///         here.
    error PaceAccountInvalidSigner(address recovered);
    /// @notice The nonce's sequence is not the next one of its lane (replayed or out of order).
    error PaceAccountInvalidNonce(uint32 key, uint64 expected, uint64 got);
    /// @notice The PDR is not valid yet.
    error PaceAccountNotYetValid(uint40 validAfter, uint256 timestamp);
    /// @notice The PDR has expired.
    error PaceAccountExpired(uint40 validUntil, uint256 timestamp);
    /// @notice The simulated state is too many blocks old.
    error PaceAccountStaleSimulation(
        uint64 simulationBlock, uint16 maxSimulationAge, uint256 blockNumber
    );
    /// @notice The simulation claims a block that has not been produced yet.
    error PaceAccountSimulationInFuture(uint64 simulationBlock, uint256 blockNumber);
    /// @notice A batch must contain at least one call.
    error PaceAccountEmptyBatch();
    /// @notice A call of the execution reverted; `reason` is its revert data.
    error PaceAccountCallFailed(uint256 index, bytes reason);
    /// @notice Bound `index` (on `token`) measured `quantityBefore` before the calls and
    ///         `quantityAfter` after them: a change outside what it allows.
    error PaceAccountOutcomeOutOfBounds(
        uint256 index, address token, uint256 quantityBefore, uint256 quantityAfter
    );
    /// @notice The account's balance of held asset `index` (`token`, address(0) = ETH) fell.
    error PaceAccountHeldBalanceFell(
        uint256 index, address token, uint256 balanceBefore, uint256 balanceAfter
    );
    /// @notice Bound `index` has a `kind` the account does not know (0 to 5 are known). Raised
    ///         once the signature is checked, before any call of the PDR.
    error PaceAccountUnknownBoundKind(uint256 index, uint256 kind);
    /// @notice `UNGRANTED` bound `index` relied on grant-filter bits `bits` being clear, and
    ///         they are set: a right may now reach an asset the PDR left unread. Raised before
    ///         any call of the PDR.
    error PaceAccountGrantRecorded(uint256 index, uint256 bits);
    /// @notice HOLDING bound `index` names a holder `id` wider than 160 bits: no address.
    error PaceAccountInvalidBoundHolder(uint256 index, uint256 id);
    /// @notice Bound `index` could not read its quantity from `token`: no code, a revert or
    ///         fewer than 32 bytes returned (an ERC-721 `ownerOf`: out of gas). The execution
    ///         fails closed.
    error PaceAccountUnreadableBound(uint256 index, address token);
    /// @notice Held asset `index` could not be read from `token`: no code, a revert or fewer
    ///         than 32 bytes returned. The execution fails closed.
    error PaceAccountUnreadableHeld(uint256 index, address token);
    /// @notice Post-condition `index` (a static call to `target`) answered `quantityAfter` after
    ///         the calls, outside its signed range: a fact the decision relied on changed at
    ///         execution. `quantityBefore` is the same read before the calls for a KEPT check, 0
    ///         for a WITHIN one.
    error PaceAccountCheckFailed(
        uint256 index, address target, uint256 quantityBefore, uint256 quantityAfter
    );
    /// @notice Post-condition `index` could not read its answer from `target`: the static call
    ///         reverted, ran out of gas, or returned fewer than `word + 1` words (no code
    ///         returns none). The execution fails closed.
    error PaceAccountUnreadableCheck(uint256 index, address target);
    /// @notice Post-condition `index` has a `relation` the account does not know (0 and 1 are
    ///         known). Raised once the signature is checked, before any call of the PDR.
    error PaceAccountUnknownCheckRelation(uint256 index, uint256 relation);
    /// @notice A PDR execution tried to start inside another PDR execution (either path).
    error PaceAccountReentrant();
    /// @notice The verifier cannot be the zero address.
    error PaceAccountZeroVerifier();
    /// @notice The PDR executions of this period moved more of `token` out than its budget.
    error PaceAccountBudgetExceeded(address token, uint256 spent, uint256 limit);
    /// @notice With spending budgets on, PDRs go through `executeBatchPDR`, which measures them.
    error PaceAccountBudgetRequiresBatch();
    /// @notice A PDR of an account with spending budgets signs a hash (`approveHash`): a signed
    ///         permit would move a budgeted token unmetered.
    error PaceAccountBudgetedSignature();
    /// @notice At most eight tokens can have a budget.
    error PaceAccountTooManyBudgets();
    /// @notice A lane can only be moved forward.
    error PaceAccountNonceNotIncreasing(uint32 key, uint64 current, uint64 requested);
    /// @notice The submission left a call less gas than the PDR's signed floor: `required` is
    ///         what the call had to start with (in a batch, the floor less what the calls before
    ///         it used), `available` what it would have got.
    error PaceAccountInsufficientGas(uint256 required, uint256 available);
    /// @notice With budgets on, a PDR called a budgeted token with a function the metering
    ///         cannot see through (only transfers and allowance changes are allowed).
    error PaceAccountBudgetedTokenCall(address token, bytes4 selector);
    /// @notice A budgeted token did not answer `allowance` while its budget was being charged.
    error PaceAccountUnreadableToken(address token);
    /// @notice The owner cannot be the zero address or the account itself.
    error PaceAccountInvalidOwner(address owner);
    /// @notice Call `index` of a PDR targets the account itself: PDRs call out only, except one
    ///         `IPaceSignatures.approveHash` without value of a hash other than 0 and 1.
    error PaceAccountSelfCall(uint256 index);
    /// @notice Nonce lane `key` is retired (`cancelNonces(key, type(uint64).max)`): no PDR can
    ///         execute on it again.
    error PaceAccountLaneRetired(uint32 key);
    /// @notice Call `index` is an ERC-20 `transfer`, `transferFrom` or `approve` that returned
    ///         false (32 bytes or more of return data whose first word is 0). A call that returns
    ///         nothing (USDT-style tokens) succeeds.
    error PaceAccountCallReturnedFalse(uint256 index);
    /// @notice Only the EntryPoint calls `validateUserOp` and `executeUserOpPdr`.
    error PaceAccountNotEntryPoint(address caller);
    /// @notice The account's code runs at an address that is not the account's own (an
    ///         EIP-7702 delegation to a standalone account): refused.
    error PaceAccountNotHome(address home);
    /// @notice Call `index` of a PDR targets the EntryPoint, which holds the account's deposit.
    error PaceAccountEntryPointCall(uint256 index);

    /// @notice A PDR was executed. `digest` is the EIP-712 digest the verifier signed; it names
    ///         the off-chain record (intent, policy, simulation, decision) and its nonce. On the
    ///         EntryPoint path it is the user operation's hash, from which that digest's domain
    ///         is derived.
    event PdrExecuted(bytes32 indexed digest);
    /// @notice The owner executed a raw call.
    event OwnerExecuted(address indexed target, uint256 value);
    /// @notice The owner rotated the verifier key.
    event VerifierRotated(address indexed previous, address indexed current);
    /// @notice The owner paused or resumed PDR execution.
    event PauseSet(bool paused);
    /// @notice The owner set (or, with `period` 0, removed) the spending budget of `token`.
    event BudgetSet(address indexed token, uint128 limit, uint64 period);
    /// @notice The owner moved a nonce lane forward, cancelling the PDRs below `sequence`.
    event NoncesCancelled(uint32 indexed key, uint64 sequence);
    /// @notice The owner declared the grant filter (`setGrantFilter`).
    event GrantFilterSet(uint16 filter);
    /// @notice A PDR execution charged `amount` of `token` to its budget; `spent` is the total of
    ///         the period that started at `windowStart`, this charge included.
    event BudgetCharged(address indexed token, uint256 amount, uint256 spent, uint64 windowStart);
    /// @notice The owner set the account's allowance of `token` for `spender` to 0.
    event AllowanceRevoked(address indexed token, address indexed spender);
    /// @notice A PDR call granted (or changed) a right of the account: `target` was called with
    ///         `selector` (`approve`, `increaseAllowance`, `increaseApproval`,
    ///         `setApprovalForAll`, `approveDelegation`, or Permit2's `approve`, whose `token`
    ///         is its first argument; for the others `token` is `target`) naming `spender`.
    ///         The account's own record of what to revoke: a token's `Approval` logs can be
    ///         spoofed, these cannot. A grant made by the account's signature
    ///         (`IPaceSignatures.approveHash`: a Permit2 or EIP-2612 permit) is not recorded here:
    ///         `IPaceSignatures` says what it leaves behind and where it is announced.
    event RightGranted(
        address indexed target, address indexed spender, bytes4 selector, address token
    );
    /// @notice The owner revoked a right (`revokeRights`).
    event RightRevoked(
        uint8 kind, address indexed target, address indexed token, address indexed spender
    );
    /// @notice Revocation `index` failed (no code, an allowance the target does not keep, a
    ///         revert, false returned or an unknown kind); the others went ahead.
    event RevocationFailed(uint256 index, address indexed target, address indexed spender);

    /// @notice Executes one call under a PDR with no outcome bounds, no held assets and no
    ///         post-conditions (its digest hashes the three empty arrays), and returns its
    ///         result.
    function executePDR(
        address target,
        uint256 value,
        bytes calldata data,
        bytes32 attestation,
        uint256 terms,
        bytes32 r,
        bytes32 vs
    ) external payable returns (bytes memory result);

    /// @notice Executes an atomic batch under a PDR and enforces its outcome bounds, for
    ///         every asset of `held` (ERC-20 tokens, address(0) for ETH) that the account's
    ///         balance did not fall, and then every post-condition of `checks`.
    function executeBatchPDR(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        Check[] calldata checks,
        bytes32 attestation,
        uint256 terms,
        bytes32 r,
        bytes32 vs
    ) external payable;

    // The owner path and the views: with the two functions above, the account's whole external
    // interface. The Rust bindings (`crates/abi/src/bindings.rs`) are generated from this file.

    /// @notice Owner-only raw call, for recovery and administration.
    function execute(address target, uint256 value, bytes calldata data)
        external
        payable
        returns (bytes memory result);

    /// @notice Owner-only raw atomic batch.
    function executeBatch(Call[] calldata calls) external payable;

    /// @notice Rotates the verifier key. PDRs signed by the previous key stop being accepted.
    function setVerifier(address verifier_) external;

    /// @notice Pauses or resumes PDR execution. The owner path stays open.
    function setPaused(bool paused_) external;

    /// @notice Sets the spending budget of `token` (address(0) = ETH): PDR executions may move at
    ///         most `limit` of it out of the account per `period` seconds, in total. A `period`
    ///         of 0 removes the budget.
    function setBudget(address token, uint128 limit, uint64 period) external;

    /// @notice Sets each listed allowance of the account to 0 (`token.approve(spender, 0)`),
    ///         each on its own: a pair that fails is reported (`RevocationFailed`) and counted in
    ///         `failed`, and the others are revoked anyway. A token that answers no
    ///         `allowance(account, spender)` fails with nothing sent: an ERC-721 collection takes
    ///         `approve(spender, 0)` as the approval of item 0.
    function revokeAllowances(Allowance[] calldata allowances) external returns (uint256 failed);

    /// @notice Revokes each listed right of the account (`Right`), each on its own, like
    ///         `revokeAllowances`.
    function revokeRights(Right[] calldata rights) external returns (uint256 failed);

    /// @notice ERC-4337 validation, called by the EntryPoint only. Returns
    ///         `SIG_VALIDATION_FAILED` (1) for a bad signature, a PDR on a paused account, a
    ///         nonce below its lane's floor, a call data that is no PDR batch or an owner
    ///         operation on a nonce key below 2^32, never reverting on them, and otherwise the PDR's window (`validUntil << 160 |
    ///         (validAfter - 1) << 208`: the EntryPoint's start is exclusive, the PDR's
    ///         inclusive). Reads no TIMESTAMP, NUMBER or BALANCE (ERC-7562).
    ///         Only an owner user operation pays `missingAccountFunds` from the account's ether
    ///         (the owner's key signed its gas terms). A PDR user operation pays nothing: its
    ///         gas comes from the account's EntryPoint deposit, which only the owner funds and
    ///         withdraws, or from a paymaster, and the EntryPoint refuses it (AA21) when the
    ///         deposit falls short. The verifier's key signs a PDR's gas terms and fees, the
    ///         bundler names the beneficiary: what they can burn is the deposit, never the
    ///         account's ether.
    function validateUserOp(
        PackedUserOperation calldata userOp,
        bytes32 userOpHash,
        uint256 missingAccountFunds
    ) external returns (uint256 validationData);

    /// @notice Runs a PDR user operation's batch, called by the EntryPoint only, and only for a
    ///         user operation `validateUserOp` accepted as a PDR (an owner user operation with
    ///         this call data fails validation): the pause flag, the lane's floor again, the
    ///         simulation's freshness, the gas floor, outcome bounds, post-conditions and
    ///         budgets, as `executeBatchPDR`. It moves the account's lane `key` to `sequence + 1`, as a direct
    ///         execution does: one lane per key on both paths, so a (lane, sequence) runs at most
    ///         once whichever path carries it. The EntryPoint's `UserOperationEvent` is its
    ///         record.
    function executeUserOpPdr(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        Check[] calldata checks,
        uint256 terms
    ) external;

    /// @notice The ERC-4337 EntryPoint v0.8 the account trusts.
    function entryPoint() external pure returns (address);

    /// @notice Accepts ERC-721 safe transfers (pure: also while the lock is held).
    function onERC721Received(address operator, address from, uint256 id, bytes calldata data)
        external
        pure
        returns (bytes4);

    /// @notice Accepts ERC-1155 transfers (pure: also while the lock is held).
    function onERC1155Received(
        address operator,
        address from,
        uint256 id,
        uint256 amount,
        bytes calldata data
    ) external pure returns (bytes4);

    /// @notice Accepts ERC-1155 batch transfers (pure: also while the lock is held).
    function onERC1155BatchReceived(
        address operator,
        address from,
        uint256[] calldata ids,
        uint256[] calldata amounts,
        bytes calldata data
    ) external pure returns (bytes4);

    /// @notice ERC-1271: `0x1626ba7e` only for the hash the running PDR signed with
    ///         `IPaceSignatures.approveHash`, while that PDR runs; `0xffffffff` otherwise. No key
    ///         signs for the account, the owner's included, and the signature bytes are ignored.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);

    /// @notice ERC-165: the receiver hooks, ERC-4337's `IAccount` and ERC-165 itself.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool);

    /// @notice The EntryPoint path's EIP-712 domain separator for user operation `userOpHash`.
    function userOpDomainSeparator(bytes32 userOpHash) external view returns (bytes32);

    /// @notice Moves nonce lane `key` forward to `sequence`, cancelling every signed PDR below it.
    function cancelNonces(uint32 key, uint64 sequence) external;

    /// @notice Sets the grant filter (`grantFilter`): the owner declares that no right the
    ///         account granted reaches a token whose bit is clear. Owner only.
    function setGrantFilter(uint16 filter) external;

    /// @notice The owner: raw execution and administration.
    function owner() external view returns (address);

    /// @notice The key that signs PDRs.
    function verifier() external view returns (address);

    /// @notice Whether PDR execution is paused.
    function paused() external view returns (bool);

    /// @notice The budget of `token` and its current period (all zero when it has none).
    function budget(address token)
        external
        view
        returns (uint128 limit, uint64 period, uint64 windowStart, uint128 spent);

    /// @notice The tokens that have a budget.
    function budgetTokens() external view returns (address[] memory);

    /// @notice The next sequence number of nonce lane `key`: one past the last sequence a PDR
    ///         executed on it through either path, or the owner's cancel floor.
    function nextSequence(uint32 key) external view returns (uint64);

    /// @notice The grant filter: bit `a & 15` is set once a PDR of the account has called an
    ///         address `a` in a way that may have left a right behind (anything but an ERC-20
    ///         `transfer`; Permit2's `approve` sets its token's bit too, a signature every bit,
    ///         a `GRANTED` bound its token's); an owner's raw call sets every bit (but a
    ///         `transfer`), until the owner declares the filter again (`setGrantFilter`). A token whose bit is clear has no
    ///         right over the account's balance that the account granted, and a PDR may leave
    ///         it unread, under an `UNGRANTED` bound. All bits read as set where the account
    ///         keeps none (an EIP-7702 EOA, a Safe's module).
    function grantFilter() external view returns (uint16);

    /// @notice The EIP-712 domain separator (name "PaceAccount", version "3").
    function domainSeparator() external view returns (bytes32);

    /// @notice The digest the verifier signs for `calls`, `bounds`, `held`, `checks`,
    ///         `attestation` and `terms`.
    function pdrDigest(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        Check[] calldata checks,
        bytes32 attestation,
        uint256 terms
    ) external view returns (bytes32);
}
