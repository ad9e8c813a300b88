"""Effective dreaming settings: environment defaults, overridden per profile in the graph."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from graph.access import ProfileGraph, ProfileTx
from graph.base import Frozen
from graph.clock import known_zone
from graph.dreams import queries as q
from graph.dreams.records import OVERRIDE_PREFIX, StoredProfile
from graph.errors import InvalidInputError, validation_problems
from graph.schema import GRAPH_FORMAT

MAX_OUTPUTS_LIMIT = 50
SettingSource = Literal["default", "environment", "profile"]


class DreamingConfig(Frozen):
    enabled: bool = False
    start_time_local: str = Field(default="03:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    timezone: str = "UTC"
    reflect_enabled: bool = True
    reevaluate_enabled: bool = True
    dream_enabled: bool = True
    max_outputs: int = Field(default=5, ge=1, le=MAX_OUTPUTS_LIMIT)
    sources: dict[str, SettingSource] = Field(
        default_factory=dict, description="Where each value came from: default, environment or profile"
    )

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        return known_zone(value)


def with_overrides(defaults: DreamingConfig, overrides: Mapping[str, Any]) -> DreamingConfig:
    values = defaults.model_dump(exclude={"sources"})
    sources = {name: defaults.sources.get(name, "default") for name in values}
    for name, value in overrides.items():
        if name in values and value is not None:
            values[name] = value
            sources[name] = "profile"
    return DreamingConfig(**values, sources=sources)


async def _stored_overrides(tx: ProfileTx) -> Mapping[str, Any]:
    return StoredProfile.from_row(await tx.single(q.PROFILE_SETTINGS)).overrides


async def effective_config(tx: ProfileTx, defaults: DreamingConfig) -> DreamingConfig:
    return with_overrides(defaults, await _stored_overrides(tx))


async def configure(tx: ProfileTx, defaults: DreamingConfig, changes: dict[str, Any]) -> DreamingConfig:
    """Store per-profile overrides (None clears one) after checking the result is valid."""
    merged = {**await _stored_overrides(tx), **changes}
    try:
        config = with_overrides(defaults, merged)
    except ValidationError as error:
        raise InvalidInputError(f"{validation_problems(error)}. Nothing was changed.") from None
    settings = {f"{OVERRIDE_PREFIX}{k}": v for k, v in changes.items()}
    await tx.run(q.SET_PROFILE_SETTINGS, settings=settings, graph_format=GRAPH_FORMAT)
    return config


async def configure_dreaming(
    graph: ProfileGraph, defaults: DreamingConfig, changes: dict[str, Any]
) -> DreamingConfig:
    return await graph.write(configure, defaults, changes)
