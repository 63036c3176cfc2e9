"""Errors that reach the user as one clear line."""


class UserError(Exception):
    """Bad input from the user (file, key, value): printed as one line, exit status 2."""
