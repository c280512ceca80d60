<<<<<<< HEAD
"""Benchmarks: medians, and ratios against a baseline run in the same process. Never timed unit tests."""
=======
"""Benchmarks: scripts run by hand (or `make bench`), never as timed unit tests."""
>>>>>>> datasets
