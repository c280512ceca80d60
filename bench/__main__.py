"""Run every benchmark: python -m bench"""

import importlib

for name in ("bench.engine_speed",):
    print(f"== {name}")
    importlib.import_module(name).main([])
