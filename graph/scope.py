"""Profile-scoped Cypher: queries that cannot leave their profile.

Every query of the profile graph is declared as a `ScopedQuery`. Declaring one checks its text,
so a query that could touch another profile's nodes fails when its module is imported, long
before it could run. The checks are deliberately conservative:

- the query mentions `$profile_id` (the access layer supplies it; callers cannot);
- every labelled node pattern is pinned to the profile, either inline
  (`(f:Fact {profile_id: $profile_id, ...})`) or by `f.profile_id = $profile_id`;
- a node pattern without a label must reuse a variable bound earlier in the query, so it can
  only be reached by walking edges out of already-scoped nodes;
- nodes yielded by a procedure (fulltext search) are filtered on `profile_id`;
- a `WHERE v.profile_id = $profile_id` filter counts only when it is a top-level conjunct of its
  WHERE clause (no OR/XOR beside it, no NOT before it), so it cannot be widened;
- node patterns the checker cannot read (backtick or dynamic labels, `IS` labels, inline
  WHERE) are refused rather than skipped;
- `profile_id` is never assigned or removed, neither as a property nor through a map.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graph.errors import UnscopedQueryError

PROFILE_PARAM = "$profile_id"

# The lookbehind keeps function calls such as count(d) or datetime() from looking like nodes.
_NODE_PATTERN = re.compile(r"(?<![\w.])\(\s*([A-Za-z_]\w*)?\s*(:\s*[A-Za-z_][\w|:&!]*)?\s*(\{[^{}]*\})?\s*\)")
_INLINE_SCOPE = re.compile(r"profile_id\s*:\s*\$profile_id\b")
_YIELD = re.compile(r"\bYIELD\s+([A-Za-z_]\w*)", re.IGNORECASE)
_ALIAS = re.compile(r"\bAS\s+([A-Za-z_]\w*)", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"\.profile_id\s*=(?!=)|\bprofile_id\s*\+?=", re.IGNORECASE)
# `SET n = {profile_id: ...}`, `SET n += {..., profile_id: ...}` and `REMOVE n.profile_id`.
_MAP_ASSIGNMENT = re.compile(r"\+?=\s*\{[^{}]*\bprofile_id\s*:")
_REMOVAL = re.compile(r"\bREMOVE\s+(?:[\w:]+(?:\.\w+)?\s*,\s*)*\w+\.profile_id\b", re.IGNORECASE)
# Anything that opens like a node pattern (a variable followed by a label, properties, `IS` or
# WHERE, or an anonymous `(:` / `({`); each must also be a pattern `_NODE_PATTERN` can read.
_NODE_LIKE = re.compile(
    r"(?<![\w.])\(\s*(?:[A-Za-z_]\w*\s*(?=[:{`])"
    r"|[A-Za-z_]\w*\s+(?=WHERE\b|IS\s+(?!NOT\b|NULL\b|TYPED\b|::))|(?=[:{`]))",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(
    r"(?<![.$])\b(?:RETURN|WITH|MATCH|OPTIONAL|CALL|UNWIND|MERGE|CREATE|SET|DELETE|DETACH|REMOVE"
    r"|ORDER|SKIP|LIMIT|UNION|FOREACH|YIELD)\b",
    re.IGNORECASE,
)
_DISJUNCTION = re.compile(r"(?<![.$])\b(?:OR|XOR)\b", re.IGNORECASE)
_COMMENT = re.compile(r"//[^\n]*")
# Strings are blanked out before checking so that text inside them cannot look like a pattern.
# `CALL (a, b) {` imports variables into a subquery; its parentheses are not a node pattern.
_SUBQUERY_SCOPE = re.compile(r"\bCALL\s*\([\w\s,]*\)\s*\{", re.IGNORECASE)
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def _where_scoped(text: str, variable: str) -> bool:
    """True when some WHERE clause holds `variable.profile_id = $profile_id` as a top-level conjunct."""
    pattern = rf"\b{re.escape(variable)}\.profile_id\s*=\s*\$profile_id\b"
    return any(_is_top_level_conjunct(text, match) for match in re.finditer(pattern, text))


def _is_top_level_conjunct(text: str, match: re.Match[str]) -> bool:
    """`WHERE a AND v.profile_id = $profile_id AND b`, with no OR/XOR at the clause's top level."""
    if not re.search(r"\b(?:WHERE|AND)\s*$", text[: match.start()], re.IGNORECASE):
        return False  # after NOT, OR, XOR, a comma or a parenthesis: it could be negated or widened
    wheres = list(re.finditer(r"\bWHERE\b", text[: match.start()], re.IGNORECASE))
    if not wheres:
        return False
    depth = 0
    for position in range(wheres[-1].end(), len(text)):
        if text[position] in "([{":
            depth += 1
        elif text[position] in ")]}":
            depth -= 1
        if depth < 0 or (depth > 0 and position == match.start()):
            return False  # inside brackets, or a WHERE of a subquery or comprehension
        if depth == 0 and _CLAUSE_END.match(text, position):
            return position > match.start()  # a clause ended between the WHERE and the filter
        if depth == 0 and _DISJUNCTION.match(text, position):
            return False
    return True


