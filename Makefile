# Two entry points on a fresh machine with Python 3.11: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test bench decks device-wheels clean

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

# The main job: the web service on 127.0.0.1:8000 (API docs at /docs), ledger in data/oxeye.sqlite3.
run: $(STAMP)
	$(BIN)/oxeye serve

# The page tests drive Debian's headless Chromium; install it where we may (CI runs as root).
BROWSER := /usr/bin/chromedriver
$(BROWSER):
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else sudo -n sh -c 'apt-get update -qq && apt-get install -y -qq chromium chromium-driver' >/dev/null || echo "no chromium: the page tests will be skipped"; fi

test: $(STAMP) $(BROWSER)
	$(BIN)/python -m pytest -q -n 2

bench: $(STAMP)
	$(BIN)/python -m bench

# Optional: fetch third-party SVG decks from npm into data/decks (the generator works without them).
decks: $(STAMP)
	$(BIN)/oxeye dataset fetch-decks

# For a lent GPU machine (Python 3.12, nothing can be fetched there): into .whl/, the wheels it lacks for
# `oxeye dataset build`, `train` and `evaluate`, at the versions installed here, and oxeye itself.
# MODEL_CARD.md (Not done) has the commands that carry them with data/decks and train there.
DEVICE_LACKS := ultralytics ultralytics-platform ultralytics-thop onnxslim resvg-py
device-wheels: $(STAMP)
	rm -rf .whl
	$(BIN)/python -c 'import importlib.metadata as m; print(*(n + "==" + m.version(n) for n in "$(DEVICE_LACKS)".split()))' \
		| xargs $(BIN)/python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
		--implementation cp --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 -d .whl
	$(BIN)/python -m pip wheel -q --no-deps --no-build-isolation -w .whl .

clean:
	rm -rf $(VENV)
