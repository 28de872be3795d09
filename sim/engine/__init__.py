"""The compiled engine: bitset hands, meld search, table melds, the round and game loops."""
