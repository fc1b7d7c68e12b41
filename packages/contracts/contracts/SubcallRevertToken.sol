// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// A token whose transfers may run a sub-call that moves tokens, logs Transfer, then reverts (caught
/// by try/catch or ignored after a low-level call): the sub-call's logs are not part of the chain,
/// while the outer transaction's are.
contract SubcallRevertToken {
    string public constant name = "Subcall Revert";
    string public constant symbol = "SRT";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    /// Moves `amount` to `to`, then tries to move `ghost` twice in sub-calls that revert.
    function transferWithRevertedSubcalls(address to, uint256 amount, uint256 ghost) external {
        _move(msg.sender, to, amount);
        try this.moveThenRevert(msg.sender, to, ghost) {} catch {}
        (bool ok, ) = address(this).call(abi.encodeCall(this.moveThenRevert, (msg.sender, to, ghost)));
        ok; // the failure is the point
        _move(msg.sender, to, amount);
    }

    function moveThenRevert(address from, address to, uint256 amount) external {
        require(msg.sender == address(this), "internal");
        _move(from, to, amount);
        totalSupply += amount;
        emit Transfer(address(0), from, amount);
        revert("undone");
    }

    function _move(address from, address to, uint256 amount) private {
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}
