"""Run every benchmark with its defaults: python -m bench"""

import importlib

for name in ("bench.engine_speed", "bench.dataset_speed", "bench.service_speed", "bench.annotate_speed"):
    print(f"== {name}")
    try:
        importlib.import_module(name).main([])
    except SystemExit as stop:  # one that cannot run here (no shipped model) says why; the others still run
        print(stop)
