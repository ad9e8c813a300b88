"""Imported by the fork server of `tests.forked`: every tool built once there (about 0.12 s of
CPU), so the servers forked from it share them instead of each building its own."""

from server.tools import reverie_tools

reverie_tools()
