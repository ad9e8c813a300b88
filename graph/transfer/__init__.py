"""Moving a profile: export to JSON Lines and import from them, identical on a round trip."""
