"""The ``entmem`` command line, apart from ``spacy_entmem`` so that ``entmem --help`` imports neither spaCy nor
torch (importing ``spacy_entmem`` loads both); the commands import the package when they run."""
