// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// Written for this project from attestations/eip712.py: checks on chain the EIP-712 TrustScoreAttestation
/// the registry signs for every rated score (GET /api/v1/agents/{subjectId}/trust-score/attestation).
///
/// The typed data is the registry's, field for field:
///   EIP712Domain(string name,string version,uint256 chainId)         name "TrustRegistry", version "1"
///   TrustScoreAttestation(string agentId,uint256 score,bytes32 trustScoresDigest,uint256 configVersion,
///                         bytes32 inputsDigest,uint256 issuedAt,uint256 expiresAt)
/// The domain's chainId is the registry's ATTESTATION_CHAIN_ID (8453 by default), not necessarily the chain
/// this contract runs on: the attestation is an off-chain statement, so one signed document is checked the
/// same way on every chain. The domain has no verifyingContract, as the registry signs none.
///
/// The attestation carries no confidence: the registry refuses to sign an unrated score (409 not-rated),
/// so every document its signer signed is of a rated score, and a score of 0 here is a verdict, not "no
/// data". Consumers must still check that `agentId` is the agent they mean: any rated agent's document
/// passes requireMinScore.
///
/// Trusted signers: the registry's signer address(es), set at construction. The owner (a multisig, or
/// address(0) for a fixed set) adds and revokes signers; rotation is "trust the new key, switch the
/// service to it, revoke the old one once its last attestation has expired" (docs/chain.md).
/// @title Verifier of the trust registry's signed trust scores
contract TrustScoreVerifier {
    struct TrustScoreAttestation {
        string agentId;
        uint256 score;
        bytes32 trustScoresDigest;
        uint256 configVersion;
        bytes32 inputsDigest;
        uint256 issuedAt;
        uint256 expiresAt;
    }

    /// The signature is not 65 bytes, has v other than 27/28 or a high s, or recovers no address.
    error InvalidSignature();
    /// The signature is valid but `signer` is not a trusted registry signer (also what a tampered field gives).
    error UntrustedSigner(address signer);
    /// `issuedAt` is after the current block's timestamp.
    error NotYetValid(uint256 issuedAt, uint256 blockTime);
    /// The attestation's own validity ended: `expiresAt` <= the block's timestamp.
    error Expired(uint256 expiresAt, uint256 blockTime);
    /// The attestation is older than the caller accepts: block time - `issuedAt` > `maxAge`.
    error TooOld(uint256 issuedAt, uint256 maxAge, uint256 blockTime);
    /// The attested score (hundredths, 0..10000) is below `minScore`.
    error ScoreTooLow(uint256 score, uint256 minScore);
    /// `minScore` is above 10000 (100.00): no attestation could pass, so the caller's number is wrong.
    error MinScoreOutOfRange(uint256 minScore);
    error NotOwner(address caller);
    error ZeroSigner();

    event SignerTrusted(address indexed signer);
    event SignerRevoked(address indexed signer);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    bytes32 public constant ATTESTATION_TYPEHASH = keccak256(
        "TrustScoreAttestation(string agentId,uint256 score,bytes32 trustScoresDigest,uint256 configVersion,"
        "bytes32 inputsDigest,uint256 issuedAt,uint256 expiresAt)"
    );
    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,string version,uint256 chainId)");
    // Upper half of the secp256k1 order: signatures with a larger s are malleable copies and are refused.
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    uint256 public constant MAX_SCORE = 10_000;

    bytes32 public immutable DOMAIN_SEPARATOR;
    uint256 public immutable domainChainId;
    address public owner;
    mapping(address => bool) public isTrustedSigner;
    uint256 public trustedSignerCount;

    /// @param domainName the registry's EIP-712 domain name ("TrustRegistry")
    /// @param domainVersion its version ("1")
    /// @param chainId the registry's ATTESTATION_CHAIN_ID (GET /api/v1/attestations/signer shows the domain)
    /// @param signers the registry's signer address(es)
    /// @param initialOwner who may add and revoke signers; address(0) makes the set fixed
    constructor(
        string memory domainName,
        string memory domainVersion,
        uint256 chainId,
        address[] memory signers,
        address initialOwner
    ) {
        DOMAIN_SEPARATOR = keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(domainName)), keccak256(bytes(domainVersion)), chainId)
        );
        domainChainId = chainId;
        for (uint256 i = 0; i < signers.length; i++) {
            _trust(signers[i]);
        }
        owner = initialOwner;
        emit OwnershipTransferred(address(0), initialOwner);
    }

    modifier onlyOwner() {
        if (msg.sender != owner || owner == address(0)) revert NotOwner(msg.sender);
        _;
    }

    // ---- checking ----

    /// Reverts unless `attestation` is signed by a trusted signer, current (issuedAt <= now < expiresAt),
    /// at most `maxAge` seconds old, and its score (hundredths) is at least `minScore`. Returns the signer.
    function requireMinScore(
        TrustScoreAttestation calldata attestation,
        bytes calldata signature,
        uint256 minScore,
        uint256 maxAge
    ) external view returns (address signer) {
        if (minScore > MAX_SCORE) revert MinScoreOutOfRange(minScore);
        signer = _recover(hashAttestation(attestation), signature);
        if (!isTrustedSigner[signer]) revert UntrustedSigner(signer);
        if (attestation.issuedAt > block.timestamp) revert NotYetValid(attestation.issuedAt, block.timestamp);
        if (attestation.expiresAt <= block.timestamp) revert Expired(attestation.expiresAt, block.timestamp);
        if (block.timestamp - attestation.issuedAt > maxAge) {
            revert TooOld(attestation.issuedAt, maxAge, block.timestamp);
        }
        if (attestation.score < minScore) revert ScoreTooLow(attestation.score, minScore);
    }

    /// The EIP-712 digest the registry signs for `attestation` (what eth-account's encode_typed_data hashes).
    function hashAttestation(TrustScoreAttestation calldata attestation) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                ATTESTATION_TYPEHASH,
                keccak256(bytes(attestation.agentId)),
                attestation.score,
                attestation.trustScoresDigest,
                attestation.configVersion,
                attestation.inputsDigest,
                attestation.issuedAt,
                attestation.expiresAt
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR, structHash));
    }

    // ---- signer management ----

    function trustSigner(address signer) external onlyOwner {
        _trust(signer);
    }

    function revokeSigner(address signer) external onlyOwner {
        if (isTrustedSigner[signer]) {
            isTrustedSigner[signer] = false;
            trustedSignerCount -= 1;
            emit SignerRevoked(signer);
        }
    }

    /// address(0) renounces: the signer set is fixed from then on.
    function transferOwnership(address newOwner) external onlyOwner {
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    function _trust(address signer) private {
        if (signer == address(0)) revert ZeroSigner();
        if (!isTrustedSigner[signer]) {
            isTrustedSigner[signer] = true;
            trustedSignerCount += 1;
            emit SignerTrusted(signer);
        }
    }

    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address signer) {
        if (signature.length != 65) revert InvalidSignature();
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) revert InvalidSignature();
        signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert InvalidSignature();
    }
}
