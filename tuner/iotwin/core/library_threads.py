"""The environment variables that set a numerical library's thread count, read by OpenBLAS,
OpenMP, MKL and BLIS once, when they load: a child process is given them before it imports
numpy. A leaf: the Darshan reader's child imports it before its memory cap, where every
module imported counts against the cap."""

LIBRARY_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                            "BLIS_NUM_THREADS")
