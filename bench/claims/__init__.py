"""Labelled natural claims, and the lane that measures claim verifiers on them.

`tuning.jsonl` and `held_out.jsonl` hold what people say and claims a host could send with it,
each labelled true (the text states the claim about that subject as given) or unsupported.
`items.py` reads them; `python -m bench.claims` runs every registered verifier over both parts.
"""
