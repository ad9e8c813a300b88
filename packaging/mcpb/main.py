"""The MCP bundle's entry point: the host runs `uv run main.py` in the unpacked bundle, which
installs Reverie from the bundle's pyproject.toml and serves it over stdio."""

from server.cli import main

if __name__ == "__main__":
    main(["serve"])
