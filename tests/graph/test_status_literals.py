"""Statuses written into Cypher cannot drift from the models: every one is a value the models
define (an enum or a literal type), so a renamed or mistyped status fails here, not in a query
that silently matches nothing."""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import get_args

import pytest

import graph
from graph.dreams.models import DreamStatus, RunStatus
from graph.forgetting.models import TombstoneStatus
from graph.memory.models import ClaimStatus, ClarificationView, FactStatus, FragmentStatus, Verdict
from graph.scope import ScopedQuery

pytestmark = pytest.mark.unit
_COMPARED = re.compile(r"status\s*(?:=|<>)\s*'([^']*)'")
_SET = re.compile(r"status:\s*'([^']*)'")
_LISTED = re.compile(r"status\s+IN\s+\[([^\]]*)\]")


def known_statuses() -> set[str]:
    enums = (DreamStatus, ClaimStatus, FactStatus, FragmentStatus, Verdict, TombstoneStatus)
    literals = (RunStatus, ClarificationView.model_fields["status"].annotation)
    return {member.value for enum in enums for member in enum} | {
        value for literal in literals for value in get_args(literal)
    }


def status_literals(text: str) -> list[str]:
    found = _COMPARED.findall(text) + _SET.findall(text)
    for listed in _LISTED.findall(text):
        found += re.findall(r"'([^']*)'", listed)
    return found


def every_query() -> list[ScopedQuery]:
    queries: dict[str, ScopedQuery] = {}
    for module_info in pkgutil.walk_packages(graph.__path__, "graph."):
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            for item in value.values() if isinstance(value, dict) else [value]:
                if isinstance(item, ScopedQuery):
                    queries[item.name] = item
    return list(queries.values())


def test_the_scan_finds_status_literals_and_flags_an_unknown_one() -> None:
    text = "MATCH (f:Fact {profile_id: $profile_id, status: 'activ'}) WHERE f.status IN ['active', 'gone']"
    assert status_literals(text) == ["activ", "active", "gone"]
    assert set(status_literals(text)) - known_statuses() == {"activ", "gone"}


def test_every_status_in_cypher_is_one_the_models_define() -> None:
    queries = every_query()
    literals = {(query.name, value) for query in queries for value in status_literals(query.text)}
    # The graph's queries compare and set statuses in dozens of places; finding few means the
    # scan, not the queries, is broken.
    assert len(queries) > 60 and len(literals) > 30
    unknown = sorted((name, value) for name, value in literals if value not in known_statuses())
    assert unknown == []
