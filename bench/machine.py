"""The machine a benchmark ran on: CPU, Python, platform and the versions of the heavy libraries.

Figures mean little without the machine, so every printed or recorded run carries one.

>>> parse_cpuinfo("processor : 0\\nmodel name : AMD EPYC\\nprocessor : 1\\nmodel name : AMD EPYC\\n")
('AMD EPYC', 2)
>>> parse_cpuinfo("")
('unknown', 0)
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
LIBRARIES = ("duckdb", "pyarrow", "pandas")


@dataclass(frozen=True, kw_only=True)
class Machine:
    """What a benchmark figure depends on besides the code."""

    cpu_model: str
    cpu_count: int  # processors listed in /proc/cpuinfo (0 where there is none)
    os_cpu_count: int | None
    python: str
    platform: str
    libraries: tuple[tuple[str, str], ...]
    hot_path: str = "unknown"  # pipeline.native.status(): the native core, or pure Python (why)
    load: tuple[float, float, float] | None = None  # os.getloadavg() when the run started

    def describe(self) -> str:
        """One line, as printed and recorded."""
        libs = ", ".join(f"{name} {version}" for name, version in self.libraries)
        return (
            f"{self.cpu_model}, {self.cpu_count} CPUs in /proc/cpuinfo, "
            f"os.cpu_count() = {self.os_cpu_count}; Python {self.python}; "
            f"{self.platform}; {libs}; hot path {self.hot_path}"
            + (
                ""
                if self.load is None
                else "; load average {:.2f} {:.2f} {:.2f}".format(*self.load)
            )
        )


def parse_cpuinfo(text: str) -> tuple[str, int]:
    """The CPU model and the number of processors in a ``/proc/cpuinfo`` text."""
    model = "unknown"
    count = 0
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "processor":
            count += 1
        elif key == "model name" and model == "unknown":
            model = value.strip()
    return model, count


def library_version(name: str) -> str:
    """The installed version of a distribution, or ``"not installed"``.

    >>> library_version("surely-not-a-real-distribution-name")
    'not installed'
    """
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def current() -> Machine:
    """Describe this machine (reads /proc/cpuinfo where it exists; imports no heavy library)."""
    from pipeline import native

    if CPUINFO.is_file():
        model, count = parse_cpuinfo(CPUINFO.read_text(encoding="utf-8", errors="replace"))
    else:
        model, count = (platform.processor() or "unknown"), 0
    return Machine(
        cpu_model=model,
        cpu_count=count,
        os_cpu_count=os.cpu_count(),
        python=platform.python_version(),
        platform=platform.platform(),
        libraries=tuple((name, library_version(name)) for name in LIBRARIES),
        hot_path=native.status(),
        load=os.getloadavg() if hasattr(os, "getloadavg") else None,
    )
