"""Benchmarks: medians, and ratios against a baseline run in the same process. Never timed unit tests."""
