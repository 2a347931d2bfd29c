# Two commands: `make demo` (set up, then judge an example suite) and `make test` (set up, then everything).
# Everything runs from the virtual environment scripts/setup.sh makes in .venv.
export PATH := $(CURDIR)/.venv/bin:$(PATH)
DEMO_TASK := fixtures/mean-rounded

.PHONY: demo test test-python test-extension vsix bench setup

setup:
	scripts/setup.sh

demo: setup
	@echo "== an over-specified suite: it rejects valid candidates (exit status 1 means: no joint success)"
	-prism run $(DEMO_TASK) $(DEMO_TASK)/suites/test_overfit.py
	@echo "== a suite that judges behaviour: joint success (exit status 0)"
	prism run $(DEMO_TASK) $(DEMO_TASK)/suites/test_strong.py

test:
	scripts/setup.sh --test
	$(MAKE) test-python
	$(MAKE) test-extension

test-python:
	python -m pytest -q

# The VS Code extension: build, type-check, lint, unit and protocol tests, package, check the package.
test-extension:
	@if node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'; then \
		cd vscode-client && npm ci --no-audit --no-fund && npm run build && npm run typecheck && npm run lint \
		&& npm test && npm run package && npm run test:vsix; \
	elif [ -n "$$CI" ]; then echo "test-extension: CI needs Node.js >= 20 (vsce); found $$(node --version)"; exit 1; \
	else echo "test-extension: SKIPPED: the extension's tools (vsce) need Node.js >= 20; found $$(node --version)"; fi

vsix:
	cd vscode-client && npm ci --no-audit --no-fund && npm run package

bench:
	python bench/panel_speed.py --repeat 5
