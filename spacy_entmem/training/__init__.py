"""Training support: targets read from reference docs, spaCy training callbacks and loggers, sweeps."""
