"""The SQLite store of campaigns, evaluations, predictions and calibrations."""
