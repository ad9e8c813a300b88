"""REVERIE_MODEL_* settings: a malformed URL or an unreadable key file stops the start with a
message naming the setting, and the key is never echoed."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.settings import SettingsError, load_settings
from tests.scripted_endpoint import KEY

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def endpoint_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("URL", "NAME", "KEY", "KEY_FILE", "VERIFY"):
        monkeypatch.delenv(f"REVERIE_MODEL_{name}", raising=False)
    monkeypatch.setenv("REVERIE_MODEL_URL", "http://127.0.0.1:11434/v1/")
    monkeypatch.setenv("REVERIE_MODEL_NAME", "llama3.1:8b")
    return monkeypatch


def test_a_well_formed_endpoint_is_read_with_its_key(endpoint_env: pytest.MonkeyPatch) -> None:
    endpoint_env.setenv("REVERIE_MODEL_KEY", KEY)
    settings = load_settings()
    config = settings.endpoint_config()
    assert config is not None
    assert (config.url, config.model, config.key) == ("http://127.0.0.1:11434/v1", "llama3.1:8b", KEY)
    assert KEY not in repr(settings) and KEY not in str(settings) and KEY not in repr(config)
    assert KEY not in settings.model_dump_json()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("localhost:11434", "http\\(s\\) base URL"),
        ("ftp://models.example/v1", "http\\(s\\) base URL"),
        ("http://127.0.0.1:eleven/v1", "http\\(s\\) base URL"),
        ("http://127.0.0.1:11434/v1/chat/completions", "without /chat/completions"),
        (f"https://me:{KEY}@api.example/v1", "may not carry credentials"),
        (f"https://api.example/v1?key={KEY}", "may not carry credentials"),
    ],
)
def test_a_malformed_url_stops_the_start_without_echoing_it(
    endpoint_env: pytest.MonkeyPatch, url: str, expected: str
) -> None:
    endpoint_env.setenv("REVERIE_MODEL_URL", url)
    with pytest.raises(SettingsError, match=f"REVERIE_MODEL_URL.*{expected}") as raised:
        load_settings()
    assert KEY not in str(raised.value)


def test_an_endpoint_without_a_model_name_stops_the_start(endpoint_env: pytest.MonkeyPatch) -> None:
    endpoint_env.delenv("REVERIE_MODEL_NAME")
    with pytest.raises(SettingsError, match="REVERIE_MODEL_NAME"):
        load_settings()


def test_the_key_is_read_from_its_file(endpoint_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(f"  {KEY}\n", encoding="utf-8")
    endpoint_env.setenv("REVERIE_MODEL_KEY_FILE", str(key_file))
    config = load_settings().endpoint_config()
    assert config is not None and config.key == KEY


@pytest.mark.parametrize("problem", ["missing", "empty", "a directory"])
def test_an_unreadable_key_file_stops_the_start(
    endpoint_env: pytest.MonkeyPatch, tmp_path: Path, problem: str
) -> None:
    key_file = tmp_path / "key"
    if problem == "empty":
        key_file.write_text("\n", encoding="utf-8")
    elif problem == "a directory":
        key_file.mkdir()
    endpoint_env.setenv("REVERIE_MODEL_KEY_FILE", str(key_file))
    with pytest.raises(SettingsError, match=f"REVERIE_MODEL_KEY_FILE.*{key_file}"):
        load_settings()


def test_a_key_and_a_key_file_together_stop_the_start(
    endpoint_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("other", encoding="utf-8")
    endpoint_env.setenv("REVERIE_MODEL_KEY", KEY)
    endpoint_env.setenv("REVERIE_MODEL_KEY_FILE", str(key_file))
    with pytest.raises(SettingsError, match="both set") as raised:
        load_settings()
    assert KEY not in str(raised.value)


def test_no_url_means_no_endpoint(endpoint_env: pytest.MonkeyPatch) -> None:
    endpoint_env.delenv("REVERIE_MODEL_URL")
    assert load_settings().endpoint_config() is None
