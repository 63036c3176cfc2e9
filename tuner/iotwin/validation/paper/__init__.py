"""The paper validation: platform models fitted to the published measurements, and how well
(pipeline: the whole run; the other modules its steps)."""
