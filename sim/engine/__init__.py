"""The compiled engine: bitset hands, meld search, table melds, the round and game loops."""

from sim.engine.freshness import refresh_engine_cache

# Before any kernel is defined: cached kernels compiled from other sources are dropped.
refresh_engine_cache()
