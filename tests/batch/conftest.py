import pytest

import spacy_entmem


@pytest.fixture(scope="package")
def nlp():
    """The shipped pipeline, loaded once for the batch tests."""
    return spacy_entmem.load_default()
