"""The native core's tests: each module is skipped when the core is not built (``make native``)."""

import pytest

from pipeline import native

#: The core's extension module, or None when it is not built.
MODULE = native.load_module()

#: A test module's ``pytestmark``: skipped without the core, or when this run is on the Python
#: path (``BIG2_PURE_PYTHON`` set: the ``pipeline.native`` calls the tests make need the core).
NEEDS_CORE = pytest.mark.skipif(
    MODULE is None or not native.available(),
    reason="the native core is not built (make native), or BIG2_PURE_PYTHON is set",
)
