"""Readers and writers for full-coreference corpora (LitBank, GUM / OntoGUM, CoNLL-2012 output).

No torch here. Every reader produces ``CorefDocument`` records, and ``docs.to_doc`` turns them into spaCy
docs carrying gold clusters in ``coref_clusters_N`` span groups.
"""
