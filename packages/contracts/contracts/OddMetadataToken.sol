// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// A token whose metadata getters answer with the wrong types: name() a uint256, decimals() a
/// uint256 above 255. Readers must record nulls for them, not garbage text or a wrapped number.
contract OddMetadataToken {
    string public constant symbol = "ODD";
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    function name() external pure returns (uint256) {
        return 42;
    }

    function decimals() external pure returns (uint256) {
        return 300;
    }

    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }
}
