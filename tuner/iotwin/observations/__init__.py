"""The measured observations a platform model is fitted to: runs already in the store
(:mod:`~iotwin.observations.stored`), or a design of runs measured now
(:mod:`~iotwin.observations.design`). ``iotwin calibrate`` reads them from here and fits with
:mod:`iotwin.model.calibration`."""
