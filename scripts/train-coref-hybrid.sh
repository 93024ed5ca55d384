#!/usr/bin/env bash
# project.yml command 'train-coref-hybrid', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: transformer.
transformer="$1"
for seed in 0 1; do for run in trf control; do out=training/hybrid/$run-s$seed; extra=""; \
[ $run = trf ] && extra="--paths.transformer ${transformer}"; \
[ -d $out/model-last ] || python -m spacy train configs/coref_hybrid_$run.cfg --output $out --system.seed $seed $extra \
--training.logger.output_file $out/log.jsonl --training.logger.checkpoints_dir $out/checkpoints || exit 1; \
python -m spacy_entmem average-checkpoints $out/average $out/checkpoints/step-300 $out/checkpoints/step-350 \
$out/checkpoints/step-400 $out/checkpoints/step-450 $out/checkpoints/step-500 || exit 1; done; done
