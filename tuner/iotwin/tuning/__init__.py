"""One tuning campaign: the evaluator, confirmation, repetitions and the tune pipeline."""
