"""Registered thinc architectures: they wrap the torch modules of ``spacy_entmem.nn`` for spaCy components."""
