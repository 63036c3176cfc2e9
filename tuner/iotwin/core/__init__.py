"""The leaf every other package of iotwin stands on: the records they share (a run's target
and result, what produced a measurement, a config's canonical hash, the MPI flavours' names,
the run time limit) and small helpers (user errors, sizes, where built parts live, YAML
reading, medians and intervals, progress lines, README blocks). Nothing here imports another
iotwin package."""