def _check_assignments(text: str) -> None:
    for match in _ASSIGNMENT.finditer(text):
        before = text[max(0, match.start() - 40) : match.start()]
        # `x.profile_id = $profile_id` after WHERE/AND is a filter, not an assignment.
        if re.search(r"\b(WHERE|AND|OR|WHEN|NOT)\s+[\w.]*$", before, re.IGNORECASE):
            continue
        raise UnscopedQueryError(f"query assigns profile_id near {text[match.start() - 20 : match.end()]!r}")
    for pattern in (_MAP_ASSIGNMENT, _REMOVAL):
        found = pattern.search(text)
        if found:
            raise UnscopedQueryError(f"query assigns or removes profile_id near {found.group(0)!r}")


def _check_readable_patterns(text: str) -> None:
    readable = {match.start() for match in _NODE_PATTERN.finditer(text)}
    for match in _NODE_LIKE.finditer(text):
        if match.start() not in readable:
            snippet = text[match.start() : match.start() + 40].split("\n", maxsplit=1)[0]
            raise UnscopedQueryError(
                f"node pattern near {snippet!r} uses syntax the scope check cannot read (backtick or "
                "dynamic labels, IS labels, inline WHERE); write it as (v:Label {profile_id: $profile_id})"
            )


def _check_node_patterns(text: str) -> None:
    bound: set[str] = set()
    position = 0
    for match in _NODE_PATTERN.finditer(text):
        # Names bound by aliases and yields before this pattern also count as reachable.
        prefix = text[position : match.start()]
        bound.update(_ALIAS.findall(prefix))
        bound.update(_YIELD.findall(prefix))
        position = match.start()
        variable, label, properties = match.group(1), match.group(2), match.group(3) or ""
        if label:
            if _INLINE_SCOPE.search(properties) or (variable and _where_scoped(text, variable)):
                bound.add(variable or "")
                continue
            raise UnscopedQueryError(f"node pattern {match.group(0)!r} is not pinned to $profile_id")
        if variable and variable in bound:
            continue
        if not variable and match.start() > 0 and re.search(r"[-\]>]\s*$", text[: match.start()]):
            continue  # an anonymous node at the far end of a relationship from a scoped node
        if variable and re.search(r"[-\]>]\s*$", text[: match.start()]):
            bound.add(variable)
            continue  # a node reached by walking a relationship out of a scoped node
        if variable and re.match(r"\s*[-<]", text[match.end() :]) and _reached_from_bound(text, match, bound):
            bound.add(variable)
            continue
        raise UnscopedQueryError(
            f"node pattern {match.group(0)!r} starts from no scoped node; label it and pin it to "
            f"$profile_id, or reach it through a relationship from a scoped node"
        )


def _reached_from_bound(text: str, match: re.Match[str], bound: set[str]) -> bool:
    """True when an unlabelled node opens a path whose next node is already bound."""
    following = _NODE_PATTERN.search(text, match.end())
    if following is None:
        return False
    between = text[match.end() : following.start()]
    if not re.fullmatch(r"\s*<?-\s*(\[[^\]]*\])?\s*->?\s*", between):
        return False
    next_variable = following.group(1)
    next_label = following.group(2)
    next_properties = following.group(3) or ""
    if next_variable in bound:
        return True
    return bool(next_label) and bool(
        _INLINE_SCOPE.search(next_properties) or (next_variable and _where_scoped(text, next_variable))
    )


def check_profile_scoped(text: str) -> None:
    """Raise UnscopedQueryError unless the query text stays inside one profile."""
    cleaned = _SUBQUERY_SCOPE.sub("CALL {", _STRING.sub("''", _COMMENT.sub("", text)))
    if PROFILE_PARAM not in cleaned:
        raise UnscopedQueryError("query never filters on $profile_id")
    _check_assignments(cleaned)
    _check_readable_patterns(cleaned)
    for variable in _YIELD.findall(cleaned):
        if not _where_scoped(cleaned, variable):
            raise UnscopedQueryError(f"procedure result {variable!r} is not filtered on $profile_id")
    _check_node_patterns(cleaned)


@dataclass(frozen=True)
class ScopedQuery:
    """A named Cypher query, checked at definition to stay within `$profile_id`."""

    name: str
    text: str

    def __post_init__(self) -> None:
        try:
            check_profile_scoped(self.text)
        except UnscopedQueryError as error:
            raise UnscopedQueryError(f"query {self.name!r} is not profile-scoped: {error}") from None
