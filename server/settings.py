"""Reverie's settings, read from the environment in one place (the composition root)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from graph.access import DEFAULT_CALL_TIMEOUT_S, PROFILE_ID_RULE, validate_profile_id
from graph.clock import known_zone
from graph.dreams.config import MAX_OUTPUTS_LIMIT, DreamingConfig
from graph.dreams.host_model import HostModelLimits
from graph.embedding.catalog import DEFAULT_MODEL, MODELS, SEMANTIC_OFF
from graph.errors import InvalidInputError, validation_problems
from graph.localdb.config import default_home

# The driver also takes http(s), which needs a driver extra Reverie does not install.
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


class SettingsError(Exception):
    """A malformed setting; the message names it and the expected form."""


class ReverieSettings(BaseSettings):
    """Connection names follow Neo4j's own MCP servers (NEO4J_URI, NEO4J_USERNAME, ...)."""

    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    neo4j_uri: str | None = Field(
        default=None, description="Bolt URI of an existing Neo4j; unset means the managed local server"
    )
    neo4j_username: str = "neo4j"
    neo4j_password: str | None = None
    neo4j_database: str | None = None
    neo4j_timeout: float = Field(
        default=DEFAULT_CALL_TIMEOUT_S,
        gt=0,
        le=3600,
        description="Seconds one call may wait for Neo4j before it is abandoned",
    )
    reverie_home: Path = Field(
        default_factory=default_home,
        description="Where the managed Neo4j's jars and data, and the local token file, live",
    )
    reverie_profile: str = Field(
        default="default", description=f"Profile served over stdio ({PROFILE_ID_RULE})"
    )
    reverie_tokens_file: Path | None = Field(
        default=None, description="JSON file mapping HTTP bearer tokens to profiles and scopes"
    )

    reverie_allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Host headers the HTTP server answers besides its own address, comma-separated",
    )
    reverie_http_body_timeout: float = Field(
        default=10.0, gt=0, le=300, description="Seconds the review page waits for a form's whole body"
    )

    reverie_embedding_model: str = Field(
        default=DEFAULT_MODEL,
        description=f"Embedding model for semantic recall: {', '.join(MODELS)}, or {SEMANTIC_OFF}",
    )

    dreaming_enabled: bool = False
    dreaming_start_time_local: str = Field(default="03:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    dreaming_timezone: str | None = Field(default=None, description="IANA zone; falls back to APP_TIMEZONE")
    app_timezone: str | None = None
    dreaming_reflect_enabled: bool = True
    dreaming_reevaluate_enabled: bool = True
    dreaming_dream_enabled: bool = True
    dreaming_max_outputs: int = Field(default=5, ge=1, le=MAX_OUTPUTS_LIMIT)
    dreaming_concurrency: int = Field(default=1, ge=1, le=16, description="Profiles dreaming at once")
    dreaming_host_model_requests: int = Field(
        default=5, ge=0, le=20, description="Sampling requests to the host's model per manual cycle"
    )
    dreaming_host_model_timeout: float = Field(
        default=30.0, gt=0, le=600, description="Seconds to wait for one answer of the host's model"
    )

    @field_validator("neo4j_uri")
    @classmethod
    def _bolt_uri(cls, value: str | None) -> str | None:
        if not value:
            return None
        parts = urlsplit(value)
        if parts.scheme not in BOLT_SCHEMES or not parts.hostname:
            raise ValueError(
                f"expected a Bolt URI such as bolt://localhost:7687 or neo4j+s://host "
                f"(schemes {', '.join(BOLT_SCHEMES)}), got {value[:80]!r}; "
                "unset it to use the managed local Neo4j"
            )
        return value

    @field_validator("reverie_allowed_hosts", mode="before")
    @classmethod
    def _host_list(cls, value: object) -> object:
        if isinstance(value, str):
            return [host.strip().lower() for host in value.split(",") if host.strip()]
        return value

    @field_validator("dreaming_timezone", "app_timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        return None if value is None else known_zone(value)

    @field_validator("reverie_embedding_model")
    @classmethod
    def _known_model(cls, value: str) -> str:
        if value != SEMANTIC_OFF and value not in MODELS:
            raise ValueError(f"expected one of {', '.join([*MODELS, SEMANTIC_OFF])}, got {value!r}")
        return value

    @property
    def tokens_path(self) -> Path:
        return self.reverie_tokens_file or self.reverie_home / "tokens.json"

    def host_model_limits(self) -> HostModelLimits:
        return HostModelLimits(
            max_requests=self.dreaming_host_model_requests, timeout_seconds=self.dreaming_host_model_timeout
        )

    def dreaming_defaults(self) -> DreamingConfig:
        """The environment's dreaming settings, each tagged with where it came from."""
        names = {
            "enabled": "dreaming_enabled",
            "start_time_local": "dreaming_start_time_local",
            "reflect_enabled": "dreaming_reflect_enabled",
            "reevaluate_enabled": "dreaming_reevaluate_enabled",
            "dream_enabled": "dreaming_dream_enabled",
            "max_outputs": "dreaming_max_outputs",
        }
        values: dict[str, object] = {name: getattr(self, field) for name, field in names.items()}
        sources = {
            name: "environment" if field in self.model_fields_set else "default"
            for name, field in names.items()
        }
        values["timezone"] = self.dreaming_timezone or self.app_timezone or machine_timezone()
        sources["timezone"] = "environment" if self.dreaming_timezone or self.app_timezone else "default"
        return DreamingConfig.model_validate({**values, "sources": sources})


def machine_timezone() -> str:
    """The machine's zone as an IANA name (never an opaque 'Local'), UTC when it cannot be told."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    timezone_file = Path("/etc/timezone")
    if timezone_file.exists():
        candidates.append(timezone_file.read_text(encoding="utf-8").strip())
    localtime = Path("/etc/localtime")
    if localtime.is_symlink():
        target = str(localtime.resolve())
        if "zoneinfo/" in target:
            candidates.append(target.split("zoneinfo/", 1)[1])
    for name in candidates:
        try:
            if name:
                ZoneInfo(name)
                return name
        except (ZoneInfoNotFoundError, ValueError):
            continue
    return "UTC"


def load_settings() -> ReverieSettings:
    """Read the environment, turning validation failures into one readable message."""
    try:
        settings = ReverieSettings()
        validate_profile_id(settings.reverie_profile)
    except ValidationError as error:
        raise SettingsError("Invalid setting: " + validation_problems(error, str.upper)) from None
    except InvalidInputError as error:
        raise SettingsError(f"REVERIE_PROFILE: {error}") from None
    return settings
