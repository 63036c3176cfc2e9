"""The file formats users write (tuning configs, workloads): the one bounds table, how their
YAML or JSON text is read, and the table-driven checks of the workload schema."""
