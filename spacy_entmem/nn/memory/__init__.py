"""Entity memories as torch modules: PeTra, the Referential Reader, span PeTra and the teacher-forced
mention memory; plain tensors in, plain tensors out."""
