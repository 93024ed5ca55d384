"""The symbolic layer: what the grammar reads (switches of its rules, saved with a pipeline's config)."""
