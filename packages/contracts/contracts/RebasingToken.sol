// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// A rebasing token (like stETH or AMPL): balances are shares times an index, and rebase() changes
/// every balance and the supply without a Transfer event. An indexer of Transfer events cannot
/// follow it; it can notice that its sum of balances no longer equals totalSupply().
contract RebasingToken {
    string public constant name = "Rebasing";
    string public constant symbol = "REB";
    uint8 public constant decimals = 18;
    uint256 public index = 1;
    uint256 private shareSupply;
    mapping(address => uint256) private shares;

    event Transfer(address indexed from, address indexed to, uint256 value);

    function totalSupply() external view returns (uint256) {
        return shareSupply * index;
    }

    function balanceOf(address who) external view returns (uint256) {
        return shares[who] * index;
    }

    function mint(address to, uint256 amount) external {
        require(amount % index == 0, "whole shares");
        shares[to] += amount / index;
        shareSupply += amount / index;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        require(amount % index == 0, "whole shares");
        shares[msg.sender] -= amount / index;
        shares[to] += amount / index;
        emit Transfer(msg.sender, to, amount);
        return true;
    }

    /// Multiplies every balance by `factor`, silently.
    function rebase(uint256 factor) external {
        index *= factor;
    }
}
