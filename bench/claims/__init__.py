"""Labelled natural claims, and the lane that measures claim verifiers on them.

`tuning.jsonl`, `held_out.jsonl` and `held_out_b.jsonl` hold what people say and claims a host
could send with it, each labelled true (the text states the claim about that subject as given)
or unsupported. `items.py` reads them; `python -m bench.claims` runs every registered verifier
over every part.
"""
