// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";

/// @title MockPermit2
/// @notice A Permit2-compatible allowance contract, written for this project from Permit2's public
///         interface and documented behaviour: the AllowanceTransfer half of Permit2 with the
///         same function, event and error signatures, the same EIP-712 domain and type strings,
///         and the same semantics, so the Universal Router and other Permit2 clients work with it
///         unchanged. It is NOT mainnet's Permit2 bytecode (no Permit2 bytecode ships in any
///         registry package) and has no SignatureTransfer half (`permitTransferFrom`,
///         `permitWitnessTransferFrom`, unordered nonces).
/// @dev What a Permit2 client relies on, as Permit2 defines it:
///      - `allowance[owner][token][spender]` is `(uint160 amount, uint48 expiration, uint48 nonce)`;
///        an amount of `type(uint160).max` is never decreased by a transfer;
///      - an expiration of 0 given to `approve` or in a permit is stored as `block.timestamp`
///        (usable in this block only); a transfer reverts `AllowanceExpired` once
///        `block.timestamp > expiration`;
///      - `approve` keeps the nonce; a permit needs the stored nonce and stores nonce + 1;
///      - EIP-712 domain `EIP712Domain(string name,uint256 chainId,address verifyingContract)`,
///        name "Permit2", no version; the separator is recomputed if the chain id changes;
///      - signatures: 65 bytes `(r, s, v)` or 64 bytes EIP-2098 `(r, vs)` from an account
///        without code (plain `ecrecover`: no low-s rule), EIP-1271 `isValidSignature` from a
///        contract;
///      - tokens move with a call to `transferFrom(from, to, amount)` that must not revert and
///        must return nothing or `true`; like Permit2's solmate transfer it does not check that
///        the token has code, so a "transfer" of an address without code succeeds.
contract MockPermit2 {
    /*//////////////////////////////////////////////////////////////
                                 TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice The permit data for one token.
    struct PermitDetails {
        address token;
        uint160 amount;
        uint48 expiration;
        uint48 nonce;
    }

    /// @notice A signed allowance for one token.
    struct PermitSingle {
        PermitDetails details;
        address spender;
        uint256 sigDeadline;
    }

    /// @notice A signed allowance for several tokens, one spender.
    struct PermitBatch {
        PermitDetails[] details;
        address spender;
        uint256 sigDeadline;
    }

    /// @notice One stored allowance.
    struct PackedAllowance {
        uint160 amount;
        uint48 expiration;
        uint48 nonce;
    }

    /// @notice A (token, spender) pair for `lockdown`.
    struct TokenSpenderPair {
        address token;
        address spender;
    }

    /// @notice One transfer of a batch `transferFrom`.
    struct AllowanceTransferDetails {
        address from;
        address to;
        uint160 amount;
        address token;
    }

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The allowance expired at `deadline`.
    error AllowanceExpired(uint256 deadline);
    /// @notice The allowance (`amount`) is smaller than the transfer.
    error InsufficientAllowance(uint256 amount);
    /// @notice `invalidateNonces` would skip more than 65,535 nonces.
    error ExcessiveInvalidation();
    /// @notice The permit's signature deadline `signatureDeadline` has passed.
    error SignatureExpired(uint256 signatureDeadline);
    /// @notice The permit's nonce is not the stored one, or `invalidateNonces` does not raise it.
    error InvalidNonce();
    /// @notice A signature from an account without code is neither 64 nor 65 bytes long.
    error InvalidSignatureLength();
    /// @notice `ecrecover` returned the zero address.
    error InvalidSignature();
    /// @notice The signature recovers to another address than the owner.
    error InvalidSigner();
    /// @notice The owner is a contract and did not accept the signature (EIP-1271).
    error InvalidContractSignature();

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice `owner` set `spender`'s allowance of `token` with `approve`.
    /// @param owner The token owner.
    /// @param token The token.
    /// @param spender Who may transfer.
    /// @param amount The allowance.
    /// @param expiration The expiration as given (0: this block).
    event Approval(
        address indexed owner,
        address indexed token,
        address indexed spender,
        uint160 amount,
        uint48 expiration
    );
    /// @notice A signed permit set `spender`'s allowance of `token`.
    /// @param owner The token owner who signed.
    /// @param token The token.
    /// @param spender Who may transfer.
    /// @param amount The allowance.
    /// @param expiration The expiration as signed (0: this block).
    /// @param nonce The nonce the permit used.
    event Permit(
        address indexed owner,
        address indexed token,
        address indexed spender,
        uint160 amount,
        uint48 expiration,
        uint48 nonce
    );
    /// @notice `owner` zeroed `spender`'s allowance of `token`.
    /// @param owner The token owner.
    /// @param token The token.
    /// @param spender The spender locked out.
    event Lockdown(address indexed owner, address token, address spender);
    /// @notice `owner` raised the nonce of (`token`, `spender`), voiding unused permits.
    /// @param owner The token owner.
    /// @param token The token.
    /// @param spender The spender.
    /// @param newNonce The stored nonce after.
    /// @param oldNonce The stored nonce before.
    event NonceInvalidation(
        address indexed owner,
        address indexed token,
        address indexed spender,
        uint48 newNonce,
        uint48 oldNonce
    );

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice EIP-712 type hash of `PermitDetails`.
    bytes32 internal constant PERMIT_DETAILS_TYPEHASH =
        keccak256("PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)");
    /// @notice EIP-712 type hash of `PermitSingle`.
    bytes32 internal constant PERMIT_SINGLE_TYPEHASH = keccak256(
        "PermitSingle(PermitDetails details,address spender,uint256 sigDeadline)PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)"
    );
    /// @notice EIP-712 type hash of `PermitBatch`.
    bytes32 internal constant PERMIT_BATCH_TYPEHASH = keccak256(
        "PermitBatch(PermitDetails[] details,address spender,uint256 sigDeadline)PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)"
    );
    /// @notice EIP-712 type hash of the domain (no version field).
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    /// @notice Hash of the domain name "Permit2".
    bytes32 internal constant HASHED_NAME = keccak256("Permit2");

    /// @notice The chain id the cached separator was built for.
    uint256 internal immutable CACHED_CHAIN_ID;
    /// @notice The separator on `CACHED_CHAIN_ID`.
    bytes32 internal immutable CACHED_DOMAIN_SEPARATOR;

    /// @notice `allowance[owner][token][spender]`: amount, expiration and nonce.
    mapping(
        address owner => mapping(address token => mapping(address spender => PackedAllowance))
    ) public allowance;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    constructor() {
        CACHED_CHAIN_ID = block.chainid;
        CACHED_DOMAIN_SEPARATOR = _buildDomainSeparator();
    }

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice The EIP-712 domain separator of this contract on the current chain.
    /// @return The separator.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return block.chainid == CACHED_CHAIN_ID ? CACHED_DOMAIN_SEPARATOR : _buildDomainSeparator();
    }

    /// @notice Sets `spender`'s allowance of the caller's `token`, keeping the nonce.
    /// @param token The token.
    /// @param spender Who may transfer.
    /// @param amount The allowance (`type(uint160).max`: never decreased).
    /// @param expiration When it expires (0: at the end of this block's timestamp).
    function approve(address token, address spender, uint160 amount, uint48 expiration) external {
        PackedAllowance storage allowed = allowance[msg.sender][token][spender];
        allowed.amount = amount;
        allowed.expiration = _stored(expiration);
        emit Approval(msg.sender, token, spender, amount, expiration);
    }

    /// @notice Sets an allowance signed by `owner`.
    /// @param owner The signer and token owner.
    /// @param permitSingle What was signed.
    /// @param signature The signature (65 or 64 bytes, or EIP-1271 data for a contract owner).
    function permit(address owner, PermitSingle memory permitSingle, bytes calldata signature)
        external
    {
        if (block.timestamp > permitSingle.sigDeadline) {
            revert SignatureExpired(permitSingle.sigDeadline);
        }
        _verify(signature, _digest(_hashSingle(permitSingle)), owner);
        _updateApproval(permitSingle.details, owner, permitSingle.spender);
    }

    /// @notice Sets allowances of several tokens for one spender, signed by `owner`.
    /// @param owner The signer and token owner.
    /// @param permitBatch What was signed.
    /// @param signature The signature (65 or 64 bytes, or EIP-1271 data for a contract owner).
    function permit(address owner, PermitBatch memory permitBatch, bytes calldata signature)
        external
    {
        if (block.timestamp > permitBatch.sigDeadline) {
            revert SignatureExpired(permitBatch.sigDeadline);
        }
        _verify(signature, _digest(_hashBatch(permitBatch)), owner);
        uint256 length = permitBatch.details.length;
        for (uint256 i = 0; i < length; ++i) {
            _updateApproval(permitBatch.details[i], owner, permitBatch.spender);
        }
    }

    /// @notice Moves `amount` of `token` from `from` to `to` against the caller's allowance.
    /// @param from The owner.
    /// @param to The recipient.
    /// @param amount How much.
    /// @param token The token.
    function transferFrom(address from, address to, uint160 amount, address token) external {
        _transfer(from, to, amount, token);
    }

    /// @notice Several `transferFrom`s, each against the caller's allowance from its owner.
    /// @param transferDetails The transfers.
    function transferFrom(AllowanceTransferDetails[] calldata transferDetails) external {
        uint256 length = transferDetails.length;
        for (uint256 i = 0; i < length; ++i) {
            AllowanceTransferDetails calldata d = transferDetails[i];
            _transfer(d.from, d.to, d.amount, d.token);
        }
    }

    /// @notice Zeroes the amount of each (token, spender) allowance of the caller.
    /// @param approvals The pairs.
    function lockdown(TokenSpenderPair[] calldata approvals) external {
        uint256 length = approvals.length;
        for (uint256 i = 0; i < length; ++i) {
            address token = approvals[i].token;
            address spender = approvals[i].spender;
            allowance[msg.sender][token][spender].amount = 0;
            emit Lockdown(msg.sender, token, spender);
        }
    }

    /// @notice Raises the caller's nonce of (`token`, `spender`) to `newNonce`, voiding every
    ///         unused permit below it; at most 65,535 at once.
    /// @param token The token.
    /// @param spender The spender.
    /// @param newNonce The new nonce.
    function invalidateNonces(address token, address spender, uint48 newNonce) external {
        uint48 oldNonce = allowance[msg.sender][token][spender].nonce;
        if (newNonce <= oldNonce) revert InvalidNonce();
        if (newNonce - oldNonce > type(uint16).max) revert ExcessiveInvalidation();
        allowance[msg.sender][token][spender].nonce = newNonce;
        emit NonceInvalidation(msg.sender, token, spender, newNonce, oldNonce);
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _updateApproval(PermitDetails memory details, address owner, address spender) private {
        PackedAllowance storage allowed = allowance[owner][details.token][spender];
        if (allowed.nonce != details.nonce) revert InvalidNonce();
        allowed.amount = details.amount;
        allowed.expiration = _stored(details.expiration);
        unchecked {
            allowed.nonce = details.nonce + 1;
        }
        emit Permit(
            owner, details.token, spender, details.amount, details.expiration, details.nonce
        );
    }

    function _transfer(address from, address to, uint160 amount, address token) private {
        PackedAllowance storage allowed = allowance[from][token][msg.sender];
        if (block.timestamp > allowed.expiration) revert AllowanceExpired(allowed.expiration);
        uint160 maxAmount = allowed.amount;
        if (maxAmount != type(uint160).max) {
            if (amount > maxAmount) revert InsufficientAllowance(maxAmount);
            unchecked {
                allowed.amount = maxAmount - amount;
            }
        }
        _safeTransferFrom(token, from, to, amount);
    }

    /// @dev Like solmate's `safeTransferFrom`, which Permit2 uses: the call must succeed and
    ///      return nothing or `true`; the token's code is not checked.
    function _safeTransferFrom(address token, address from, address to, uint256 amount) private {
        (bool ok, bytes memory ret) =
            token.call(abi.encodeWithSelector(0x23b872dd, from, to, amount));
        bool returnedTrue = ret.length > 31 && abi.decode(ret, (uint256)) == 1;
        require(ok && (ret.length == 0 || returnedTrue), "TRANSFER_FROM_FAILED");
    }

    function _stored(uint48 expiration) private view returns (uint48) {
        return expiration == 0 ? uint48(block.timestamp) : expiration;
    }

    function _verify(bytes calldata signature, bytes32 digest, address claimedSigner) private view {
        if (claimedSigner.code.length == 0) {
            bytes32 r;
            bytes32 s;
            uint8 v;
            if (signature.length == 65) {
                (r, s) = abi.decode(signature, (bytes32, bytes32));
                v = uint8(signature[64]);
            } else if (signature.length == 64) {
                bytes32 vs;
                (r, vs) = abi.decode(signature, (bytes32, bytes32));
                s = vs & bytes32(uint256(type(uint256).max >> 1));
                v = uint8(uint256(vs >> 255)) + 27;
            } else {
                revert InvalidSignatureLength();
            }
            address signer = ecrecover(digest, v, r, s);
            if (signer == address(0)) revert InvalidSignature();
            if (signer != claimedSigner) revert InvalidSigner();
        } else {
            bytes4 magic = IERC1271(claimedSigner).isValidSignature(digest, signature);
            if (magic != IERC1271.isValidSignature.selector) revert InvalidContractSignature();
        }
    }

    function _digest(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
    }

    function _hashDetails(PermitDetails memory details) private pure returns (bytes32) {
        return keccak256(
            abi.encode(
                PERMIT_DETAILS_TYPEHASH,
                details.token,
                details.amount,
                details.expiration,
                details.nonce
            )
        );
    }

    function _hashSingle(PermitSingle memory p) private pure returns (bytes32) {
        return keccak256(
            abi.encode(PERMIT_SINGLE_TYPEHASH, _hashDetails(p.details), p.spender, p.sigDeadline)
        );
    }

    function _hashBatch(PermitBatch memory p) private pure returns (bytes32) {
        uint256 length = p.details.length;
        bytes32[] memory hashes = new bytes32[](length);
        for (uint256 i = 0; i < length; ++i) {
            hashes[i] = _hashDetails(p.details[i]);
        }
        return keccak256(
            abi.encode(
                PERMIT_BATCH_TYPEHASH, keccak256(abi.encodePacked(hashes)), p.spender, p.sigDeadline
            )
        );
    }

    function _buildDomainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, HASHED_NAME, block.chainid, address(this)));
    }
}
