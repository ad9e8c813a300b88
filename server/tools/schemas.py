"""The schemas `tools/list` shows, compacted once when a tool is registered.

A host sends the tool list into every conversation, so each byte of it is paid again and again.
Pydantic writes much that no host needs: a title on every field, `default: null`, `anyOf` with
null for every optional value, a `$defs` entry for a model used once, and every nested model of
a result in full. An argument schema loses the titles, the null defaults and the single-use
`$defs`, and says "X or null" as one type list; it allows exactly the calls the server accepts
(models often send null for an argument they leave unset). A result schema keeps its
top-level fields with their types, enums and descriptions, and shows a nested object only as an
object (its fields are in the result). That is looser, so every result the tool's model
returns still validates against it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.tools import Tool

JsonSchema = dict[str, Any]

# The keywords whose values are schemas, by how they hold them.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs")
_SCHEMA_VALUES = ("items", "additionalProperties", "contains", "propertyNames", "not")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
# Keywords that constrain a value whatever its type: a schema holding one (other than `enum`)
# cannot simply let null through by adding it to `type`.
_ANY_TYPE_KEYWORDS = frozenset({"$ref", "const", "anyOf", "oneOf", "allOf", "not", "if", "then", "else"})
_NULL: JsonSchema = {"type": "null"}
_DEFS_PREFIX = "#/$defs/"


def compact_schemas(tool: Tool) -> None:
    """Give a registered tool its compacted argument and result schemas."""
    tool.parameters = compact_input_schema(tool.parameters)
    if tool.fn_metadata.output_schema is not None:
        tool.fn_metadata.output_schema = compact_output_schema(tool.fn_metadata.output_schema)


def compact_input_schema(schema: JsonSchema) -> JsonSchema:
    """The same constraints without titles or null defaults, nullable types folded, and each
    model used once written where it is used."""
    definitions: dict[str, JsonSchema] = schema.get("$defs", {})
    uses = _references(schema)

    def compact(node: JsonSchema) -> JsonSchema:
        name = _referenced_name(node)
        if name is not None and uses[name] == 1:
            node = _resolved(node, definitions[name])
        node = _map_subschemas(node, compact)
        if "default" in node and node["default"] is None:
            node = _without(node, "default")
        return _nullable_folded(_without(node, "title"))

    compacted = compact(_without(schema, "$defs"))
    shared = {name: compact(definition) for name, definition in definitions.items() if uses[name] > 1}
    return compacted | {"$defs": shared} if shared else compacted


def compact_output_schema(schema: JsonSchema) -> JsonSchema:
    """The top-level fields' types, enums and descriptions; a nested object is only an object.

    Titles and defaults go, and so does `required`: a result carries every field of its model
    (it is dumped whole), so the list would only repeat the field names."""
    definitions: dict[str, JsonSchema] = schema.get("$defs", {})

    def shape(node: JsonSchema, nested: bool) -> JsonSchema:
        name = _referenced_name(node)
        if name is not None:
            node = _resolved(node, definitions[name])
        if "properties" in node:
            if nested:
                return {key: node[key] for key in ("type", "description") if key in node}
            fields = {field: shape(value, nested=True) for field, value in node["properties"].items()}
            node = node | {"properties": fields}
        else:
            node = _map_subschemas(node, lambda child: shape(child, nested))
        return _nullable_folded(_without(node, "title", "default", "required"))

    return shape(_without(schema, "$defs"), nested=False)


def _map_subschemas(node: JsonSchema, transform: Callable[[JsonSchema], JsonSchema]) -> JsonSchema:
    """`node` with `transform` applied to each schema directly inside it."""
    mapped = dict(node)
    for key in _SCHEMA_MAPS:
        if key in node:
            mapped[key] = {name: transform(child) for name, child in node[key].items()}
    for key in _SCHEMA_VALUES:
        if isinstance(node.get(key), dict):  # additionalProperties may be a boolean
            mapped[key] = transform(node[key])
    for key in _SCHEMA_LISTS:
        if key in node:
            mapped[key] = [transform(child) for child in node[key]]
    return mapped


def _references(schema: JsonSchema) -> Counter[str]:
    """How often each of the schema's `$defs` is referenced, from anywhere in it."""
    found: Counter[str] = Counter()

    def visit(node: JsonSchema) -> JsonSchema:
        name = _referenced_name(node)
        if name is not None:
            found[name] += 1
        return _map_subschemas(node, visit)

    visit(schema)
    return found


def _referenced_name(node: JsonSchema) -> str | None:
    reference = node.get("$ref")
    if isinstance(reference, str) and reference.startswith(_DEFS_PREFIX):
        return reference.removeprefix(_DEFS_PREFIX)
    return None


def _resolved(node: JsonSchema, definition: JsonSchema) -> JsonSchema:
    """The referenced definition in place of the reference; the reference's own keywords (a
    field's description, its default) win over the model's."""
    return definition | _without(node, "$ref")


def _nullable_folded(node: JsonSchema) -> JsonSchema:
    """`anyOf: [X, null]` as X with null among its types, when X has one type: the same values."""
    value = _non_null_option(node)
    if value is None or not isinstance(value.get("type"), str) or not _ANY_TYPE_KEYWORDS.isdisjoint(value):
        return node
    folded = value | _without(node, "anyOf") | {"type": [value["type"], "null"]}
    if "enum" in value:
        folded["enum"] = [*value["enum"], None]
    return folded


def _non_null_option(node: JsonSchema) -> JsonSchema | None:
    """X, when `node` is `anyOf: [X, null]`."""
    options: list[JsonSchema] = node.get("anyOf", [])
    if len(options) != 2 or _NULL not in options:
        return None
    [value] = [option for option in options if option != _NULL]
    return value


def _without(node: JsonSchema, *keys: str) -> JsonSchema:
    return {key: value for key, value in node.items() if key not in keys}
