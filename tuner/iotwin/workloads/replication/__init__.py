"""Replicating an application's I/O, from a Darshan log or a MACSio-like description."""
