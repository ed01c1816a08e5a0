"""Imported only by the crash guard's fork server, before it forks any cleaning child.

Each child re-runs the job's main module as ``__mp_main__`` (multiprocessing's rule for
non-fork starts). The fork server has imported that module already (see
``guard._preload_modules``), so ``runpy`` warns that it "may result in unpredictable
behaviour": harmless here, since the module only defines things when not run as
``__main__``, but printed once per child start in every run. This filter, set in the server,
is inherited by the children it forks; no other process imports this module.
"""

import warnings

warnings.filterwarnings(
    "ignore",
    message=r".*found in sys\.modules after import of package.*",
    category=RuntimeWarning,
    module="runpy",
)
