"""See frontend/README.md — not yet implemented."""
