"""Reverie's benchmark: ingestion, recall, dreaming and memory at 1k to 100k memories per profile.

Run it with `make bench` (sizes 1,000, 10,000 and 100,000), `make bench-quick` (1,000 only), or
`.venv/bin/python -m bench --sizes 1000,10000`. It provisions its own managed Neo4j instance
("bench"), prints a table of every figure with the number of operations behind it, and writes
the same as JSON under bench/results/. It prints figures; it asserts nothing about speed.
"""
