"""Workloads (sim-models/WORKLOAD.md) made from what programs do."""
