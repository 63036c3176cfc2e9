"""Executors: where a configuration is measured (see iotwin.executors.base)."""
