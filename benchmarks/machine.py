"""One line naming the CPU a benchmark ran on, for the figures it prints.

Sessions on this project have landed on different hosts behind the same "AMD EPYC" name:
AMD family 26 (Zen 5) runs 512-bit vector instructions at full width, family 25 (Zen 4)
splits each into two 256-bit halves, so the same fp32 matrix product ran about twice as
fast on the first (oneDNN 207 against 100 GFLOP/s per core). The family and model
numbers tell them apart where the model name does not.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path


def _amd_core(family: int, avx512: bool) -> str | None:
    # family 25 holds Zen 3 and Zen 4; only Zen 4 has AVX-512
    return {23: "Zen/Zen 2", 25: "Zen 4" if avx512 else "Zen 3", 26: "Zen 5"}.get(family)


def cpu_description(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """E.g. "AMD EPYC (AMD family 25 model 17, Zen 4), AVX-512, 2 CPUs"."""
    fields: dict[str, str] = {}
    try:
        for line in cpuinfo.read_text().splitlines():
            if not line.strip():
                break  # the first processor's block is enough
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or platform.machine()
    flags = fields.get("flags", "").split()
    parts = [name]
    vendor = fields.get("vendor_id", "")
    family, model = fields.get("cpu family"), fields.get("model")
    if family and model:
        label = "AMD" if vendor == "AuthenticAMD" else "Intel" if "Intel" in vendor else vendor
        arch = _amd_core(int(family), "avx512f" in flags) if vendor == "AuthenticAMD" else None
        parts = [f"{name} ({label} family {family} model {model}"
                 f"{', ' + arch if arch else ''})"]
    if flags:
        parts.append("AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags
                     else "no AVX2")
    parts.append(f"{os.cpu_count()} CPUs")
    return ", ".join(parts)


if __name__ == "__main__":
    print(cpu_description())
