"""iotwin: simulation-screened auto-tuning of parallel HDF5 / MPI-IO / Lustre-GPFS I/O."""

__version__ = "0.1.0"
