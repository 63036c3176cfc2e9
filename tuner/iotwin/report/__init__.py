"""Reports: one self-contained HTML page per campaign, experiment or validation, and its CSV
(iotwin.report.writing), and the text of a run's mechanisms the commands print
(iotwin.report.mechanisms).

Importing one module of this package imports no other: `iotwin tune` prints mechanisms
without importing the experiment and validation reports."""
