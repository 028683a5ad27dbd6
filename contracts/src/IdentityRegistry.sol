// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// Written for this project from the ERC-8004 text and shared/erc8004/INTERFACE.md; used by the chain tests.

interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data)
        external
        returns (bytes4);
}

interface IERC1271 {
    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4);
}

/// @title ERC-8004 IdentityRegistry (version 2 interface), a compact ERC-721 whose tokens are agents.
contract IdentityRegistry {
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);
    event MetadataSet(
        uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue
    );

    string public constant name = "AgentIdentity";
    string public constant symbol = "AGENT";

    string private constant WALLET_KEY = "agentWallet";
    bytes32 private constant WALLET_KEY_HASH = keccak256(bytes(WALLET_KEY));
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    // Upper half of the secp256k1 order: signatures with a larger s are malleable copies and are refused.
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    uint256 private constant MAX_DEADLINE_DELAY = 5 minutes;

    uint256 private _nextAgentId;
    mapping(uint256 => address) private _owners;
    mapping(address => uint256) private _balances;
    mapping(uint256 => address) private _tokenApprovals;
    mapping(address => mapping(address => bool)) private _operatorApprovals;
    mapping(uint256 => string) private _agentURIs;
    mapping(uint256 => mapping(string => bytes)) private _metadata;

    // ---- registration ----

    function register() external returns (uint256 agentId) {
        agentId = _register("");
    }

    function register(string calldata agentURI) external returns (uint256 agentId) {
        agentId = _register(agentURI);
    }

    function register(string calldata agentURI, MetadataEntry[] calldata metadata)
        external
        returns (uint256 agentId)
    {
        agentId = _register(agentURI);
        for (uint256 i = 0; i < metadata.length; i++) {
            _setMetadata(agentId, metadata[i].metadataKey, metadata[i].metadataValue);
        }
    }

    function setAgentURI(uint256 agentId, string calldata newURI) external {
        _requireAuthorized(agentId);
        _agentURIs[agentId] = newURI;
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    function tokenURI(uint256 agentId) external view returns (string memory) {
        _requireOwned(agentId);
        return _agentURIs[agentId];
    }

    // ---- metadata and the agent wallet ----

    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory) {
        return _metadata[agentId][metadataKey];
    }

    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external {
        _requireAuthorized(agentId);
        _setMetadata(agentId, metadataKey, metadataValue);
    }

    function getAgentWallet(uint256 agentId) external view returns (address) {
        bytes memory value = _metadata[agentId][WALLET_KEY];
        if (value.length != 20) {
            return address(0);
        }
        return address(bytes20(value));
    }

    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature)
        external
    {
        address owner = _requireAuthorized(agentId);
        require(newWallet != address(0), "bad wallet");
        require(block.timestamp <= deadline, "expired");
        require(deadline <= block.timestamp + MAX_DEADLINE_DELAY, "deadline too far");
        bytes32 structHash = keccak256(abi.encode(WALLET_SET_TYPEHASH, agentId, newWallet, owner, deadline));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
        require(_isValidSignature(newWallet, digest, signature), "invalid wallet signature");
        _storeWallet(agentId, abi.encodePacked(newWallet));
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(
            abi.encode(
                DOMAIN_TYPEHASH,
                keccak256(bytes("ERC8004IdentityRegistry")),
                keccak256(bytes("1")),
                block.chainid,
                address(this)
            )
        );
    }

    function getVersion() external pure returns (string memory) {
        return "2.0.0";
    }

    // ---- ERC-721 ----

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x80ac58cd || interfaceId == 0x5b5e139f;
    }

    function balanceOf(address owner) external view returns (uint256) {
        require(owner != address(0), "zero address");
        return _balances[owner];
    }

    function ownerOf(uint256 agentId) public view returns (address) {
        return _requireOwned(agentId);
    }

    function approve(address to, uint256 agentId) external {
        address owner = _requireOwned(agentId);
        require(msg.sender == owner || _operatorApprovals[owner][msg.sender], "not authorized");
        _tokenApprovals[agentId] = to;
        emit Approval(owner, to, agentId);
    }

    function getApproved(uint256 agentId) public view returns (address) {
        _requireOwned(agentId);
        return _tokenApprovals[agentId];
    }

    function setApprovalForAll(address operator, bool approved) external {
        require(operator != address(0), "zero operator");
        _operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address owner, address operator) public view returns (bool) {
        return _operatorApprovals[owner][operator];
    }

    function transferFrom(address from, address to, uint256 agentId) public {
        address owner = _requireOwned(agentId);
        require(
            msg.sender == owner || _operatorApprovals[owner][msg.sender] || _tokenApprovals[agentId] == msg.sender,
            "not authorized"
        );
        require(owner == from, "wrong owner");
        require(to != address(0), "zero receiver");
        delete _tokenApprovals[agentId];
        _balances[from] -= 1;
        _balances[to] += 1;
        _owners[agentId] = to;
        // A wallet proven by the previous owner must not follow the token to a new owner.
        if (_metadata[agentId][WALLET_KEY].length != 0) {
            _storeWallet(agentId, "");
        }
        emit Transfer(from, to, agentId);
    }

    function safeTransferFrom(address from, address to, uint256 agentId) external {
        safeTransferFrom(from, to, agentId, "");
    }

    function safeTransferFrom(address from, address to, uint256 agentId, bytes memory data) public {
        transferFrom(from, to, agentId);
        if (to.code.length > 0) {
            bytes4 answer = IERC721Receiver(to).onERC721Received(msg.sender, from, agentId, data);
            require(answer == IERC721Receiver.onERC721Received.selector, "receiver refused");
        }
    }

    // ---- internals ----

    function _register(string memory agentURI) private returns (uint256 agentId) {
        agentId = _nextAgentId++;
        _owners[agentId] = msg.sender;
        _balances[msg.sender] += 1;
        _agentURIs[agentId] = agentURI;
        emit Transfer(address(0), msg.sender, agentId);
        _storeWallet(agentId, abi.encodePacked(msg.sender));
        emit Registered(agentId, agentURI, msg.sender);
    }

    function _setMetadata(uint256 agentId, string memory metadataKey, bytes memory metadataValue) private {
        require(keccak256(bytes(metadataKey)) != WALLET_KEY_HASH, "reserved key");
        _metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    function _storeWallet(uint256 agentId, bytes memory value) private {
        _metadata[agentId][WALLET_KEY] = value;
        emit MetadataSet(agentId, WALLET_KEY, WALLET_KEY, value);
    }

    function _requireOwned(uint256 agentId) private view returns (address owner) {
        owner = _owners[agentId];
        require(owner != address(0), "unknown agent");
    }

    function _requireAuthorized(uint256 agentId) private view returns (address owner) {
        owner = _requireOwned(agentId);
        require(
            msg.sender == owner || _operatorApprovals[owner][msg.sender] || _tokenApprovals[agentId] == msg.sender,
            "not authorized"
        );
    }

    function _isValidSignature(address signer, bytes32 digest, bytes calldata signature)
        private
        view
        returns (bool)
    {
        if (signer.code.length > 0) {
            (bool ok, bytes memory answer) =
                signer.staticcall(abi.encodeCall(IERC1271.isValidSignature, (digest, signature)));
            return ok && answer.length >= 32 && abi.decode(answer, (bytes4)) == IERC1271.isValidSignature.selector;
        }
        if (signature.length != 65) {
            return false;
        }
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) {
            return false;
        }
        address recovered = ecrecover(digest, v, r, s);
        return recovered != address(0) && recovered == signer;
    }
}
