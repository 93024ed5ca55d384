#!/usr/bin/env bash
# project.yml command 'corelm-entities', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: data_dir, corelm_wikitext, corelm_lambada.
data_dir="$1"
corelm_wikitext="$2"
corelm_lambada="$3"
for corpus in train dev test wikitext lambada; do \
python -m spacy_entmem.research.corelm_experiment entities $corpus corpus/corelm/$corpus-entities.pt \
--data-dir ${data_dir} --wikitext-articles ${corelm_wikitext} --lambada ${corelm_lambada} \
|| exit 1; done
