"""Reverie's settings, read from the environment in one place (the composition root)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Annotated
from urllib.parse import parse_qs, urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from graph.access import DEFAULT_CALL_TIMEOUT_S, PROFILE_ID_RULE, validate_profile_id
from graph.clock import known_zone, machine_timezone
from graph.dreams.config import MAX_OUTPUTS_LIMIT, DreamingConfig
from graph.dreams.host_model import HostModelLimits
from graph.dreams.lease import CycleLease
from graph.embedding.catalog import DEFAULT_MODEL, MODELS, SEMANTIC_OFF
from graph.errors import InvalidInputError, shown_uri, validation_problems
from graph.localdb import LocalNeo4j
from graph.localdb.config import default_home
from graph.localdb.memory import DEFAULT_SIZE, Neo4jMemory, parse_memory
from graph.localdb.tuning import Neo4jTuning
from graph.models.endpoint import COMPLETIONS_PATH, EndpointConfig
from scheduler.nightly import STARTUP_GRACE_S, TICK_SECONDS

# The driver also takes http(s), which needs a driver extra Reverie does not install.
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


class SettingsError(Exception):
    """A malformed setting; the message names it and the expected form."""


class ReverieSettings(BaseSettings):
    """Connection names follow Neo4j's own MCP servers (NEO4J_URI, NEO4J_USERNAME, ...)."""

    # Pydantic quotes a refused value in its errors; these values hold passwords and keys.
    model_config = SettingsConfigDict(
        env_prefix="", case_sensitive=False, extra="ignore", hide_input_in_errors=True
    )

    neo4j_uri: str | None = Field(
        default=None, description="Bolt URI of an existing Neo4j; unset means the managed local server"
    )
    neo4j_username: str = "neo4j"
    neo4j_password: str | None = Field(default=None, repr=False)
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
    reverie_neo4j_memory: str = Field(
        default=DEFAULT_SIZE,
        description="The managed Neo4j's memory: small, desktop, large or heap=SIZE,pagecache=SIZE",
    )
    reverie_neo4j_tuning: Neo4jTuning = Field(
        default=Neo4jTuning.SERVICE,
        description="service, or short-lived for a Neo4j that lives minutes (a test run, a one-off import)",
    )
    reverie_neo4j_idle_seconds: int = Field(
        default=900,
        ge=0,
        le=7 * 86400,
        description="Seconds no Reverie process uses the managed Neo4j before it stops; 0 keeps it running",
    )
    reverie_profile: str = Field(
        default="default", description=f"Profile served over stdio ({PROFILE_ID_RULE})"
    )
    reverie_tokens_file: Path | None = Field(
        default=None, description="JSON file mapping HTTP bearer tokens to profiles and scopes"
    )

    reverie_public_url: str | None = Field(
        default=None,
        description="The https address people reach this server at (e.g. https://memory.example.org); "
        "set, the HTTP server is also an OAuth authorization server for remote connectors",
    )
    reverie_client_registration: bool = Field(
        default=True, description="With REVERIE_PUBLIC_URL: let connectors register themselves (RFC 7591)"
    )
    reverie_client_metadata_documents: bool = Field(
        default=True,
        description="With REVERIE_PUBLIC_URL: accept https client ids naming a client metadata document",
    )
    reverie_dev_loopback_metadata: bool = Field(
        default=False,
        description="Development only: accept client metadata documents served from a loopback address",
    )

    reverie_allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Host headers the HTTP server answers besides its own address, comma-separated",
    )
    reverie_request_state_key: SecretStr | None = Field(
        default=None,
        min_length=32,
        description="A secret of 32 characters or more that every HTTP server behind one balancer "
        "shares, so a call answered in rounds (protocol 2026-07-28) may continue on any of them",
    )
    reverie_http_body_timeout: float = Field(
        default=10.0,
        gt=0,
        le=300,
        description="Seconds the HTTP server waits for an MCP message's or a form's body",
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
    reverie_cycle_lease_seconds: int = Field(
        default=60,
        ge=5,
        le=3600,
        description="Seconds a cycle's hold on its profile outlives its last renewal (renewed 4 per lease)",
    )
    reverie_scheduler_grace_seconds: float = Field(
        default=STARTUP_GRACE_S,
        ge=0,
        le=3600,
        description="Seconds a server's nightly scheduler waits after the start before its first look",
    )
    reverie_scheduler_tick_seconds: int = Field(
        default=TICK_SECONDS,
        ge=1,
        le=3600,
        description="Seconds between the nightly scheduler's looks at the nights (a busy profile waits one)",
    )

    # A model of the person's choosing: an OpenAI-compatible chat-completions endpoint.
    reverie_model_url: str | None = Field(
        default=None, description="Base URL of the endpoint, e.g. http://127.0.0.1:11434/v1; unset: none"
    )
    reverie_model_name: str | None = Field(default=None, max_length=200, description="The model to ask")
    reverie_model_key: SecretStr | None = Field(default=None, description="API key, sent as a bearer token")
    reverie_model_key_file: Path | None = Field(default=None, description="A file holding the API key")
    reverie_model_timeout: float = Field(
        default=60.0, gt=0, le=600, description="Seconds to wait for one answer of the endpoint"
    )
    reverie_model_max_tokens: int = Field(default=400, ge=50, le=4000, description="Tokens per answer")
    reverie_model_requests: int = Field(
        default=5, ge=0, le=20, description="Requests to the endpoint per dreaming cycle"
    )
    reverie_model_verify: bool = Field(
        default=False, description="Also let the endpoint's model check the claims of each remember"
    )

    @field_validator("neo4j_uri")
    @classmethod
    def _bolt_uri(cls, value: str | None) -> str | None:
        if not value:
            return None
        problem = bolt_uri_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("reverie_neo4j_memory")
    @classmethod
    def _neo4j_memory(cls, value: str) -> str:
        parse_memory(value)
        return value

    @field_validator("reverie_allowed_hosts", mode="before")
    @classmethod
    def _host_list(cls, value: object) -> object:
        if isinstance(value, str):
            return [host.strip().lower() for host in value.split(",") if host.strip()]
        return value

    @field_validator("reverie_public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if not value:
            return None
        expected = (
            "expected the https origin people use, such as https://memory.example.org (no path, query or "
            "fragment; plain http only for a loopback address, in development)"
        )
        try:
            parts = urlsplit(value.strip().rstrip("/"))
            parts.port  # noqa: B018 - reading it checks that the port is a number in range
        except ValueError:
            raise ValueError(expected) from None
        loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
        secure = parts.scheme == "https" or (parts.scheme == "http" and loopback)
        if not secure or not parts.hostname or parts.path or parts.query or parts.fragment:
            raise ValueError(expected)
        return f"{parts.scheme}://{parts.netloc.lower()}"

    @field_validator("dreaming_timezone", "app_timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        # Empty is unset: a host's form (the bundle's) sends an empty value for "the machine's zone".
        return known_zone(value) if value else None

    @field_validator("reverie_embedding_model")
    @classmethod
    def _known_model(cls, value: str) -> str:
        if value != SEMANTIC_OFF and value not in MODELS:
            raise ValueError(f"expected one of {', '.join([*MODELS, SEMANTIC_OFF])}, got {value!r}")
        return value

    @field_validator("reverie_model_url")
    @classmethod
    def _endpoint_url(cls, value: str | None) -> str | None:
        if not value:
            return None
        # The value is not echoed: a URL with a password or a key in its query is a secret.
        expected = "expected an http(s) base URL such as http://127.0.0.1:11434/v1"
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018 - reading it checks that the port is a number in range
        except ValueError:
            raise ValueError(expected) from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(expected)
        if parts.username or parts.password or parts.query or parts.fragment:
            raise ValueError(
                "the URL may not carry credentials, a query or a fragment; "
                "give the key in REVERIE_MODEL_KEY or REVERIE_MODEL_KEY_FILE"
            )
        base = value.rstrip("/")
        if base.endswith(COMPLETIONS_PATH):
            raise ValueError(
                f"give the base URL, without {COMPLETIONS_PATH} (e.g. http://127.0.0.1:11434/v1)"
            )
        return base

    @field_validator("reverie_model_key_file")
    @classmethod
    def _readable_key(cls, value: Path | None) -> Path | None:
        if value is not None:
            read_key(value)
        return value

    @property
    def tokens_path(self) -> Path:
        return self.reverie_tokens_file or self.reverie_home / "tokens.json"

    def host_model_limits(self) -> HostModelLimits:
        return HostModelLimits(
            max_requests=self.dreaming_host_model_requests, timeout_seconds=self.dreaming_host_model_timeout
        )

    def neo4j_memory(self) -> Neo4jMemory:
        return parse_memory(self.reverie_neo4j_memory)

    def local_neo4j(self, instance: str = "default") -> LocalNeo4j:
        """The managed Neo4j `instance`, as these settings start it."""
        memory, tuning = self.neo4j_memory(), self.reverie_neo4j_tuning
        return LocalNeo4j(self.reverie_home, instance=instance, memory=memory, tuning=tuning)

    def neo4j_stop_when_idle(self) -> float | None:
        """Seconds unused before the managed Neo4j stops; None keeps it running."""
        return float(self.reverie_neo4j_idle_seconds) or None

    def cycle_lease(self) -> CycleLease:
        return CycleLease(timedelta(seconds=self.reverie_cycle_lease_seconds))

    def endpoint_config(self) -> EndpointConfig | None:
        """The configured model endpoint, None when REVERIE_MODEL_URL is unset."""
        if self.reverie_model_url is None:
            return None
        name = (self.reverie_model_name or "").strip()
        if not name:
            raise SettingsError("REVERIE_MODEL_NAME: set the model the endpoint should run, e.g. llama3.1:8b")
        if self.reverie_model_key is not None and self.reverie_model_key_file is not None:
            raise SettingsError("REVERIE_MODEL_KEY and REVERIE_MODEL_KEY_FILE are both set; keep one.")
        key = self.reverie_model_key.get_secret_value() if self.reverie_model_key is not None else None
        if self.reverie_model_key_file is not None:
            try:
                key = read_key(self.reverie_model_key_file)
            except ValueError as error:
                raise SettingsError(f"REVERIE_MODEL_KEY_FILE: {error}") from None
        limits = HostModelLimits(
            max_requests=self.reverie_model_requests,
            timeout_seconds=self.reverie_model_timeout,
            max_tokens=self.reverie_model_max_tokens,
        )
        return EndpointConfig(
            url=self.reverie_model_url,
            model=name,
            limits=limits,
            key=key or None,
            verify_claims=self.reverie_model_verify,
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


def bolt_uri_problem(value: str) -> str | None:
    """What is wrong with `value` as NEO4J_URI, said with its fix; None when nothing is.

    It refuses what the driver would refuse later with a traceback that quotes the URI, and a
    path or fragment, which the driver ignores. A user and password in the URI are refused
    rather than used: they have settings of their own, and a host keeps those apart (a bundle's
    password setting is masked and stored as a secret; its URI setting is shown as typed). The
    value is quoted only as `shown_uri` writes it, without them."""
    redacted = shown_uri(value)
    shown = repr(redacted[:80])
    if redacted != value:
        return (
            f"the URI may not carry a user or password (got {shown}); give the user in "
            "NEO4J_USERNAME and the password in NEO4J_PASSWORD"
        )
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - reading it checks that the port is a number in range
    except ValueError:
        return f"{shown} is not a URI with a host and a port from 0 to 65535, such as bolt://localhost:7687"
    if parts.scheme not in BOLT_SCHEMES or not parts.hostname:
        return (
            f"expected a Bolt URI such as bolt://localhost:7687 or neo4j+s://host "
            f"(schemes {', '.join(BOLT_SCHEMES)}), got {shown}; unset it to use the managed local Neo4j"
        )
    if parts.path not in ("", "/") or parts.fragment:
        return (
            f"the URI names a server, without a path or fragment (got {shown}); "
            "a database is chosen with NEO4J_DATABASE"
        )
    if parts.query and not parts.scheme.startswith("neo4j"):
        return f"only neo4j:// URIs take a query (a routing context), got {shown}"
    context = parse_qs(parts.query, keep_blank_values=True)
    if any(len(values) != 1 or not values[0] for values in context.values()) or "address" in context:
        return f"a routing context gives each key once, with a value, and never 'address' (got {shown})"
    return None


def read_key(path: Path) -> str:
    """The API key in `path` (surrounding whitespace dropped); the message never quotes the file."""
    try:
        key = path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise ValueError(f"cannot read the key file {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"the key file {path} is not UTF-8 text") from None
    if not key:
        raise ValueError(f"the key file {path} is empty")
    return key


def load_settings() -> ReverieSettings:
    """Read the environment, turning validation failures into one readable message."""
    try:
        settings = ReverieSettings()
        validate_profile_id(settings.reverie_profile)
        settings.endpoint_config()
    except ValidationError as error:
        raise SettingsError("Invalid setting: " + validation_problems(error, str.upper)) from None
    except InvalidInputError as error:
        raise SettingsError(f"REVERIE_PROFILE: {error}") from None
    return settings
