// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// Test-only contract wallet: accepts (ERC-1271) the signatures its owner key makes over a digest.
contract ERC1271WalletMock {
    bytes4 private constant MAGIC_VALUE = 0x1626ba7e;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) {
            return 0xffffffff;
        }
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(digest, v, r, s) == owner ? MAGIC_VALUE : bytes4(0xffffffff);
    }
}
