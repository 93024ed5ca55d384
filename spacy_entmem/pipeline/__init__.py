"""The spaCy side: components (entity_memory, entmem_span_finder, entmem_tok2vec), extension attributes,
their settings, memory logs and displays."""
