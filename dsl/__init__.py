"""See dsl/README.md — not yet implemented."""
