"""Subcommands of `iotwin`, one module each (see iotwin.cli)."""
