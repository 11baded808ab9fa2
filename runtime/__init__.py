"""See runtime/README.md — not yet implemented."""
