"""Studies over many runs: parameter sweeps on a local process pool or a Dask cluster, and
the loading of model scripts they (and the command line) run."""
