// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// Written for this project from the ERC-8004 text and shared/erc8004/INTERFACE.md; used by the chain tests.

interface IAgentOperators {
    function ownerOf(uint256 agentId) external view returns (address);
    function isApprovedForAll(address owner, address operator) external view returns (bool);
    function getApproved(uint256 agentId) external view returns (address);
}

/// @title ERC-8004 ValidationRegistry (version 2 interface): validation requests and validators' responses.
contract ValidationRegistry {
    struct Status {
        address validatorAddress;
        uint256 agentId;
        uint8 response;
        bool hasResponse;
        bytes32 responseHash;
        string tag;
        uint256 lastUpdate;
    }

    event ValidationRequest(
        address indexed validatorAddress, uint256 indexed agentId, string requestURI, bytes32 indexed requestHash
    );
    event ValidationResponse(
        address indexed validatorAddress,
        uint256 indexed agentId,
        bytes32 indexed requestHash,
        uint8 response,
        string responseURI,
        bytes32 responseHash,
        string tag
    );

    bytes32 private constant EMPTY_HASH = keccak256("");

    address private immutable _identityRegistry;

    mapping(bytes32 => Status) private _statuses;
    mapping(uint256 => bytes32[]) private _agentValidations;
    mapping(address => bytes32[]) private _validatorRequests;

    constructor(address identityRegistry_) {
        require(identityRegistry_ != address(0), "bad identity registry");
        _identityRegistry = identityRegistry_;
    }

    function getIdentityRegistry() external view returns (address) {
        return _identityRegistry;
    }

    function getVersion() external pure returns (string memory) {
        return "2.0.0";
    }

    function validationRequest(address validatorAddress, uint256 agentId, string calldata requestURI, bytes32 requestHash)
        external
    {
        require(validatorAddress != address(0), "bad validator");
        require(_statuses[requestHash].validatorAddress == address(0), "request exists");
        IAgentOperators identity = IAgentOperators(_identityRegistry);
        address owner = identity.ownerOf(agentId);
        require(
            msg.sender == owner || identity.isApprovedForAll(owner, msg.sender)
                || identity.getApproved(agentId) == msg.sender,
            "not authorized"
        );
        Status storage status = _statuses[requestHash];
        status.validatorAddress = validatorAddress;
        status.agentId = agentId;
        status.lastUpdate = block.timestamp;
        _agentValidations[agentId].push(requestHash);
        _validatorRequests[validatorAddress].push(requestHash);
        emit ValidationRequest(validatorAddress, agentId, requestURI, requestHash);
    }

    function validationResponse(
        bytes32 requestHash,
        uint8 response,
        string calldata responseURI,
        bytes32 responseHash,
        string calldata tag
    ) external {
        Status storage status = _statuses[requestHash];
        require(status.validatorAddress != address(0), "unknown request");
        require(msg.sender == status.validatorAddress, "not the validator");
        require(response <= 100, "response > 100");
        status.response = response;
        status.hasResponse = true;
        status.responseHash = responseHash;
        status.tag = tag;
        status.lastUpdate = block.timestamp;
        emit ValidationResponse(
            status.validatorAddress, status.agentId, requestHash, response, responseURI, responseHash, tag
        );
    }

    function getValidationStatus(bytes32 requestHash)
        external
        view
        returns (
            address validatorAddress,
            uint256 agentId,
            uint8 response,
            bytes32 responseHash,
            string memory tag,
            uint256 lastUpdate
        )
    {
        Status storage status = _statuses[requestHash];
        require(status.validatorAddress != address(0), "unknown request");
        return (
            status.validatorAddress, status.agentId, status.response, status.responseHash, status.tag, status.lastUpdate
        );
    }

    /// Counts and averages the answered requests of an agent; an empty validator list or tag does not filter.
    function getSummary(uint256 agentId, address[] calldata validatorAddresses, string calldata tag)
        external
        view
        returns (uint64 count, uint8 avgResponse)
    {
        bytes32 tagHash = keccak256(bytes(tag));
        bytes32[] storage hashes = _agentValidations[agentId];
        uint256 total;
        for (uint256 i = 0; i < hashes.length; i++) {
            Status storage status = _statuses[hashes[i]];
            if (!status.hasResponse) {
                continue;
            }
            if (validatorAddresses.length > 0 && !_contains(validatorAddresses, status.validatorAddress)) {
                continue;
            }
            if (tagHash != EMPTY_HASH && keccak256(bytes(status.tag)) != tagHash) {
                continue;
            }
            total += status.response;
            count += 1;
        }
        avgResponse = count == 0 ? 0 : uint8(total / count);
    }

    function getAgentValidations(uint256 agentId) external view returns (bytes32[] memory) {
        return _agentValidations[agentId];
    }

    function getValidatorRequests(address validatorAddress) external view returns (bytes32[] memory) {
        return _validatorRequests[validatorAddress];
    }

    function _contains(address[] calldata list, address wanted) private pure returns (bool) {
        for (uint256 i = 0; i < list.length; i++) {
            if (list[i] == wanted) {
                return true;
            }
        }
        return false;
    }
}
