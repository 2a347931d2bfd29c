# Aliases for the scripts README opens with (scripts/demo, scripts/test), plus a few extras.
# Everything runs from the virtual environment scripts/setup.sh makes in .venv.
export PATH := $(CURDIR)/.venv/bin:$(PATH)

.PHONY: demo test vsix bench

demo:
	scripts/demo

test:
	scripts/test

vsix:
	cd vscode-client && npm ci --no-audit --no-fund && npm run package

bench:
	python bench/panel_speed.py --repeat 5
	python bench/runner_phases.py --repeat 5
