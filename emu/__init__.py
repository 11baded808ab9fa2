"""See emu/README.md — not yet implemented."""
