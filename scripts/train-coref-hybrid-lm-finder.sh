#!/usr/bin/env bash
# project.yml command 'train-coref-hybrid-lm-finder', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: none.
for seed in 0 1; do python -m spacy_entmem replace-component training/hybrid/lm-s$seed/average \
training/finder/lm/model-best training/hybrid/lmfinder-s$seed/average || exit 1; done
