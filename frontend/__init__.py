"""The tensor compiler: see frontend/README.md."""
