"""Benchmarks: scripts run by hand (or `make bench`), never as timed unit tests."""
