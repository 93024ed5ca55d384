#!/usr/bin/env bash
# project.yml command 'evaluate-coref-hybrid', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: none.
for out in training/hybrid/*-s*; do run=$(basename $out); \
python -m spacy_entmem coref-evaluate $out/average corpus/litbank/dev.spacy corpus/gum_rd/dev.spacy \
--output-dir metrics/hybrid --name $run-dev_litbank_gum || exit 1; \
for corpus in litbank/test gum_rd/test; do \
python -m spacy_entmem coref-evaluate $out/average corpus/$corpus.spacy --output-dir metrics/hybrid \
--name $run-$(echo $corpus | tr / _) || exit 1; done; done
