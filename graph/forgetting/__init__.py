"""Forgetting: what a person asks to forget is erased from their profile, not hidden."""
