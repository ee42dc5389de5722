"""Shared by the benchmark scripts: targets printed ``met`` / ``MISSED``, and a JSON record.

Each script fills one section of the record file (``--json``, e.g.
``book/paper-results/benchmark.json``, read by the book's performance page); other sections
are kept. A section holds what was measured (``data``), every target with its value, and
the conditions of the run (``meta``: code measured, machine, load, BLAS threads).
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy


class Record:
    """Targets and data of one benchmark section."""

    def __init__(self, section, code_label=None):
        self.section = section
        self.code_label = code_label or _git_commit()
        self.targets = []
        self.data = {}
        self.started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.load_start = os.getloadavg()[0]

    def target(self, name, value, threshold, better, detail="", spread=None):
        """Record and print one target: ``better`` is ``"below"`` or ``"above"``; ``spread``
        the (lowest, highest) value over the measurement's rounds, when it has rounds."""
        met = value <= threshold if better == "below" else value >= threshold
        entry = {"name": name, "value": float(value), "threshold": threshold,
                 "better": better, "met": bool(met), "detail": detail}
        if spread is not None:
            entry["spread"] = [float(spread[0]), float(spread[1])]
        self.targets.append(entry)
        sign = "<=" if better == "below" else ">="
        over = "" if spread is None else f", rounds {spread[0]:.3g}-{spread[1]:.3g}"
        print(f"TARGET {name}: {'met' if met else 'MISSED'} ({value:.3g}{over}, target {sign} "
              f"{threshold:g}{'; ' + detail if detail else ''})", flush=True)

    def summary(self):
        met = sum(t["met"] for t in self.targets)
        print(f"{met} of {len(self.targets)} targets met", flush=True)

    def save(self, path, blas_threads):
        """Write this section into the JSON file at ``path`` (other sections kept)."""
        path = Path(path)
        document = json.loads(path.read_text()) if path.is_file() else {}
        document[self.section] = {
            "meta": {
                "code": self.code_label,
                "started": self.started,
                "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "command": " ".join([Path(sys.argv[0]).name] + sys.argv[1:]),
                "cpu": _cpu_model(),
                "cpu_count": os.cpu_count(),
                "load_average_start": self.load_start,
                "load_average_end": os.getloadavg()[0],
                "blas_threads": blas_threads,
                "python": platform.python_version(),
                "numpy": np.__version__,
                "scipy": scipy.__version__,
            },
            "targets": self.targets,
            "data": self.data,
        }
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
        tmp.replace(path)
        print(f"wrote section {self.section!r} of {path}", flush=True)


def _git_commit():
    import dplasso

    source = Path(dplasso.__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(source), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(source), "status", "--porcelain", "--",
                                "."], capture_output=True, text=True, check=True).stdout
        return out + ("+changes" if dirty.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
