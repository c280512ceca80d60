# Two entry points on a fresh machine with Python 3.11: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test bench decks clean

# ultralytics pulls opencv-python (GUI build, needs libGL) beside the headless one and both
# write cv2/: after the install, drop the GUI build and restore the headless files it shared.
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev]'
	$(BIN)/python -m pip uninstall -q -y opencv-python
	$(BIN)/python -m pip install -q --force-reinstall --no-deps \
		"opencv-python-headless==$$($(BIN)/python -c 'import importlib.metadata as m; print(m.version("opencv-python-headless"))')"
	touch $(STAMP)

# Until the service lands, the main job is the command line: `make run ARGS="hand --rules gnau 3S 6H 8D 4C 8H"`.
ARGS ?= --help
run: $(STAMP)
	$(BIN)/oxeye $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

bench: $(STAMP)
	$(BIN)/python -m bench

# Optional: fetch third-party SVG decks from npm into data/decks (the generator works without them).
decks: $(STAMP)
	$(BIN)/oxeye dataset fetch-decks

clean:
	rm -rf $(VENV)
