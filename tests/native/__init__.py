"""The native core's tests: each module is skipped when the core is not built (``make native``)."""

import pytest

from pipeline import native

#: The core's extension module, or None when it is not built.
MODULE = native.load_module()

#: A test module's ``pytestmark``: skipped without the core.
NEEDS_CORE = pytest.mark.skipif(MODULE is None, reason="the native core is not built (make native)")
