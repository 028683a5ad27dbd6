// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {TrustScoreVerifier} from "./TrustScoreVerifier.sol";

/// Written for this project: an example consumer of TrustScoreVerifier. A payer escrows ether for a job
/// done by an agent; anyone may release it to the agent's payee with a current registry attestation that
/// the agent scores at least `minScore`, at most `maxAge` seconds old. Otherwise the payer takes it back.
/// @title Escrow that pays an agent only while the trust registry rates it high enough
contract TrustGatedEscrow {
    struct Deposit {
        address payer;
        address payable payee;
        bytes32 agentIdHash;
        uint256 amount;
    }

    error UnknownDeposit(uint256 depositId);
    error AgentMismatch(bytes32 expected, bytes32 attested);
    error NotPayer(address caller);
    error EmptyDeposit();
    error TransferFailed();

    event Deposited(uint256 indexed depositId, address indexed payer, address indexed payee, string agentId, uint256 amount);
    event Released(uint256 indexed depositId, address indexed payee, uint256 score, address signer);
    event Refunded(uint256 indexed depositId, address indexed payer);

    TrustScoreVerifier public immutable verifier;
    /// In hundredths of a point: 7500 is 75.00.
    uint256 public immutable minScore;
    uint256 public immutable maxAge;
    uint256 public nextDepositId;
    mapping(uint256 => Deposit) public deposits;

    constructor(TrustScoreVerifier verifier_, uint256 minScore_, uint256 maxAge_) {
        verifier = verifier_;
        minScore = minScore_;
        maxAge = maxAge_;
    }

    function deposit(string calldata agentId, address payable payee) external payable returns (uint256 depositId) {
        if (msg.value == 0) revert EmptyDeposit();
        depositId = nextDepositId++;
        deposits[depositId] = Deposit(msg.sender, payee, keccak256(bytes(agentId)), msg.value);
        emit Deposited(depositId, msg.sender, payee, agentId, msg.value);
    }

    /// Pays the deposit to its payee if the attestation is about the deposit's agent and passes the verifier
    /// (which reverts with its own error otherwise: UntrustedSigner, Expired, TooOld, ScoreTooLow...).
    function release(
        uint256 depositId,
        TrustScoreVerifier.TrustScoreAttestation calldata attestation,
        bytes calldata signature
    ) external {
        Deposit memory held = deposits[depositId];
        if (held.amount == 0) revert UnknownDeposit(depositId);
        bytes32 attested = keccak256(bytes(attestation.agentId));
        if (attested != held.agentIdHash) revert AgentMismatch(held.agentIdHash, attested);
        address signer = verifier.requireMinScore(attestation, signature, minScore, maxAge);
        delete deposits[depositId];
        emit Released(depositId, held.payee, attestation.score, signer);
        (bool sent,) = held.payee.call{value: held.amount}("");
        if (!sent) revert TransferFailed();
    }

    function refund(uint256 depositId) external {
        Deposit memory held = deposits[depositId];
        if (held.amount == 0) revert UnknownDeposit(depositId);
        if (msg.sender != held.payer) revert NotPayer(msg.sender);
        delete deposits[depositId];
        emit Refunded(depositId, held.payer);
        (bool sent,) = payable(held.payer).call{value: held.amount}("");
        if (!sent) revert TransferFailed();
    }
}
