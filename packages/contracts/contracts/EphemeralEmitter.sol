// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// Logs from its constructor and may self-destruct there (see TopicShapes).
contract EphemeralEmitter {
    event Hello(address indexed creator, uint256 value);
    event Goodbye(uint256 value);

    constructor(uint256 value, bool destroyNow) {
        emit Hello(msg.sender, value);
        if (destroyNow) {
            emit Goodbye(value);
            selfdestruct(payable(msg.sender));
        }
    }

    function destroy(uint256 value) external {
        emit Goodbye(value);
        selfdestruct(payable(msg.sender));
    }
}
