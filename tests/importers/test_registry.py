"""The importers' registry: one entry per format, whose reader takes exactly the options it is given."""

from __future__ import annotations

import importlib
import inspect

import pytest

from prism_lsp.tasks.importers import FOLDERS, MANY, REGISTRY


@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_reader_takes_the_options_its_entry_names(name):
    entry = REGISTRY[name]
    module, function = entry.reader.split(":")
    read = getattr(importlib.import_module(f"prism_lsp.tasks.importers.{module}"), function)
    keyword = {p.name for p in inspect.signature(read).parameters.values() if p.kind is p.KEYWORD_ONLY}
    assert keyword == set(entry.options)


def test_a_format_is_a_many_task_file_or_a_task_folder_never_both():
    assert not set(MANY) & set(FOLDERS)
    assert set(MANY) | set(FOLDERS) == set(REGISTRY)
