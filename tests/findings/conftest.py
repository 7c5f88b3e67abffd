"""Fixtures the findings tests of the Go clients share (sarama, kafka-go): their drivers built, and the clone as the
working directory, where the files' relative driver paths point. A test module may define its own `in_clone`."""

import pytest

from tests import go_drivers
from tests.paths import ROOT


@pytest.fixture(scope="module")
def drivers():
    return go_drivers.build()  # fails, with make's one line, where Go is missing: never skipped


@pytest.fixture
def in_clone(drivers, monkeypatch):
    monkeypatch.chdir(ROOT)  # where the files' relative driver path points
