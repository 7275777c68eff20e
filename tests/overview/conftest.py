"""The sample subset of the GUI tests (200 people of the sample city), shared with these tests."""

from tests.gui.conftest import sample_subset  # noqa: F401 - a fixture
