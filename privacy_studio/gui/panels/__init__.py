"""Side and bottom panels of the studio window (each a self-contained widget)."""
