"""Recall: a profile's memories found by their words and their meaning, and the open dreams
related to them. It reads what `graph.memory` and `graph.dreams` write and imports both; neither
imports it (`docs/architecture.md`)."""
