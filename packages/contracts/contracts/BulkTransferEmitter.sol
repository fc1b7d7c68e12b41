// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// Emits many ERC20 Transfer logs per transaction without storage writes, for ingestion benchmarks.
/// Every log is a mint (from the zero address) to a distinct recipient: firstRecipient + i.
contract BulkTransferEmitter {
    string public constant name = "Bulk";
    string public constant symbol = "BULK";
    uint8 public constant decimals = 0;
    uint256 public constant totalSupply = 0;

    event Transfer(address indexed from, address indexed to, uint256 value);

    function emitTransfers(address firstRecipient, uint256 count, uint256 value) external {
        uint160 base = uint160(firstRecipient);
        for (uint256 i = 0; i < count; i++) {
            emit Transfer(address(0), address(base + uint160(i)), value);
        }
    }
}
