"""Limits every layer applies the same way."""

#: seconds before a real run is killed and counted as a timeout (``--timeout`` overrides it)
RUN_TIMEOUT_S = 600.0
