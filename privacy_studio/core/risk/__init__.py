"""The risk model shared by every engine: what to compute (settings) and what comes out (results)."""
