"""Scorers and evaluations: coreference metrics (MUC, B³, CEAF-e, LEA), GAP, counting, rule baselines,
plots."""
