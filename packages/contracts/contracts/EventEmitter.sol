// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// Emits logs with every topic count: anonymous (no topics), and topic0 plus 0 to 3 indexed arguments.
contract EventEmitter {
    event Anonymous(uint256 value) anonymous;
    event NoIndexed(uint256 value, string note);
    event OneIndexed(address indexed who, uint256 value);
    event TwoIndexed(address indexed from, address indexed to, uint256 value);
    event ThreeIndexed(address indexed from, address indexed to, uint256 indexed id, bytes data);

    function emitAll(address a, address b, uint256 value) external {
        emit Anonymous(value);
        emit NoIndexed(value, "hello");
        emit OneIndexed(a, value);
        emit TwoIndexed(a, b, value);
        emit ThreeIndexed(a, b, value, abi.encodePacked(value));
    }

    function emitNoIndexed(uint256 value, string calldata note) external {
        emit NoIndexed(value, note);
    }

    function emitOneIndexed(address who, uint256 value) external {
        emit OneIndexed(who, value);
    }

    function emitTwoIndexed(address from, address to, uint256 value) external {
        emit TwoIndexed(from, to, value);
    }

    function emitThreeIndexed(address from, address to, uint256 id, bytes calldata data) external {
        emit ThreeIndexed(from, to, id, data);
    }
}
