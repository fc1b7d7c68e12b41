// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {EphemeralEmitter} from "./EphemeralEmitter.sol";

/// Log shapes that mainnet contracts produce and EventEmitter does not: an anonymous event with
/// four indexed arguments (four topics, none of them a signature), raw LOG0..LOG4, and logs from a
/// contract created and destroyed inside one transaction.
contract TopicShapes {
    event FourIndexed(address indexed a, address indexed b, uint256 indexed c, bytes32 indexed d, uint256 value) anonymous;
    event Born(address child);

    function emitFourIndexed(address a, address b, uint256 c, bytes32 d, uint256 value) external {
        emit FourIndexed(a, b, c, d, value);
    }

    /// One log with each topic count, 0 to 4, all carrying `value` as data.
    function emitRaw(bytes32 t0, bytes32 t1, bytes32 t2, bytes32 t3, uint256 value) external {
        assembly {
            mstore(0, value)
            log0(0, 32)
            log1(0, 32, t0)
            log2(0, 32, t0, t1)
            log3(0, 32, t0, t1, t2)
            log4(0, 32, t0, t1, t2, t3)
        }
    }

    /// The child logs from its constructor and self-destructs there: since Cancun (EIP-6780) its
    /// code is removed because creation and SELFDESTRUCT happen in the same transaction.
    function createAndDestroy(uint256 value) external returns (address child) {
        child = address(new EphemeralEmitter(value, true));
        emit Born(child);
    }

    /// The child self-destructs in a later transaction: since Cancun its code stays.
    function createKept(uint256 value) external returns (address child) {
        child = address(new EphemeralEmitter(value, false));
        emit Born(child);
    }
}
