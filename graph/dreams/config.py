"""Effective dreaming settings: environment defaults, overridden per profile in the graph."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from graph.access import ProfileTx
from graph.dreams import queries as q
from graph.memory.models import Frozen

MAX_OUTPUTS_LIMIT = 50
SettingSource = Literal["default", "environment", "profile"]
OVERRIDE_PREFIX = "dreaming_"


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


def with_overrides(defaults: DreamingConfig, overrides: dict[str, Any]) -> DreamingConfig:
    values = defaults.model_dump(exclude={"sources"})
    sources = {name: defaults.sources.get(name, "default") for name in values}
    for name, value in overrides.items():
        if name in values and value is not None:
            values[name] = value
            sources[name] = "profile"
    return DreamingConfig(**values, sources=sources)


async def effective_config(tx: ProfileTx, defaults: DreamingConfig) -> DreamingConfig:
    row = await tx.single(q.PROFILE_SETTINGS)
    stored = row["profile"] if row else {}
    overrides = {key[len(OVERRIDE_PREFIX) :]: value for key, value in stored.items() if key.startswith(OVERRIDE_PREFIX)}
    return with_overrides(defaults, overrides)
