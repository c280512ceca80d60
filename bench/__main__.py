"""Run every benchmark with its defaults: python -m bench"""

import importlib

for name in ("bench.engine_speed", "bench.dataset_speed"):
    print(f"== {name}")
    importlib.import_module(name).main([])
