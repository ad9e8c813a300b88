"""Reverie's settings, read from the environment in one place (the composition root)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph.access import PROFILE_ID_RULE, validate_profile_id
from graph.errors import InvalidInputError


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
    reverie_home: Path = Field(
        default_factory=lambda: Path.home() / ".local" / "share" / "reverie",
        description="Where the managed Neo4j's jars and data, and the local token file, live",
    )
    reverie_profile: str = Field(default="default", description=f"Profile served over stdio ({PROFILE_ID_RULE})")
    reverie_tokens_file: Path | None = Field(
        default=None, description="JSON file mapping HTTP bearer tokens to profiles and scopes"
    )

    @property
    def tokens_path(self) -> Path:
        return self.reverie_tokens_file or self.reverie_home / "tokens.json"


def load_settings() -> ReverieSettings:
    """Read the environment, turning validation failures into one readable message."""
    try:
        settings = ReverieSettings()
        validate_profile_id(settings.reverie_profile)
    except ValidationError as error:
        problems = []
        for item in error.errors():
            name = ".".join(str(part) for part in item["loc"]).upper()
            problems.append(f"{name}: {item['msg']}")
        raise SettingsError("Invalid setting: " + "; ".join(problems)) from None
    except InvalidInputError as error:
        raise SettingsError(f"REVERIE_PROFILE: {error}") from None
    return settings
