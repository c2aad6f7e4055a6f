"""Test support code shared by several engineers' tests (see condafactory)."""
