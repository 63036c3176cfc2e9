"""The performance model: the iosim driver, platforms, calibration, the Model/Fit protocol."""
