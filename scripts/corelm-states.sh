#!/usr/bin/env bash
# project.yml command 'corelm-states', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: data_dir, corelm_wikitext, corelm_lambada.
data_dir="$1"
corelm_wikitext="$2"
corelm_lambada="$3"
for corpus in train dev test wikitext lambada; do for shard in 0 1; do \
python -m spacy_entmem.research.corelm_experiment states $corpus corpus/corelm/$corpus-$shard.pt \
--shard $shard/2 --data-dir ${data_dir} --wikitext-articles ${corelm_wikitext} \
--lambada ${corelm_lambada} & done; wait; done
