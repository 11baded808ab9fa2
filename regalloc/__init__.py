"""See regalloc/README.md — not yet implemented."""
