"""How well the twin predicts: the local suite and the paper's cases."""
