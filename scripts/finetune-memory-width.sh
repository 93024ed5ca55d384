#!/usr/bin/env bash
# project.yml command 'finetune-memory-width', kept in a file: weasel turns '$' into '$$' in a project.yml script
# when --vars overrides are given. Arguments: memory_widths.
memory_widths="$1"
for w in ${memory_widths}; do d=training/width/w$w; for s in 0 1; do \
python -m spacy train configs/coref_sm_gap_stage3.cfg --output $d/finetune_s$s --paths.stage2 $d/model-best \
--training.max_epochs 4 --system.seed $s --training.logger.output_file $d/finetune_s$s.log.jsonl || exit 1; done; \
python -m spacy_entmem average-checkpoints $d/finetuned-average $d/finetune_s0/model-best \
$d/finetune_s0/model-last $d/finetune_s1/model-best $d/finetune_s1/model-last || exit 1; done
