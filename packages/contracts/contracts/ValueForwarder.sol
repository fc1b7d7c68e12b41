// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// Forwards the value it is sent to other accounts: each forward is an internal transaction (a
/// CALL with value inside the transaction's trace), what streams with includeInternalTxs report.
contract ValueForwarder {
    event Forwarded(address indexed to, uint256 value);

    /// Sends the whole value to `to`.
    function forward(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "forward failed");
        emit Forwarded(to, msg.value);
    }

    /// Splits the value evenly over `tos` (the remainder stays here).
    function forwardMany(address payable[] calldata tos) external payable {
        uint256 each = msg.value / tos.length;
        for (uint256 i = 0; i < tos.length; i++) {
            (bool ok, ) = tos[i].call{value: each}("");
            require(ok, "forward failed");
            emit Forwarded(tos[i], each);
        }
    }
}
