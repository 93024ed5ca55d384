#!/usr/bin/env bash
# project.yml command 'memory-pressure-checkpoints', kept in a file: the memory fine-tuned under memory pressure
# (the 'memory-pressure' command's recipe) with another seed, its pipeline saved at every evaluation; each
# checkpoint, and the 50/50 weight averages of the given steps with the shipped memory, put in a copy of the default
# and read on LitBank / GUM dev and the keyed books. Arguments: seed, data_dir, averaged steps ("100 150 350").
seed="$1"
data_dir="$2"
averaged="$3"
run=training/pressure_s${seed}
python -m spacy train configs/coref_gum_scheme.cfg --output $run/run --paths.start spacy_entmem/pipelines/default \
  --paths.train corpus/pressure/train --paths.dev corpus/recipe/dev --training.max_steps 400 --system.seed $seed \
  --training.logger.checkpoints_dir $run/ckpt --training.logger.output_file $run/evals.jsonl || exit 1
# the shipped memory as a checkpoint of the same pipeline (tok2vec and finder were frozen: identical)
rm -rf $run/start && cp -r $run/ckpt/step-0 $run/start && rm -rf $run/start/entity_memory && \
  cp -r spacy_entmem/pipelines/default/entity_memory $run/start/ || exit 1
for step in ${averaged}; do
  python -m spacy_entmem average-checkpoints $run/ckpt/avg-$step $run/ckpt/step-$step $run/start || exit 1
done
for checkpoint in $run/ckpt/*; do
  name=$(basename $checkpoint); pipe=$run/pipe_$name
  rm -rf $pipe && cp -r spacy_entmem/pipelines/default $pipe || exit 1
  python -m spacy_entmem.research.maintainer annotate-with-memory $checkpoint --target $pipe || exit 1
  python benchmarks/grammar_ablation.py corpus/litbank/dev.spacy corpus/gum_rd/dev.spacy --only shipped \
    --pipeline $pipe --output $run/dev_$name.json || exit 1
  python benchmarks/books.py --novels ${data_dir}/novels --pipeline $pipe --tables $run/tables_$name \
    --output $run/books_$name.json tests/fixtures/data/books/*.json || exit 1
done
