"""`reverie service install | remove | status`: the nightly scheduler as a user service
(`server.user_service`)."""

from __future__ import annotations

import os

import click

from server.settings import ReverieSettings, load_settings
from server.user_service import (
    carried_environment,
    install,
    remove,
    scheduler_command,
    service_for,
    state,
)

files_only_option = click.option(
    "--files-only",
    is_flag=True,
    help="Write or delete the service's files without asking the service manager (prints what to run).",
)


@click.group()
def service() -> None:
    """Run the nightly scheduler as your user service, for nights while no host runs Reverie."""


@service.command("install")
@files_only_option
def install_service(files_only: bool) -> None:
    """Install (or update) and start the service, with this environment's Reverie settings."""
    # Refused here, before anything is written, rather than by the service at every restart.
    settings = load_settings()
    user_service = service_for()
    env = carried_environment(os.environ, list(ReverieSettings.model_fields))
    files = user_service.render(scheduler_command(), env)
    install(user_service, files, files_only)
    for path in files:
        click.echo(f"wrote {path}")
    carried = ", ".join(env) or "none (every setting at its default)"
    click.echo(f"settings carried: {carried}")
    if files_only:
        click.echo("to start it: " + " && ".join(" ".join(step) for step in user_service.start))
    else:
        click.echo(f"started: `reverie scheduler` runs while you are logged in ({user_service.manager})")
    if not settings.dreaming_enabled:
        click.echo(
            "DREAMING_ENABLED is off here: the service dreams only for profiles whose own setting is on "
            "(configure_dreaming, or `reverie dream configure --profile P --enabled`)."
        )


@service.command("remove")
@files_only_option
def remove_service(files_only: bool) -> None:
    """Stop and disable the service and delete its files."""
    removed = remove(service_for(), files_only)
    click.echo("\n".join(f"deleted {path}" for path in removed) or "no service files were there")


@service.command("status")
def service_status() -> None:
    """Say whether the service's files are there and what the service manager says of it."""
    click.echo("\n".join(state(service_for())))
