"""Experiment-only code, kept apart from the components and the user CLI: the maintainer commands that assemble
and ship the default pipeline (``python -m spacy_entmem.research.maintainer``), CoreLM's experiments and the
memory sweeps. Nothing in the rest of the package imports it."""
