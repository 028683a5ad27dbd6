// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// Written for this project from the ERC-8004 text and shared/erc8004/INTERFACE.md; used by the chain tests.

interface IAgentOwnership {
    function ownerOf(uint256 agentId) external view returns (address);
    function isApprovedForAll(address owner, address operator) external view returns (bool);
    function getApproved(uint256 agentId) external view returns (address);
}

/// @title ERC-8004 ReputationRegistry (version 2 interface): signed-integer feedback with decimals and string tags.
contract ReputationRegistry {
    struct Feedback {
        int128 value;
        uint8 valueDecimals;
        bool isRevoked;
        string tag1;
        string tag2;
    }

    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string indexed indexedTag1,
        string tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
    event ResponseAppended(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        address indexed responder,
        string responseURI,
        bytes32 responseHash
    );

    int256 private constant MAX_ABS_VALUE = 1e38;
    uint8 private constant MAX_DECIMALS = 18;
    bytes32 private constant EMPTY_HASH = keccak256("");

    address private immutable _identityRegistry;

    mapping(uint256 => mapping(address => mapping(uint64 => Feedback))) private _feedback;
    mapping(uint256 => mapping(address => uint64)) private _lastIndex;
    mapping(uint256 => address[]) private _clients;
    mapping(uint256 => mapping(address => bool)) private _isClient;

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

    // ---- writes ----

    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external {
        require(value <= MAX_ABS_VALUE && value >= -MAX_ABS_VALUE, "value out of range");
        require(valueDecimals <= MAX_DECIMALS, "too many decimals");
        _requireNotSelf(agentId);

        uint64 index = _lastIndex[agentId][msg.sender] + 1;
        _lastIndex[agentId][msg.sender] = index;
        _feedback[agentId][msg.sender][index] = Feedback(value, valueDecimals, false, tag1, tag2);
        if (!_isClient[agentId][msg.sender]) {
            _isClient[agentId][msg.sender] = true;
            _clients[agentId].push(msg.sender);
        }
        emit NewFeedback(
            agentId, msg.sender, index, value, valueDecimals, tag1, tag1, tag2, endpoint, feedbackURI, feedbackHash
        );
    }

    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        _requireIndex(agentId, msg.sender, feedbackIndex);
        Feedback storage entry = _feedback[agentId][msg.sender][feedbackIndex];
        require(!entry.isRevoked, "already revoked");
        entry.isRevoked = true;
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external {
        require(bytes(responseURI).length > 0, "empty response URI");
        _requireIndex(agentId, clientAddress, feedbackIndex);
        emit ResponseAppended(agentId, clientAddress, feedbackIndex, msg.sender, responseURI, responseHash);
    }

    // ---- reads ----

    function getClients(uint256 agentId) external view returns (address[] memory) {
        return _clients[agentId];
    }

    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64) {
        return _lastIndex[agentId][clientAddress];
    }

    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked)
    {
        _requireIndex(agentId, clientAddress, feedbackIndex);
        Feedback storage entry = _feedback[agentId][clientAddress][feedbackIndex];
        return (entry.value, entry.valueDecimals, entry.tag1, entry.tag2, entry.isRevoked);
    }

    /// Averages the matching, unrevoked feedback in 18-decimal fixed point and answers at the most frequent
    /// valueDecimals among the matches (the smallest one on a tie).
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals)
    {
        require(clientAddresses.length > 0, "clientAddresses required");
        bytes32 tag1Hash = keccak256(bytes(tag1));
        bytes32 tag2Hash = keccak256(bytes(tag2));
        uint256[19] memory decimalsSeen;
        int256 total;
        for (uint256 i = 0; i < clientAddresses.length; i++) {
            address client = clientAddresses[i];
            uint64 last = _lastIndex[agentId][client];
            for (uint64 j = 1; j <= last; j++) {
                Feedback storage entry = _feedback[agentId][client][j];
                if (!_matches(entry, tag1Hash, tag2Hash, false)) {
                    continue;
                }
                total += int256(entry.value) * int256(10 ** (MAX_DECIMALS - entry.valueDecimals));
                decimalsSeen[entry.valueDecimals] += 1;
                count += 1;
            }
        }
        if (count == 0) {
            return (0, 0, 0);
        }
        for (uint8 d = 0; d <= MAX_DECIMALS; d++) {
            if (decimalsSeen[d] > decimalsSeen[summaryValueDecimals]) {
                summaryValueDecimals = d;
            }
        }
        int256 average = total / int256(uint256(count));
        summaryValue = int128(average / int256(10 ** (MAX_DECIMALS - summaryValueDecimals)));
    }

    function readAllFeedback(
        uint256 agentId,
        address[] calldata clientAddresses,
        string calldata tag1,
        string calldata tag2,
        bool includeRevoked
    )
        external
        view
        returns (
            address[] memory clients,
            uint64[] memory feedbackIndexes,
            int128[] memory values,
            uint8[] memory valueDecimals,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revokedStatuses
        )
    {
        // An empty client list reads every client, as getClients would list them.
        address[] memory wanted = clientAddresses;
        if (wanted.length == 0) {
            wanted = _clients[agentId];
        }
        bytes32 tag1Hash = keccak256(bytes(tag1));
        bytes32 tag2Hash = keccak256(bytes(tag2));
        uint256 total = _countMatches(agentId, wanted, tag1Hash, tag2Hash, includeRevoked);
        clients = new address[](total);
        feedbackIndexes = new uint64[](total);
        values = new int128[](total);
        valueDecimals = new uint8[](total);
        tag1s = new string[](total);
        tag2s = new string[](total);
        revokedStatuses = new bool[](total);
        uint256 k = 0;
        for (uint256 i = 0; i < wanted.length; i++) {
            uint64 last = _lastIndex[agentId][wanted[i]];
            for (uint64 j = 1; j <= last; j++) {
                Feedback storage entry = _feedback[agentId][wanted[i]][j];
                if (!_matches(entry, tag1Hash, tag2Hash, includeRevoked)) {
                    continue;
                }
                clients[k] = wanted[i];
                feedbackIndexes[k] = j;
                values[k] = entry.value;
                valueDecimals[k] = entry.valueDecimals;
                tag1s[k] = entry.tag1;
                tag2s[k] = entry.tag2;
                revokedStatuses[k] = entry.isRevoked;
                k += 1;
            }
        }
    }

    // ---- internals ----

    function _countMatches(
        uint256 agentId,
        address[] memory wanted,
        bytes32 tag1Hash,
        bytes32 tag2Hash,
        bool includeRevoked
    ) private view returns (uint256 total) {
        for (uint256 i = 0; i < wanted.length; i++) {
            uint64 last = _lastIndex[agentId][wanted[i]];
            for (uint64 j = 1; j <= last; j++) {
                if (_matches(_feedback[agentId][wanted[i]][j], tag1Hash, tag2Hash, includeRevoked)) {
                    total += 1;
                }
            }
        }
    }

    // Empty tags mean "no filter", as the ERC prescribes.
    function _matches(Feedback storage entry, bytes32 tag1Hash, bytes32 tag2Hash, bool includeRevoked)
        private
        view
        returns (bool)
    {
        if (entry.isRevoked && !includeRevoked) {
            return false;
        }
        if (tag1Hash != EMPTY_HASH && keccak256(bytes(entry.tag1)) != tag1Hash) {
            return false;
        }
        if (tag2Hash != EMPTY_HASH && keccak256(bytes(entry.tag2)) != tag2Hash) {
            return false;
        }
        return true;
    }

    function _requireIndex(uint256 agentId, address clientAddress, uint64 feedbackIndex) private view {
        require(feedbackIndex > 0 && feedbackIndex <= _lastIndex[agentId][clientAddress], "index out of bounds");
    }

    function _requireNotSelf(uint256 agentId) private view {
        IAgentOwnership identity = IAgentOwnership(_identityRegistry);
        address owner;
        try identity.ownerOf(agentId) returns (address found) {
            owner = found;
        } catch {}
        require(owner != address(0), "agent does not exist");
        require(
            msg.sender != owner && !identity.isApprovedForAll(owner, msg.sender)
                && identity.getApproved(agentId) != msg.sender,
            "Self-feedback not allowed"
        );
    }
}
