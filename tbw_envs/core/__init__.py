"""What both game cores share: the game interface, the error for illegal actions, the input
contract, config loading, seeds and canonical bytes. Plain Python and numpy."""
