"""The tuning config: its schema (data/config-schema.yaml) and validation."""
