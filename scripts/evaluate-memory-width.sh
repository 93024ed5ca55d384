#!/usr/bin/env bash
# project.yml command 'evaluate-memory-width', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: memory_widths, memory_width_model, data_dir, gap_dir.
memory_widths="$1"
memory_width_model="$2"
data_dir="$3"
gap_dir="$4"
for w in ${memory_widths}; do m=training/width/w$w/${memory_width_model}; o=metrics/width/w$w/${memory_width_model}; \
python -m spacy_entmem coref-evaluate $m corpus/litbank/test.spacy --output-dir $o --name litbank_test \
--select-on corpus/litbank/dev.spacy --select-on corpus/gum_rd/dev.spacy --select-by lea \
--setting name_genders=true --setting name_agreement=true \
--setting "pronoun_agreement=[\"gender\", \"number\"]" || exit 1; \
python -m spacy_entmem coref-evaluate $m corpus/gum_rd/test.spacy --output-dir $o --name gum_rd_test \
--decisions-from $o/litbank_test.json || exit 1; \
python -m spacy_entmem gap-evaluate $m ${data_dir}/${gap_dir}/gap-validation.tsv \
${data_dir}/${gap_dir}/gap-test.tsv --output-dir $o --setting name_genders=true \
--setting name_agreement=true --setting "pronoun_agreement=[\"gender\", \"number\"]" || exit 1; done
