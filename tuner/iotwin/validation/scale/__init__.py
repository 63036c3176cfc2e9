"""The scale audit: how the model behaves as a workload grows, where its answers bend, and its
report."""
