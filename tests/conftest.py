"""The suite's plugins and profiles.

- tests/perturb.py: ``--perturb`` (on when CI is set) runs each ``@pytest.mark.accuracy`` test
  a second time with its start state and tolerances perturbed as another machine's round-off
  would (see that module).
- Hypothesis: the profile "ci" (derandomized: the same examples on every run, the failing
  one's blob printed to reproduce it, no deadline: numba compiles on a first call), loaded
  when CI is set.
"""
import os

from hypothesis import settings

from tests.perturb import (  # noqa: F401
    PerturbedModule,
    perturbation,
    pytest_addoption,
    pytest_collect_file,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_fixture_setup,
    pytest_runtest_protocol,
)

settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
